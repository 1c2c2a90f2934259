import { db } from '../client';

export function findUserForLogin(email: string) {
  return db().user.findUnique({
    where: { email },
    select: { id: true, email: true, name: true, passwordHash: true, active: true, sessionVersion: true },
  });
}

/** Ends every session of a user (sign-out, password change, "sign out everywhere"): sessions carry the version they started with. */
export async function bumpSessionVersion(userId: string, expected?: number): Promise<void> {
  await db().user.updateMany({ where: { id: userId, ...(expected === undefined ? {} : { sessionVersion: expected }) }, data: { sessionVersion: { increment: 1 } } });
}
