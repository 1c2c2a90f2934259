import type { Access } from '@/lib/auth/permissions';
import { loadAccess } from '@/lib/db/queries/access';
import { isSessionRevoked } from '@/lib/db/queries/users';
import { confirmIdentity } from './oidc-refresh';

/** What a browser session token carries: the user, the session's own id, and the user's session version at sign-in. */
export interface SessionClaims {
  id?: string;
  sid?: unknown;
  sv?: unknown;
  /** How the session was made (issue 45): 'oidc' sessions stand only while the provider confirms the person. */
  am?: unknown;
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
  const [access, revoked] = await Promise.all([loadAccess(claims.id, { sessionVersion: claims.sv }), isSessionRevoked(claims.sid)]);
  if (revoked || !access) return null;
  // Issue 45: a session made through the identity provider lasts while the provider confirms the person (each
  // OIDC_REFRESH_SECONDS); removed there, or from every mapped group, it ends at the next request after that.
  if (claims.am === 'oidc') {
    const confirmed = await confirmIdentity(access.userId);
    if (!confirmed.ok || !confirmed.identity) return null;
    // Memberships may have followed the groups just now: read the access they give.
    return confirmed.refreshed ? loadAccess(claims.id, { sessionVersion: claims.sv }) : access;
  }
  return access;
}
