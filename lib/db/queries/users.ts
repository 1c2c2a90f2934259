import { db } from '../client';

export function findUserForLogin(email: string) {
  return db().user.findUnique({
    where: { email },
    select: { id: true, email: true, name: true, passwordHash: true, active: true, sessionVersion: true, isAdmin: true, origin: true },
  });
}

/** Ends one browser session (sign-out); the row lives until the session would have expired anyway. */
export async function revokeSession(sid: string, userId: string, expiresAt: Date, now = new Date()): Promise<void> {
  await db().$transaction([
    db().revokedSession.deleteMany({ where: { expiresAt: { lt: now } } }),
    db().revokedSession.upsert({ where: { sid }, create: { sid, userId, expiresAt }, update: {} }),
  ]);
}

export async function isSessionRevoked(sid: string): Promise<boolean> {
  return !!(await db().revokedSession.findUnique({ where: { sid }, select: { sid: true } }));
}

/** Issue 45: what the per-request check of a person signed in through the provider reads (null: no linked identity). */
export function oidcIdentityState(userId: string) {
  return db().oidcIdentity.findUnique({ where: { userId }, select: { status: true, syncedAt: true, refreshingUntil: true, lastSignInAt: true } });
}

/** Issue 45: the linked identity shown on the account page and in Admin → Users. */
export function linkedIdentity(userId: string) {
  return db().oidcIdentity.findUnique({ where: { userId }, select: { issuer: true, subject: true, linkedBy: true, email: true, groups: true, status: true, syncedAt: true, lastSignInAt: true, createdAt: true } });
}
