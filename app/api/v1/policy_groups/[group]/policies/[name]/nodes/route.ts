import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { assertCan } from '@/lib/auth/permissions';
import { groupPolicyDocument } from '@/lib/db/queries/policies';
import { listNodes } from '@/lib/db/queries/nodes';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(async (req, { access, params }) => {
  assertCan(access, 'stage.view', { stage: params.group });
  await groupPolicyDocument(params.group, params.name);
  const stale = new URL(req.url).searchParams.get('stale') === 'true';
  return NextResponse.json({ nodes: await listNodes(access, { group: params.group, policy: params.name, stale }) });
});
