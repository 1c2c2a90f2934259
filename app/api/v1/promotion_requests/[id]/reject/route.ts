import { NextResponse } from 'next/server';
import { apiRoute, readJsonObject } from '@/lib/api/route';
import { rejectPromotionRequest } from '@/lib/services/promotion-requests';

export const dynamic = 'force-dynamic';

/** POST { comment } (an approver of the stage, not the requester). */
export const POST = apiRoute(async (req, { access, params, requestId }) => {
  const b = await readJsonObject(req);
  return NextResponse.json({ request: await rejectPromotionRequest(access, { id: params.id, comment: b.comment as string, requestId }) });
});
