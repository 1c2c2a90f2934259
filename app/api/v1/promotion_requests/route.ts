import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { listRequestsRoute } from '@/lib/api/contracts/guarded';
import { listPromotionRequests } from '@/lib/services/promotion';

export const dynamic = 'force-dynamic';

/** GET ?stage=&status=(a status)|all&policy=&scope=all|mine|to_approve&limit= */
export const GET = apiRoute(listRequestsRoute, async (_req, { access, query: { status, ...query } }) =>
  NextResponse.json({ requests: await listPromotionRequests(access, { ...query, ...(status && status !== 'all' ? { status } : {}) }) }),
);
