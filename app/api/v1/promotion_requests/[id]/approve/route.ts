import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { approveBody, approveRequestRoute } from '@/lib/api/contracts/guarded';
import { approvePromotionRequest } from '@/lib/services/promotion';
import { parseOptionalJsonBody } from '@/lib/api/optional-body';

export const dynamic = 'force-dynamic';

/** The body is optional (an empty body approves without a comment), so it is read as text and parsed with the contract's schema here. */
const parseApproveBody = (text: string) => parseOptionalJsonBody(approveBody, text);

/** POST { comment?, override_reason? } (an approver of the stage, not the requester). */
export const POST = apiRoute(approveRequestRoute, async (_req, { access, input, text, requestId }) => {
  const b = parseApproveBody(text);
  return NextResponse.json({ request: await approvePromotionRequest(access, { ...b, ...input, requestId }) });
});
