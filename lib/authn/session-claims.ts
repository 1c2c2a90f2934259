import type { Access } from '@/lib/auth/permissions';
import { loadAccess } from '@/lib/db/queries/access';
import { isSessionRevoked } from '@/lib/db/queries/users';

/** What a browser session token carries: the user, the session's own id, and the user's session version at sign-in. */
export interface SessionClaims {
  id?: string;
  sid?: unknown;
  sv?: unknown;
}

/**
 * A browser session's access (issue 17, item 7): the user named in the
 * session token, only while that session was not signed out (its `sid`) and
 * the user's session version is still the one it started with (a password
 * change, deactivation or "sign out everywhere" bumps it). Tokens without
 * these (issued before they existed) are void: fail closed, sign in again.
 */
export async function accessForSessionClaims(claims: SessionClaims | null | undefined): Promise<Access | null> {
  if (!claims?.id || typeof claims.sv !== 'number' || typeof claims.sid !== 'string') return null;
  const [access, revoked] = await Promise.all([loadAccess(claims.id, undefined, { sessionVersion: claims.sv }), isSessionRevoked(claims.sid)]);
  return revoked ? null : access;
}
