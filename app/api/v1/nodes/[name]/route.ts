import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { reportNodeRoute } from '@/lib/api/contracts/nodes';
import { listNodes, reportNode } from '@/lib/services/nodes';

export const dynamic = 'force-dynamic';

/** Registers a node or records its check-in: { policy_group, policy_name, revision_id?, platform?, platform_version?, platform_family?, os? }. */
export const PUT = apiRoute(reportNodeRoute, async (_req, { access, params, body }) => {
  const { status } = await reportNode(access, { ...body, name: params.name });
  const node = (await listNodes(access, { name: params.name }))[0] ?? { name: params.name };
  return NextResponse.json(node, { status });
});
