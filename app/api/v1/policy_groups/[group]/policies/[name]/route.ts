import { NextResponse } from 'next/server';
import { apiRoute, readBody } from '@/lib/api/route';
import { assertCan } from '@/lib/auth/permissions';
import { groupPolicyDocument } from '@/lib/db/queries/policies';
import { removeGroupPolicy, setGroupPolicy } from '@/lib/services/set-group-policy';

export const dynamic = 'force-dynamic';

const json = (text: string, status = 200) => new NextResponse(text, { status, headers: { 'content-type': 'application/json' } });

/** The node read path: serves the stored bytes, no parsing or re-serialising. */
export const GET = apiRoute(async (_req, { access, params }) => {
  assertCan(access, 'stage.view', { stage: params.group });
  return json(await groupPolicyDocument(params.group, params.name));
});

export const PUT = apiRoute(async (req, { access, params, requestId }) => {
  const text = await readBody(req);
  const result = await setGroupPolicy(access, { group: params.group, policy: params.name, text, requestId });
  return json(result.document, result.status);
});

export const DELETE = apiRoute(async (_req, { access, params, requestId }) => json((await removeGroupPolicy(access, { group: params.group, policy: params.name, requestId })).document));
