import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { stageNodesRoute } from '@/lib/api/contracts/nodes';
import { assertViewable } from '@/lib/auth/permissions';
import { chefGroup } from '@/lib/db/queries/policies';
import { listNodes } from '@/lib/services/nodes';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(stageNodesRoute, async (_req, { access, params, query }) => {
  // Issue 41: the right first, so a hidden stage and a missing one answer alike.
  assertViewable(access, params.group, `Cannot load policy group ${params.group}`);
  await chefGroup(params.group);
  return NextResponse.json({ nodes: await listNodes(access, { group: params.group, stale: query.stale }) });
});
