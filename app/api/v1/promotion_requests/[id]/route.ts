import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { getRequestRoute } from '@/lib/api/contracts/guarded';
import { getPromotionRequest } from '@/lib/services/promotion';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(getRequestRoute, async (_req, { access, params }) => NextResponse.json({ request: await getPromotionRequest(access, params.id) }));
