import 'server-only';
import { cache } from 'react';
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { noteActor } from '@/lib/ops/request-context';
import { getServerSession } from 'next-auth';
import { authOptions } from './options';
import type { Access } from '@/lib/auth/permissions';
import { accessForSessionClaims, type SessionClaims } from './session-claims';

/**
 * The signed-in user's access, read from the database once per request; null
 * without a valid session. Fails closed: no request scope or a malformed
 * cookie is no session.
 */
export const currentAccess = cache(async (): Promise<Access | null> => {
  let claims: SessionClaims | null = null;
  try {
    const session = await getServerSession(authOptions);
    if (session) claims = { id: (session.user as { id?: string } | undefined)?.id, sid: (session as { sid?: unknown }).sid, sv: (session as { sv?: unknown }).sv, am: (session as { am?: unknown }).am };
  } catch {
    claims = null;
  }
  const loaded = await accessForSessionClaims(claims);
  const access: Access | null = loaded && { ...loaded, via: 'session' };
  if (access) {
    try {
      // For the request log: the signed-in user.
      noteActor(access.userId, 'session', await headers());
    } catch {
      /* outside a request */
    }
  }
  return access;
});

/** For pages: the signed-in user's access, or a redirect to /login. */
export async function requireAccess(): Promise<Access> {
  const access = await currentAccess();
  if (!access) redirect('/login');
  return access;
}

/** Issue 45: how the current browser session was made ('oidc': through the identity provider; else with a password). */
export async function currentSignInMethod(): Promise<'oidc' | 'password' | null> {
  try {
    const session = await getServerSession(authOptions);
    if (!session) return null;
    return (session as { am?: unknown }).am === 'oidc' ? 'oidc' : 'password';
  } catch {
    return null;
  }
}
