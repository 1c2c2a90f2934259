/**
 * A Chef signature (X-Ops-* headers, verified as Chef Server does): the key lookup, the verification, the key's
 * last use, the metrics and the request log's actor. Issue 23: the actor is loaded for an organization (`orgId`:
 * the URL's on the Chef routes, the home organization on /api/v1): a client only in its own, a user with their
 * membership of it (`member`). Moved from lib/chef/authn.ts (docs/architecture.md 6.1); the crypto is
 * lib/auth/chef-signing.ts.
 */
import type { Actor } from '@/lib/auth/permissions';
import { accessOf } from '@/lib/db/queries/access';
import { touchChefKey } from '@/lib/db/queries/chef-auth';
import { chefKeysFor, type ChefKeyCandidate } from '@/lib/db/queries/chef-read-path';
import { HOME_ORG_ID } from '@/lib/domain/organizations';
import { hasChefSignature, parseSignedHeaders, verifySignature, type SignProtocol, type STREAMED_BODY } from '@/lib/auth/chef-signing';
import { countChefSigned } from '@/lib/ops/metrics';
import { noteActor } from '@/lib/ops/request-context';

export type SignedResult =
  | { ok: true; actor: Actor; protocol: SignProtocol }
  | { ok: false; status: 400 | 401; message: string }
  | { ok: false; status: 0 };

/** What a signature covers: the method, the path as sent (no query), the signed headers, the body. */
export interface SignedRequest {
  method: string;
  /** The path exactly as the client sent it, without the query string. */
  path: string;
  header(name: string): string | null | undefined;
  /** STREAMED_BODY: a cookbook file upload, checked against its X-Ops-Content-Hash as it streams (issue 46). */
  body: string | Uint8Array | typeof STREAMED_BODY;
}

export function authFailedMessage(user: string): string {
  return `Failed to authenticate as '${user}'. Ensure that your node_name and client key are correct.`;
}

type VerifyResult =
  | { ok: true; key: ChefKeyCandidate; protocol: SignProtocol; userId: string; via: string }
  | { ok: false; status: 400 | 401; message: string }
  | { ok: false; status: 0 };

/** Checks a request's Chef signature against the keys of the actor it names. `status: 0`: no Chef signature at all. */
export async function verifyChefRequest(req: SignedRequest, now = new Date(), orgId: string = HOME_ORG_ID): Promise<VerifyResult> {
  if (!hasChefSignature(req.header)) return { ok: false, status: 0 };
  const sig = parseSignedHeaders(req.header, now);
  if (!sig.ok) return sig;
  const keys = await chefKeysFor(sig.userId, orgId);
  if (!keys.length) {
    countChefSigned(sig.protocol, 'rejected');
    return { ok: false, status: 401, message: authFailedMessage(sig.userId) };
  }
  // Most recently used first: the key that signed the last request most likely signed this one.
  const live = keys.filter((k) => !k.expiresAt || k.expiresAt > now).sort((a, b) => (b.lastUsedAt?.getTime() ?? 0) - (a.lastUsedAt?.getTime() ?? 0));
  const key = live.find((k) => verifySignature(sig, req, k.publicKey));
  if (!key) {
    countChefSigned(sig.protocol, 'rejected');
    return { ok: false, status: 401, message: `Invalid signature for user or client '${sig.userId}'` };
  }
  await touchChefKey(key, now);
  const via = `chef-key:${sig.userId}/${key.keyName}`;
  countChefSigned(sig.protocol, 'ok');
  noteActor((key.userId ?? key.clientId)!, via, req.header);
  return { ok: true, key, protocol: sig.protocol, userId: sig.userId, via };
}

/** Verifies a Chef-signed request and loads who it is. `status: 0` means it carries no Chef signature at all. */
export async function authenticateSigned(req: SignedRequest, now = new Date(), orgId: string = HOME_ORG_ID): Promise<SignedResult> {
  const v = await verifyChefRequest(req, now, orgId);
  if (!v.ok) return v;
  const { key, via } = v;
  if (key.clientId) {
    const name = key.clientName!;
    const { stage, stageIsolation } = key.validator || !key.client ? { stage: null, stageIsolation: false } : key.client;
    const enrollStage = key.client?.enrollStage ?? null;
    return { ok: true, protocol: v.protocol, actor: { kind: 'client', clientId: key.clientId, name, validator: key.validator, via, userId: null, email: `client:${name}`, stage, stageIsolation, enrollStage } };
  }
  const access = accessOf(key.user);
  if (!access) return { ok: false, status: 401, message: authFailedMessage(v.userId) };
  return { ok: true, protocol: v.protocol, actor: { ...access, via } };
}

