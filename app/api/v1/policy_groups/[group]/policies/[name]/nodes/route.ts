import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { stagePolicyNodesRoute } from '@/lib/api/contracts/nodes';
import { assertViewable } from '@/lib/auth/permissions';
import { groupPolicyDocument } from '@/lib/db/queries/policies';
import { listNodes } from '@/lib/services/nodes';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(stagePolicyNodesRoute, async (_req, { access, params, query }) => {
  assertViewable(access, params.group, `Cannot load policy ${params.name} in policy group ${params.group}`);
  await groupPolicyDocument(params.group, params.name);
  return NextResponse.json({ nodes: await listNodes(access, { group: params.group, policy: params.name, stale: query.stale }) });
});
