import { NextResponse } from 'next/server';
import { apiRoute, readBody } from '@/lib/api/route';
import { badRequest } from '@/lib/errors';
import { approvePromotionRequest } from '@/lib/services/promotion-requests';

export const dynamic = 'force-dynamic';

/** POST { comment?, override_reason? } (an approver of the stage, not the requester). The request applies when the approvals are in. */
export const POST = apiRoute(async (req, { access, params, requestId }) => {
  const text = (await readBody(req)).trim();
  let b: Record<string, unknown> = {};
  if (text) {
    try {
      b = JSON.parse(text);
    } catch {
      throw badRequest('Request body is not valid JSON', [{ path: '', message: 'Body must be valid JSON' }]);
    }
    if (!b || typeof b !== 'object' || Array.isArray(b)) throw badRequest('Body must be a JSON object', [{ path: '', message: 'Body must be a JSON object' }]);
  }
  if (b.comment !== undefined && typeof b.comment !== 'string') throw badRequest('comment must be a string', [{ path: '/comment', message: 'comment must be a string' }]);
  const request = await approvePromotionRequest(access, { id: params.id, comment: b.comment as string | undefined, overrideReason: b.override_reason as string | undefined, requestId });
  return NextResponse.json({ request });
});
