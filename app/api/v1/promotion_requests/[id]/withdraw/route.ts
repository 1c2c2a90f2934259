import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { withdrawRequestRoute } from '@/lib/api/contracts/guarded';
import { withdrawPromotionRequest } from '@/lib/services/promotion';

export const dynamic = 'force-dynamic';

/** POST (the requester, or a manager of the stage). */
export const POST = apiRoute(withdrawRequestRoute, async (_req, { access, input, requestId }) => NextResponse.json({ request: await withdrawPromotionRequest(access, { ...input, requestId }) }));
