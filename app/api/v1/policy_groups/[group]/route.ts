import { NextResponse } from 'next/server';
import { apiRoute, readJsonObject } from '@/lib/api/route';
import { assertCan } from '@/lib/auth/permissions';
import { chefGroup } from '@/lib/db/queries/policies';
import { deleteStage, putStage } from '@/lib/services/manage-stage';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(async (_req, { access, params }) => {
  const body = await chefGroup(params.group);
  assertCan(access, 'stage.view', { stage: params.group });
  return NextResponse.json(body);
});

/** Creates a stage (admin) or updates its position/description (manage). Body: { position?, description? }. */
export const PUT = apiRoute(async (req, { access, params, requestId }) => {
  const body = await readJsonObject(req);
  const { name: _ignored, ...rest } = body as Record<string, unknown>;
  const result = await putStage(access, { ...rest, name: params.group }, requestId);
  return NextResponse.json(await chefGroup(result.name), { status: result.status });
});

export const DELETE = apiRoute(async (_req, { access, params, requestId }) => NextResponse.json(await deleteStage(access, params.group, requestId)));
