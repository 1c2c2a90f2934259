import { z } from 'zod';
import { verifyPassword } from '@/lib/auth/password';
import { findUserForLogin } from '@/lib/db/queries/users';
import { isBreakGlass } from '@/lib/domain/sso';
import { localLogin } from './oidc-config';
import { accountKey, ipKey, lockedUntil, recordLoginFailure, recordLoginSuccess, throttlePolicies } from '@/lib/services/users';

const ZCredentials = z.object({ email: z.string().trim().toLowerCase().email(), password: z.string().min(1).max(1024) });

/** Prefix of the error next-auth hands back to the login form when sign-in is locked; the rest is the ISO time to retry at. */
export const LOCKED_PREFIX = 'locked:';

export interface SignedInUser {
  id: string;
  email: string;
  name: string;
  sessionVersion: number;
}

/**
 * The client address for rate limiting, or null when it cannot be known.
 * Next's route handlers do not expose the socket address, and forwarding
 * headers are written by whoever sends the request, so they are believed only
 * behind a proxy the admin declared (TRUST_PROXY=true, the proxy overwriting
 * X-Forwarded-For / X-Real-IP). Without one there is no per-address limit
 * (one shared bucket would let anyone lock everybody out); the per-account
 * limit still applies.
 */
export function clientAddress(headers: Record<string, string | string[] | undefined> | undefined): string | null {
  if (process.env.TRUST_PROXY !== 'true') return null;
  const h = (k: string) => {
    const v = headers?.[k];
    return (Array.isArray(v) ? v[0] : v) ?? '';
  };
  return h('x-forwarded-for').split(',')[0].trim() || h('x-real-ip').trim() || null;
}

/** The error next-auth hands back to the login form for a deactivated account with the right password. */
export const DEACTIVATED = 'deactivated';
/** Issue 45: password sign-in is off (LOCAL_LOGIN=false), or only for break-glass administrators (LOCAL_LOGIN=admins). */
export const LOCAL_LOGIN_OFF = 'local-login-off';
export const LOCAL_LOGIN_ADMINS = 'local-login-admins';

/** Thrown to next-auth when sign-in is locked; the message reaches the form as `error`. */
export class LoginLockedError extends Error {
  constructor(readonly until: Date) {
    super(`${LOCKED_PREFIX}${until.toISOString()}`);
  }
}

/**
 * Checks email and password, with the rate limit around it: a locked account
 * or address is refused before any password is verified; a failure is
 * counted; a success clears the account's count.
 */
export async function authorizeCredentials(raw: unknown, headers?: Record<string, string | string[] | undefined>): Promise<SignedInUser | null> {
  // Issue 45: LOCAL_LOGIN=false refuses every password, before any is looked at.
  const mode = localLogin();
  if (mode === 'false') throw new Error(LOCAL_LOGIN_OFF);
  const parsed = ZCredentials.safeParse(raw);
  if (!parsed.success) return null;
  const { email, password } = parsed.data;
  const policies = throttlePolicies();
  const ip = clientAddress(headers);
  const keys = [{ key: accountKey(email), policy: policies.account }, ...(ip ? [{ key: ipKey(ip), policy: policies.ip }] : [])];
  const locked = await lockedUntil(keys.map((k) => k.key));
  if (locked) throw new LoginLockedError(locked);
  const user = await findUserForLogin(email);
  // Verify even for unknown users so timing does not reveal which emails exist.
  const ok = await verifyPassword(user?.passwordHash ?? DUMMY_HASH, password);
  // The right password for a deactivated account says so (only then: a wrong guess learns nothing about the account).
  if (user && ok && !user.active) throw new Error(DEACTIVATED);
  if (!user || !user.active || !ok) {
    const until = await recordLoginFailure(keys, email);
    if (until) throw new LoginLockedError(until);
    return null;
  }
  // LOCAL_LOGIN=admins: the right password of anyone but the break-glass administrator (npm run admin:create) is refused.
  if (mode === 'admins' && !isBreakGlass(user)) throw new Error(LOCAL_LOGIN_ADMINS);
  await recordLoginSuccess(email);
  return { id: user.id, email: user.email, name: user.name, sessionVersion: user.sessionVersion };
}

const DUMMY_HASH = '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$0s4N9o6hXEjW4kGVF0tBYaVgDmk1d2kH1y3c4M3xQ0Q';
