import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { listPromotionRequests, type ListRequestsInput } from '@/lib/services/promotion-requests';

export const dynamic = 'force-dynamic';

/** GET ?stage=&status=&policy=&scope=all|mine|to_approve — requests in the stages the caller may view, newest first. */
export const GET = apiRoute(async (req, { access }) => {
  const q = new URL(req.url).searchParams;
  const opt = (k: string) => q.get(k) || undefined;
  const limit = q.get('limit');
  const requests = await listPromotionRequests(access, { stage: opt('stage'), status: opt('status') as ListRequestsInput['status'], policy: opt('policy'), scope: opt('scope') as ListRequestsInput['scope'], limit: limit ? Number(limit) : undefined });
  return NextResponse.json({ requests });
});
