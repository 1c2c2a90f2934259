import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { schedulePromotionRoute } from '@/lib/api/contracts/schedules';
import { schedulePromotion } from '@/lib/services/promotion';

export const dynamic = 'force-dynamic';

/** Issue 29: POST { from, when: at|freeze_end, at?, expected_revision_id, reason? } → 201 the scheduled promotion. */
export const POST = apiRoute(schedulePromotionRoute, async (_req, { access, input, body, requestId }) =>
  NextResponse.json(await schedulePromotion(access, { ...body, ...input, requestId }), { status: 201 }),
);
