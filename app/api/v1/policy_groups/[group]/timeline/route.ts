import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { stageTimelineRoute } from '@/lib/api/contracts/rollout';
import { stageTimeline } from '@/lib/services/runs';

export const dynamic = 'force-dynamic';

/** GET ?policy=&limit=: the stage's timeline, newest first (view). */
export const GET = apiRoute(stageTimelineRoute, async (_req, { access, params, query }) => NextResponse.json(await stageTimeline(access, { stage: params.group, policy: query.policy, limit: query.limit })));
