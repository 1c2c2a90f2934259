/**
 * Who is asking, for every door (docs/architecture.md 6.1): a Chef signature, a console API token or the browser
 * session, tried in that order and each only when the door accepts it. A credential presented decides: a bad
 * signature is not retried as a token, nor a bad token as a session. Nothing presented answers `status: 0`; the
 * door words its own 401.
 */
import type { Actor } from '@/lib/auth/permissions';
import type { SignProtocol, STREAMED_BODY } from '@/lib/auth/chef-signing';
import { authenticateBearer } from './bearer';
import { authenticateSigned } from './chef-signature';
import { sessionAccess } from './session-cookie';

export interface Credentials {
  method: string;
  /** The path as sent, without the query: what Chef signs. */
  path: string;
  header(name: string): string | null | undefined;
  /** The body as the envelope read it (signatures hash it); STREAMED_BODY: a cookbook file upload, checked as it streams (issue 46). */
  body: Uint8Array | string | typeof STREAMED_BODY;
}

export type Accepts = readonly ('signature' | 'bearer' | 'session')[];

export type Authentication =
  /** actor.via: 'session' | 'token' | 'chef-key:<name>/<key>'; `protocol`: how (a signed upload's body is checked against its content hash). */
  | { ok: true; actor: Actor; protocol: SignProtocol | 'bearer' | 'session' }
  | { ok: false; status: 400 | 401; message: string }
  /** Nothing presented. */
  | { ok: false; status: 0 };

/** `org`: whose membership (users) and whose clients (signatures) the actor is loaded for. */
export async function authenticate(req: Credentials, org: { id: string }, accepts: Accepts): Promise<Authentication> {
  if (accepts.includes('signature')) {
    const signed = await authenticateSigned(req, new Date(), org.id);
    if (signed.ok || signed.status !== 0) return signed;
  }
  // A present Authorization header decides (even empty: it is no session).
  if (accepts.includes('bearer') && req.header('authorization') != null) return authenticateBearer(req, org.id);
  if (accepts.includes('session')) {
    const access = await sessionAccess(req.header('cookie'));
    if (access) return { ok: true, actor: access, protocol: 'session' };
  }
  return { ok: false, status: 0 };
}
