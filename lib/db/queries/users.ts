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

/** Issue 45: every linked identity, for Admin → Users. */
export async function linkedIdentities() {
  const rows = await db().oidcIdentity.findMany({ orderBy: { createdAt: 'asc' }, select: { subject: true, linkedBy: true, status: true, lastSignInAt: true, user: { select: { email: true } } } });
  return rows.map((r) => ({ email: r.user.email, subject: r.subject, linkedBy: r.linkedBy, status: r.status, lastSignInAt: r.lastSignInAt?.toISOString() ?? null })).sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0));
}

/** Issue 45, the account page: the teams a person is in, and which of them follow identity-provider groups. */
export async function accountTeams(userId: string) {
  const rows = await db().teamMember.findMany({ where: { userId }, select: { team: { select: { name: true, idpGroups: { select: { group: true } } } } } });
  return rows.map((r) => ({ name: r.team.name, groups: r.team.idpGroups.map((g) => g.group).sort() })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
