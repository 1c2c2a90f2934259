import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { deleteStageRoute, getStageRoute, putStageRoute } from '@/lib/api/contracts/stages';
import { assertCan } from '@/lib/auth/permissions';
import { chefGroup } from '@/lib/db/queries/policies';
import { deleteStage, putStage } from '@/lib/services/manage-stage';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(getStageRoute, async (_req, { access, params }) => {
  const body = await chefGroup(params.group);
  assertCan(access, 'stage.view', { stage: params.group });
  return NextResponse.json(body);
});

/** Creates a stage (admin) or updates its position/description (manage). Body: { position?, description?, require_artifacts? }. */
export const PUT = apiRoute(putStageRoute, async (_req, { access, params, body, requestId }) => {
  const result = await putStage(access, { ...body, name: params.group }, requestId);
  return NextResponse.json(await chefGroup(result.name), { status: result.status });
});

export const DELETE = apiRoute(deleteStageRoute, async (_req, { access, params, requestId }) => NextResponse.json(await deleteStage(access, params.group, requestId)));
