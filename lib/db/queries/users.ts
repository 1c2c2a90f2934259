import { db } from '../client';

export function findUserForLogin(email: string) {
  return db().user.findUnique({
    where: { email },
    select: { id: true, email: true, name: true, passwordHash: true, active: true },
  });
}

/** A user's public profile by Chef user name (active users only). */
export function userProfile(chefName: string) {
  return db().user.findFirst({ where: { chefName, active: true }, select: { id: true, chefName: true, name: true, email: true } });
}
