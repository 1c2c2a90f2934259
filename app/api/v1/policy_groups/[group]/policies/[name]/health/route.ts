import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { stagePolicyHealthRoute } from '@/lib/api/contracts/rollout';
import { stageHealth, stageRuns } from '@/lib/services/runs';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(stagePolicyHealthRoute, async (_req, { access, params, query }) =>
  NextResponse.json({ health: await stageHealth(access, params.group, params.name), runs: await stageRuns(access, params.group, params.name, { limit: query.limit }) }),
);
