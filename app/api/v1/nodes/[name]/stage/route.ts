import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { moveNodeRoute } from '@/lib/api/contracts/nodes';
import { listNodes, moveNode } from '@/lib/services/nodes';

export const dynamic = 'force-dynamic';

/** Issue 41: moves a node to another stage ({ stage }); node.report on both stages, audited node.move. */
export const PUT = apiRoute(moveNodeRoute, async (_req, { access, params, body, requestId }) => {
  await moveNode(access, params.name, body.stage, requestId);
  const node = (await listNodes(access, { name: params.name }))[0] ?? { name: params.name };
  return NextResponse.json(node);
});
