import { NextResponse } from 'next/server';
import { apiRoute, errorResponse, readBody } from '@/lib/api/route';
import { assertCan, can, refusal } from '@/lib/auth/permissions';
import { hashToken } from '@/lib/auth/tokens';
import { readPathLookup } from '@/lib/db/queries/read-path';
import { groupPolicyDocument } from '@/lib/db/queries/policies';
import { removeGroupPolicy, setGroupPolicy } from '@/lib/services/set-group-policy';

export const dynamic = 'force-dynamic';

const json = (text: string, status = 200) => new NextResponse(text, { status, headers: { 'content-type': 'application/json' } });

const sessionGet = apiRoute(async (_req, { access, params }) => {
  assertCan(access, 'stage.view', { stage: params.group });
  return json(await groupPolicyDocument(params.group, params.name));
});

/**
 * The node read path: serves the stored bytes, no parsing or re-serialising.
 * Bearer-token calls (nodes) take a one-query path; browser sessions the general one.
 */
export async function GET(req: Request, ctx: { params: Promise<Record<string, string>> }) {
  const m = /^Bearer\s+(\S+)$/i.exec(req.headers.get('authorization') ?? '');
  if (!m) return sessionGet(req, ctx);
  try {
    const raw = await ctx.params;
    const group = decodeURIComponent(raw.group);
    const policy = decodeURIComponent(raw.name);
    const { access, document } = await readPathLookup(hashToken(m[1]), group, policy);
    if (!access) return errorResponse(401, 'Authentication required: send a valid API token as "Authorization: Bearer <token>", or sign in.');
    if (!can(access, 'stage.view', { stage: group })) {
      // Unknown stage and refused stage look alike to a reader without view rights.
      return errorResponse(403, refusal('stage.view', { stage: group }));
    }
    if (document === null) return errorResponse(404, `Cannot load policy ${policy} in policy group ${group}`);
    return json(document);
  } catch (e) {
    console.error('[api] node read path failed', e);
    return errorResponse(500, 'Internal error.');
  }
}

/** PUT a lock (?override_reason= overrides a freeze window, manage on the stage). Into a protected stage: 202 { request } and the pointer does not move. */
export const PUT = apiRoute(async (req, { access, params, requestId }) => {
  const text = await readBody(req);
  const override = new URL(req.url).searchParams.get('override_reason') || undefined;
  const result = await setGroupPolicy(access, { group: params.group, policy: params.name, text, requestId, freezeOverrideReason: override });
  if (result.request) return NextResponse.json({ request: result.request }, { status: 202 });
  return json(result.document, result.status);
});

export const DELETE = apiRoute(async (req, { access, params, requestId }) => {
  const override = new URL(req.url).searchParams.get('override_reason') || undefined;
  const result = await removeGroupPolicy(access, { group: params.group, policy: params.name, requestId, freezeOverrideReason: override });
  if (result.request) return NextResponse.json({ request: result.request }, { status: 202 });
  return json(result.document);
});
