import { NextResponse } from 'next/server';
import { apiRoute, authenticate, customAuthRoute } from '@/lib/api/route';
import { deleteStagePolicyRoute, getStagePolicyRoute, putStagePolicyRoute } from '@/lib/api/contracts/stages';
import { assertCan, type Access } from '@/lib/auth/permissions';
import { hashToken } from '@/lib/auth/tokens';
import { readPathLookup } from '@/lib/db/queries/read-path';
import { groupPolicyDocument } from '@/lib/db/queries/policies';
import { notFound } from '@/lib/errors';
import { removeGroupPolicy, setGroupPolicy } from '@/lib/services/set-group-policy';

export const dynamic = 'force-dynamic';

const json = (text: string, status = 200) => new NextResponse(text, { status, headers: { 'content-type': 'application/json' } });

/**
 * The caller of the node read path. A bearer token (nodes) is resolved in the same single query that
 * reads the stage grant and the stored document; anything else (a session, a Chef signature) takes
 * the general authentication, and the document is read after the permission check.
 */
async function readPathCaller(req: Request, params: () => Promise<Record<string, string>>): Promise<{ access: Access; document?: string | null } | null> {
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.get('authorization') ?? '');
  if (!bearer) {
    const access = await authenticate(req);
    return access && { access };
  }
  const { group, name } = await params();
  const { access, document } = await readPathLookup(hashToken(bearer[1]), group, name);
  return access && { access, document };
}

/** The node read path: serves the stored bytes, no parsing or re-serialising. */
export const GET = customAuthRoute(getStagePolicyRoute, readPathCaller, async (_req, { caller, params }) => {
  // Unknown stage and refused stage look alike to a reader without view rights (403 before any 404).
  assertCan(caller.access, 'stage.view', { stage: params.group });
  if (caller.document === undefined) return json(await groupPolicyDocument(params.group, params.name));
  if (caller.document === null) throw notFound(`Cannot load policy ${params.name} in policy group ${params.group}`);
  return json(caller.document);
});

/** PUT a lock (?override_reason= overrides a freeze window, manage on the stage). Into a protected stage: 202 { request } and the pointer does not move. */
export const PUT = apiRoute(putStagePolicyRoute, async (_req, { access, params, query, text, requestId }) => {
  const result = await setGroupPolicy(access, { group: params.group, policy: params.name, text, ownerTeam: query.owner_team, requestId, freezeOverrideReason: query.override_reason });
  if (result.request) return NextResponse.json({ request: result.request }, { status: 202 });
  return json(result.document, result.status);
});

export const DELETE = apiRoute(deleteStagePolicyRoute, async (_req, { access, params, query, requestId }) => {
  const result = await removeGroupPolicy(access, { group: params.group, policy: params.name, requestId, freezeOverrideReason: query.override_reason });
  if (result.request) return NextResponse.json({ request: result.request }, { status: 202 });
  return json(result.document);
});
