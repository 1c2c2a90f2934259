import type { Access } from '@/lib/auth/permissions';
import { can } from '@/lib/auth/permissions';
import { db } from '@/lib/db/client';
import { sortedBy } from '@/lib/db/order';

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

