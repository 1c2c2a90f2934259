import { db } from '../client';

export function findUserForLogin(email: string) {
  return db().user.findUnique({
    where: { email },
    select: { id: true, email: true, name: true, passwordHash: true, active: true, sessionVersion: true },
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
