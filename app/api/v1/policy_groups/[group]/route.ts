import { NextResponse } from 'next/server';
import { apiRoute, readJson } from '@/lib/api/route';
import { assertCan } from '@/lib/auth/permissions';
import { chefGroup } from '@/lib/db/queries/policies';
import { badRequest } from '@/lib/errors';
import { deleteStage, putStage } from '@/lib/services/manage-stage';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(async (_req, { access, params }) => {
  const body = await chefGroup(params.group);
  assertCan(access, 'stage.view', { stage: params.group });
  return NextResponse.json(body);
});

/** Creates a stage (admin) or updates its position/description (manage). Body: { position?, description? }. */
export const PUT = apiRoute(async (req, { access, params, requestId }) => {
  const body = await readJson(req);
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('Body must be a JSON object', [{ path: '', message: 'Body must be a JSON object' }]);
  const { name: _ignored, ...rest } = body as Record<string, unknown>;
  const result = await putStage(access, { ...rest, name: params.group }, requestId);
  return NextResponse.json(await chefGroup(result.name), { status: result.status });
});

export const DELETE = apiRoute(async (_req, { access, params, requestId }) => NextResponse.json(await deleteStage(access, params.group, requestId)));
