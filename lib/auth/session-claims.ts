import type { Access } from './permissions';
import { loadAccess } from '@/lib/db/queries/access';

/**
 * A browser session's access: the user named in the session token, only while
 * the token's session version is still the user's. Tokens without a version
 * (issued before versions existed) are void: fail closed, sign in again.
 */
export async function accessForSessionClaims(claims: { id?: string; sv?: unknown } | null | undefined): Promise<Access | null> {
  if (!claims?.id || typeof claims.sv !== 'number') return null;
  return loadAccess(claims.id, undefined, { sessionVersion: claims.sv });
}
