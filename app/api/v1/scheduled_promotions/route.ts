import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { listScheduledPromotionsRoute } from '@/lib/api/contracts/schedules';
import { listScheduledPromotions } from '@/lib/services/promotion';

export const dynamic = 'force-dynamic';

/** Issue 29: scheduled promotions in the stages the caller may view (?stage=&policy=&status=). */
export const GET = apiRoute(listScheduledPromotionsRoute, async (_req, { access, query }) => NextResponse.json({ scheduled_promotions: await listScheduledPromotions(access, query) }));
