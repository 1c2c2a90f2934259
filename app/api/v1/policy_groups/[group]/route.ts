import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { deleteStageRoute, getStageRoute, putStageRoute } from '@/lib/api/contracts/stages';
import { assertViewable } from '@/lib/auth/permissions';
import { chefGroup } from '@/lib/db/queries/policies';
import { deleteStage, putStage } from '@/lib/services/stages';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(getStageRoute, async (_req, { access, params }) => {
  // Issue 41: the right first, so a hidden stage and a missing one answer alike.
  assertViewable(access, params.group, `Cannot load policy group ${params.group}`);
  return NextResponse.json(await chefGroup(params.group));
});

/** Creates a stage (admin) or updates its position/description (manage). Body: { position?, description?, require_artifacts?, open_enrollment? }. */
export const PUT = apiRoute(putStageRoute, async (_req, { access, params, body, requestId }) => {
  const result = await putStage(access, { ...body, name: params.group }, requestId);
  return NextResponse.json(await chefGroup(result.name), { status: result.status });
});

export const DELETE = apiRoute(deleteStageRoute, async (_req, { access, params, requestId }) => NextResponse.json(await deleteStage(access, params.group, requestId)));
