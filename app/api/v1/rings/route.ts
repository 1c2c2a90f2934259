import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { listRingsRoute, startRingRoute } from '@/lib/api/contracts/rings';
import { listRingRollouts, startRingRollout } from '@/lib/services/rings';

export const dynamic = 'force-dynamic';

/** GET ?stage=&policy=&open=true */
export const GET = apiRoute(listRingsRoute, async (_req, { access, query }) =>
  NextResponse.json({ rings: await listRingRollouts(access, { stage: query.stage, policy: query.policy, open: query.open === 'true' }) }),
);

/** POST { stage, policy, revision_id, steps?, nodes?, gate_on_convergence?, soak_minutes?, reason?, ... } */
export const POST = apiRoute(startRingRoute, async (_req, { access, body, requestId }) => {
  const ring = await startRingRollout(access, { ...body, requestId });
  return NextResponse.json({ ring }, { status: ring.request ? 202 : 201 });
});
