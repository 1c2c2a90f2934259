import { NextResponse } from 'next/server';
import { apiRoute, readJson } from '@/lib/api/route';
import { badRequest } from '@/lib/errors';
import { listNodes } from '@/lib/db/queries/nodes';
import { reportNode } from '@/lib/services/report-node';

export const dynamic = 'force-dynamic';

/** Registers a node or records its check-in: { policy_group, policy_name, revision_id?, platform?, platform_version?, platform_family?, os? }. */
export const PUT = apiRoute(async (req, { access, params }) => {
  const body = await readJson(req);
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('Body must be a JSON object', [{ path: '', message: 'Body must be a JSON object' }]);
  const { status } = await reportNode(access, { ...(body as object), name: params.name });
  const node = (await listNodes(access, { name: params.name }))[0] ?? { name: params.name };
  return NextResponse.json(node, { status });
});
