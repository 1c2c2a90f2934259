/**
 * Authenticates a request on either HTTP surface: a Chef signature
 * (X-Ops-* headers, verified as Chef Server does) or a console API token.
 * Returns who is asking, or Chef's refusal (status and message). Issue 23:
 * the actor is loaded for an organization (`orgId`: the URL's on the Chef
 * routes, the home organization on /api/v1): a client only in its own, a
 * user with their membership of it (`member`).
 */
import type { Actor } from '@/lib/auth/permissions';
import { hashToken } from '@/lib/auth/tokens';
import { confirmationRefusal, confirmIdentity } from '@/lib/authn/oidc-refresh';
import { accessOf } from '@/lib/db/queries/access';
import { touchChefKey } from '@/lib/db/queries/chef-auth';
import { chefKeysFor, type ChefKeyCandidate } from '@/lib/db/queries/chef-read-path';
import { tokenUser } from '@/lib/db/queries/tokens';
import { HOME_ORG_ID } from '@/lib/domain/organizations';
import { hasChefSignature, parseSignedHeaders, verifySignature, type SignProtocol } from './signing';
import { countChefSigned } from '@/lib/ops/metrics';
import { noteActor } from '@/lib/ops/request-context';

export type AuthResult =
  | { ok: true; actor: Actor; protocol: SignProtocol | 'bearer' }
  | { ok: false; status: 400 | 401; message: string }
  | { ok: false; status: 0 };

export interface AuthRequest {
  method: string;
  /** The path exactly as the client sent it, without the query string. */
  path: string;
  header(name: string): string | null | undefined;
  body: string | Uint8Array;
}

export function authFailedMessage(user: string): string {
  return `Failed to authenticate as '${user}'. Ensure that your node_name and client key are correct.`;
}

export type VerifyResult =
  | { ok: true; key: ChefKeyCandidate; protocol: SignProtocol; userId: string; via: string }
  | { ok: false; status: 400 | 401; message: string }
  | { ok: false; status: 0 };

/** Checks a request's Chef signature against the keys of the actor it names. `status: 0`: no Chef signature at all. */
export async function verifyChefRequest(req: AuthRequest, now = new Date(), orgId: string = HOME_ORG_ID): Promise<VerifyResult> {
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
export async function authenticateSigned(req: AuthRequest, now = new Date(), orgId: string = HOME_ORG_ID): Promise<AuthResult> {
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

/** A console API token ("Authorization: Bearer …"); `status: 0` when there is none. */
export async function authenticateBearer(req: AuthRequest, orgId: string = HOME_ORG_ID): Promise<AuthResult> {
  const header = req.header('authorization');
  if (!header) return { ok: false, status: 0 };
  const m = /^Bearer\s+(\S+)$/i.exec(header);
  let access = m ? accessOf(await tokenUser(hashToken(m[1]), new Date(), orgId)) : null;
  if (!access) return { ok: false, status: 401, message: 'Authentication required: the API token is unknown, revoked or expired.' };
  // Issue 45: the tokens of a person who signed in through the identity provider work while the provider confirms them.
  const confirmed = await confirmIdentity(access.userId);
  if (!confirmed.ok) return { ok: false, status: 401, message: confirmationRefusal(confirmed.reason) };
  if (confirmed.refreshed) access = accessOf(await tokenUser(hashToken(m![1]), new Date(), orgId));
  if (!access) return { ok: false, status: 401, message: 'Authentication required: the API token is unknown, revoked or expired.' };
  noteActor(access.userId, 'token', req.header);
  return { ok: true, protocol: 'bearer', actor: { ...access, via: 'token' } };
}

/** Chef signature first, then a bearer token. */
export async function authenticateRequest(req: AuthRequest, now = new Date(), orgId: string = HOME_ORG_ID): Promise<AuthResult> {
  const signed = await authenticateSigned(req, now, orgId);
  if (signed.ok || signed.status !== 0) return signed;
  return authenticateBearer(req, orgId);
}
