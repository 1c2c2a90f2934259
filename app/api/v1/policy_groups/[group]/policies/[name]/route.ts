import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { deleteStagePolicyRoute, getStagePolicyRoute, putStagePolicyRoute } from '@/lib/api/contracts/stages';
import { assertViewable } from '@/lib/auth/permissions';
import { groupPolicyBytes } from '@/lib/db/queries/policies';
import { removeGroupPolicy, setGroupPolicy } from '@/lib/services/stages';

export const dynamic = 'force-dynamic';

const json = (text: string, status = 200) => new NextResponse(text, { status, headers: { 'content-type': 'application/json' } });

/** The node read path: serves the stored bytes, no parsing or re-serialising. */
export const GET = apiRoute(getStagePolicyRoute, async (_req, { access, params }) => {
  // A stage hidden from the reader answers as a missing one (404, as on the Chef door).
  assertViewable(access, params.group, `Cannot load policy ${params.name} in policy group ${params.group}`);
  const bytes = await groupPolicyBytes(params.group, params.name);
  return new NextResponse(new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.length), { headers: { 'content-type': 'application/json' } });
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
