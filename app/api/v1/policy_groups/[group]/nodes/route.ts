import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { stageNodesRoute } from '@/lib/api/contracts/nodes';
import { assertCan } from '@/lib/auth/permissions';
import { chefGroup } from '@/lib/db/queries/policies';
import { listNodes } from '@/lib/db/queries/nodes';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(stageNodesRoute, async (_req, { access, params, query }) => {
  await chefGroup(params.group);
  assertCan(access, 'stage.view', { stage: params.group });
  return NextResponse.json({ nodes: await listNodes(access, { group: params.group, stale: query.stale }) });
});
