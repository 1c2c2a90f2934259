import { db } from '../client';

export function findUserForLogin(email: string) {
  return db().user.findUnique({
    where: { email },
    select: { id: true, email: true, name: true, passwordHash: true, active: true },
  });
}
