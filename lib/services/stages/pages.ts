import type { Access } from '@/lib/auth/permissions';
import { can, canForEveryUser } from '@/lib/auth/permissions';
import { HOME_ORG_ID } from '@/lib/domain/organizations';
import { db } from '../client';
import { sortedBy } from '../order';

/**
 * The permissions matrix: stages × teams and users, with each grant's level.
 * Only the stages the viewer may manage (`stage.manage`: administrators every
 * one) and those stages' grants, and nothing at all for those who manage none
 * (issue 17, item 5).
 */
export async function permissionsMatrix(access: Access) {
  const all = await permissionsMatrixAll(access);
  const shown = new Set(all.stages.filter((s) => s.canManage).map((s) => s.name));
  if (!shown.size) return { stages: [], subjects: [], levels: {} };
  return {
    stages: all.stages.filter((s) => shown.has(s.name)),
    subjects: all.subjects,
    levels: Object.fromEntries(Object.entries(all.levels).filter(([k]) => shown.has(k.slice(k.lastIndexOf('|') + 1)))),
  };
}

async function permissionsMatrixAll(access: Access) {
  const [stages, teams, users, grants] = await Promise.all([
    db().policyGroup.findMany({ orderBy: [{ position: 'asc' }, { name: 'asc' }], select: { id: true, name: true } }),
    db().team.findMany({ orderBy: { name: 'asc' }, select: { id: true, name: true, _count: { select: { members: true } } } }).then(sortedBy((t) => t.name)),
    db().user.findMany({ orderBy: { email: 'asc' }, select: { id: true, email: true, name: true, isAdmin: true, active: true } }).then(sortedBy((u) => u.email)),
    db().groupPermission.findMany({ select: { groupId: true, userId: true, teamId: true, level: true } }),
  ]);
  const stageName = new Map(stages.map((s) => [s.id, s.name]));
  const levels: Record<string, string> = {};
  for (const g of grants) levels[`${g.userId ? 'user:' + g.userId : 'team:' + g.teamId}|${stageName.get(g.groupId)}`] = g.level;
  return {
    stages: stages.map((s) => ({ name: s.name, canManage: can(access, 'stage.manage', { stage: s.name }) })),
    subjects: [
      ...teams.map((t) => ({ key: `team:${t.id}`, type: 'team' as const, id: t.name, label: t.name, note: `${t._count.members} member${t._count.members === 1 ? '' : 's'}` })),
      ...users.map((u) => ({ key: `user:${u.id}`, type: 'user' as const, id: u.email, label: u.email, note: u.isAdmin ? 'admin: every permission' : u.active ? u.name : 'deactivated' })),
    ],
    levels,
  };
}

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

/** Stages with their counts, for the admin Stages tab. */
export async function stagesForAdmin(access: Access) {
  const stages = await db().policyGroup.findMany({
    orderBy: [{ position: 'asc' }, { name: 'asc' }],
    select: { name: true, position: true, description: true, requireArtifacts: true, _count: { select: { policies: true, nodes: true } } },
  });
  return {
    canCreate: can(access, 'stage.create'),
    stages: stages
      .filter((s) => can(access, 'stage.view', { stage: s.name }))
      .map((s) => ({ name: s.name, position: s.position, description: s.description, requireArtifacts: s.requireArtifacts, policies: s._count.policies, nodes: s._count.nodes, canManage: can(access, 'stage.manage', { stage: s.name }) })),
  };
}

/** Issue 23 (step 4): the users stored in an organization's `admins` group (Chef's org admins), for Admin → Organizations. */
export async function orgAdminUserIds(orgId: string): Promise<string[]> {
  const rows = await db().chefGroupMember.findMany({ where: { group: { orgId, name: 'admins' }, userId: { not: null } }, select: { userId: true } });
  return rows.map((r) => r.userId!);
}
