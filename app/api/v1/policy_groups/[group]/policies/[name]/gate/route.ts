import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { gateStateRoute } from '@/lib/api/contracts/rollout';
import { gateState } from '@/lib/services/runs';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(gateStateRoute, async (_req, { access, params, query }) =>
  NextResponse.json({ gate: await gateState(access, { stage: params.group, policy: params.name, revisionId: query.revision_id, fromStage: query.from }) }),
);
