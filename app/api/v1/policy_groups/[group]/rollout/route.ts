import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { getRolloutRuleRoute, putRolloutRuleRoute } from '@/lib/api/contracts/rollout';
import { getStageRolloutRule, setStageRolloutRule } from '@/lib/services/runs';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(getRolloutRuleRoute, async (_req, { access, params }) => NextResponse.json(await getStageRolloutRule(access, params.group)));

/** PUT { gate?: { enabled, min_success_pct, min_nodes, max_failure_pct, soak_minutes }, rollback?: { enabled, window_minutes, failure_pct, min_runs } } (manage). */
export const PUT = apiRoute(putRolloutRuleRoute, async (_req, { access, input, body, requestId }) => NextResponse.json(await setStageRolloutRule(access, { ...body, ...input, requestId })));
