import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { cancelScheduledPromotionRoute } from '@/lib/api/contracts/schedules';
import { cancelScheduledPromotion } from '@/lib/services/promotion';

export const dynamic = 'force-dynamic';

/** Issue 29: cancel a pending scheduled promotion (its scheduler, or who manages the stage). */
export const DELETE = apiRoute(cancelScheduledPromotionRoute, async (_req, { access, input, requestId }) => NextResponse.json(await cancelScheduledPromotion(access, { ...input, requestId })));
