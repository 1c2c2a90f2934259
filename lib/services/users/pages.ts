import { canForEveryUser, type Access } from '@/lib/auth/permissions';
import { db } from '@/lib/db/client';
import { sortedBy } from '@/lib/db/order';
import { HOME_ORG_ID } from '@/lib/domain/organizations';

export async function usersForAdmin() {
  const users = await db().user.findMany({
    orderBy: { email: 'asc' },
    select: {
      id: true,
      email: true,
      name: true,
      isAdmin: true,
      active: true,
      createdAt: true,
      memberships: { select: { team: { select: { name: true } } } },
      // Issue 23: membership of the home organization.
      orgMemberships: { where: { orgId: HOME_ORG_ID }, select: { userId: true } },
      // Issue 23 (step 3): a stored member of the home organization's `admins` group (Chef's org admins).
      chefGroups: { where: { group: { orgId: HOME_ORG_ID, name: 'admins' } }, select: { groupId: true } },
    },
  }).then(sortedBy((u) => u.email));
  return users.map((u) => ({ id: u.id, email: u.email, name: u.name, isAdmin: u.isAdmin, active: u.active, member: u.orgMemberships.length > 0, orgAdmin: u.chefGroups.length > 0, createdAt: u.createdAt.toISOString(), teams: u.memberships.map((m) => m.team.name).sort() }));
}

export async function teamsForAdmin() {
  const [teams, users] = await Promise.all([
    db().team.findMany({ orderBy: { name: 'asc' }, select: { name: true, description: true, members: { select: { user: { select: { email: true } } } }, policies: { select: { name: true } }, idpGroups: { select: { group: true } } } }).then(sortedBy((t) => t.name)),
    db().user.findMany({ where: { active: true }, orderBy: { email: 'asc' }, select: { email: true } }).then(sortedBy((u) => u.email)),
  ]);
  return {
    teams: teams.map((t) => ({ name: t.name, description: t.description, members: t.members.map((m) => m.user.email).sort(), policies: t.policies.map((p) => p.name).sort(), idpGroups: t.idpGroups.map((g) => g.group).sort() })),
    emails: users.map((u) => u.email),
  };
}

/**
 * Tokens the viewer may see: those `token.manage` lets them create and revoke (their own; everyone's for
 * administrators), and whether that is everyone's (`forEveryUser`: the page then names owners and offers a token for
 * another user). Secrets are never returned.
 */
export async function tokensFor(access: Access) {
  const forEveryUser = canForEveryUser(access, 'token.manage');
  const rows = await db().apiToken.findMany({
    where: forEveryUser ? {} : { userId: access.userId },
    orderBy: { createdAt: 'desc' },
    select: { id: true, name: true, prefix: true, createdAt: true, lastUsedAt: true, expiresAt: true, revokedAt: true, user: { select: { email: true } } },
  });
  const tokens = rows.map((t) => ({
    id: t.id,
    name: t.name,
    prefix: t.prefix,
    owner: t.user.email,
    createdAt: t.createdAt.toISOString(),
    lastUsedAt: t.lastUsedAt?.toISOString() ?? null,
    expiresAt: t.expiresAt?.toISOString() ?? null,
    revokedAt: t.revokedAt?.toISOString() ?? null,
  }));
  return { forEveryUser, tokens };
}
