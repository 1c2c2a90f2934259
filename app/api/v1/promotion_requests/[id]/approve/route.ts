import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { approveBody, approveRequestRoute } from '@/lib/api/contracts/guarded';
import { AppError } from '@/lib/errors';
import { approvePromotionRequest } from '@/lib/services/promotion-requests';
import { zodErrors } from '@/lib/validation/zod-errors';

export const dynamic = 'force-dynamic';

/** The body is optional (an empty body approves without a comment), so it is read as text and parsed with the contract's schema here. */
function parseApproveBody(text: string) {
  if (!text.trim()) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new AppError('bad_request', `Request body is not valid JSON: ${(e as Error).message}`, [{ path: '', message: 'Body must be valid JSON' }]);
  }
  const parsed = approveBody.safeParse(raw);
  if (!parsed.success) {
    const errors = zodErrors(parsed.error);
    throw new AppError('bad_request', errors[0].message, errors);
  }
  return parsed.data;
}

/** POST { comment?, override_reason? } (an approver of the stage, not the requester). */
export const POST = apiRoute(approveRequestRoute, async (_req, { access, params, text, requestId }) => {
  const b = parseApproveBody(text);
  return NextResponse.json({ request: await approvePromotionRequest(access, { id: params.id, comment: b.comment, overrideReason: b.override_reason, requestId }) });
});
