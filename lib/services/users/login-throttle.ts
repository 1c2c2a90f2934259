import { db } from '@/lib/db/client';
import { audit, transaction } from '@/lib/services/funnel';

/**
 * Sign-in rate limit (issue 17, item 6), kept in the database so every
 * instance on it shares the count. Two keys per attempt: the account (stops
 * guessing one password from many addresses) and the client address (stops
 * trying many accounts from one place). After `free` failures a key is locked
 * for a time that doubles with each further failure, up to `maxLockMs`; while
 * locked, no password is checked at all, so the right one does not help a
 * guesser. Failures older than `windowMs` are forgotten.
 */

export interface ThrottlePolicy {
  free: number;
  baseLockMs: number;
  maxLockMs: number;
  windowMs: number;
}

const envInt = (name: string, fallback: number) => {
  const n = Number(process.env[name]);
  return Number.isInteger(n) && n >= 0 ? n : fallback;
};

export function throttlePolicies(): { account: ThrottlePolicy; ip: ThrottlePolicy } {
  const baseLockMs = envInt('LOGIN_LOCK_BASE_MS', 30_000);
  const maxLockMs = envInt('LOGIN_LOCK_MAX_MS', 15 * 60_000);
  const windowMs = envInt('LOGIN_FAILURE_WINDOW_MS', 15 * 60_000);
  return {
    account: { free: envInt('LOGIN_MAX_FAILURES_ACCOUNT', 5), baseLockMs, maxLockMs, windowMs },
    ip: { free: envInt('LOGIN_MAX_FAILURES_IP', 20), baseLockMs, maxLockMs, windowMs },
  };
}

export const accountKey = (email: string) => `account:${email.trim().toLowerCase().slice(0, 320)}`;
export const ipKey = (ip: string) => `ip:${ip.slice(0, 64)}`;

/** The latest time any of the keys is locked until, or null when a sign-in may be tried now. */
export async function lockedUntil(keys: string[], now = new Date()): Promise<Date | null> {
  const rows = await db().loginThrottle.findMany({ where: { key: { in: keys }, lockedUntil: { gt: now } }, select: { lockedUntil: true } });
  const until = rows.map((r) => r.lockedUntil!.getTime());
  return until.length ? new Date(Math.max(...until)) : null;
}

function lockFor(p: ThrottlePolicy, failures: number): number {
  if (failures < p.free) return 0;
  return Math.min(p.maxLockMs, p.baseLockMs * 2 ** Math.min(20, failures - p.free));
}

/** Counts a failed sign-in against each key; locks (and audits the lockout) when a key passes its allowance. Returns the lock end, if any. */
export async function recordLoginFailure(keys: { key: string; policy: ThrottlePolicy }[], email: string, now = new Date()): Promise<Date | null> {
  return transaction(async (tx) => {
    let latest = null as Date | null;
    for (const { key, policy } of keys) {
      // Lock the key's row first (a no-op UPDATE), so two instances counting failures at once do not both
      // read the same count and lose one; a row created by both at once is a unique conflict, and the
      // transaction runs again (transaction()).
      await tx.loginThrottle.updateMany({ where: { key }, data: { failures: { increment: 0 } } });
      const row = await tx.loginThrottle.findUnique({ where: { key } });
      const stale = !row || now.getTime() - row.lastFailure.getTime() > policy.windowMs + (row.lockedUntil ? Math.max(0, row.lockedUntil.getTime() - row.lastFailure.getTime()) : 0);
      const failures = (stale ? 0 : row!.failures) + 1;
      const ms = lockFor(policy, failures);
      const until = ms ? new Date(now.getTime() + ms) : null;
      await tx.loginThrottle.upsert({ where: { key }, create: { key, failures, lastFailure: now, lockedUntil: until }, update: { failures, lastFailure: now, lockedUntil: until } });
      if (until) {
        latest = !latest || until > latest ? until : latest;
        await audit(tx, { kind: 'system', userId: null, email: 'system' }, { action: 'login.lockout', targetType: 'login', target: key, after: { failures, lockedUntil: until.toISOString(), attemptedEmail: email.slice(0, 320) } });
      }
    }
    return latest;
  });
}

/** A successful sign-in clears the account's count (the address's count decays on its own). */
export async function recordLoginSuccess(email: string): Promise<void> {
  await db().loginThrottle.deleteMany({ where: { key: accountKey(email) } });
}
