import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { getPromotionRequest } from '@/lib/services/promotion-requests';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(async (_req, { access, params }) => NextResponse.json({ request: await getPromotionRequest(access, params.id) }));
