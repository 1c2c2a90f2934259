import { NextResponse } from 'next/server';
import { apiRoute, readJsonObject } from '@/lib/api/route';
import { listNodes } from '@/lib/db/queries/nodes';
import { reportNode } from '@/lib/services/report-node';

export const dynamic = 'force-dynamic';

/** Registers a node or records its check-in: { policy_group, policy_name, revision_id?, platform?, platform_version?, platform_family?, os? }. */
export const PUT = apiRoute(async (req, { access, params }) => {
  const body = await readJsonObject(req);
  const { status } = await reportNode(access, { ...body, name: params.name });
  const node = (await listNodes(access, { name: params.name }))[0] ?? { name: params.name };
  return NextResponse.json(node, { status });
});
