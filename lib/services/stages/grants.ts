import { assertCan, type Access } from '@/lib/auth/permissions';
import type { SetStageGrantInput } from '@/lib/validation/stages';
import { notFound } from '@/lib/errors';
import { audit, requireGroup, transaction } from '@/lib/services/funnel';

/** The input's one definition (parsed at the caller's edge: the action, the API contract); the rules below need the database. */
export { ZSetStageGrantInput } from '@/lib/validation/stages';
export type { SetStageGrantInput } from '@/lib/validation/stages';

/**
 * Sets (or removes) one user's or team's level on a stage. Needs `manage` on that stage, or admin.
 * Grants of one stage are serialized by locking the stage's row first: the unique key over
 * (stage, user, team) does not stop two identical grants on PostgreSQL, since one of user and team
 * is always NULL and NULLs are distinct there.
 */
export async function setStageGrant(access: Access, input: SetStageGrantInput) {
  return transaction(async (tx) => {
    const group = await requireGroup(tx, input.stage, access);
    assertCan(access, 'stage.manage', { stage: group.name });
    // A no-op UPDATE takes the row lock (portable; SQLite already runs one writer at a time). Whoever waits here
    // reads the grant below only after the first writer committed.
    await tx.policyGroup.update({ where: { id: group.id }, data: { position: { increment: 0 } }, select: { id: true } });
    let where: { groupId: string; userId: string | null; teamId: string | null };
    let label: string;
    if (input.subject.type === 'user') {
      const user = await tx.user.findUnique({ where: { email: input.subject.email }, select: { id: true } });
      if (!user) throw notFound(`No user '${input.subject.email}'`);
      where = { groupId: group.id, userId: user.id, teamId: null };
      label = `user ${input.subject.email}`;
    } else {
      const team = await tx.team.findUnique({ where: { name: input.subject.name }, select: { id: true } });
      if (!team) throw notFound(`No team '${input.subject.name}'`);
      where = { groupId: group.id, userId: null, teamId: team.id };
      label = `team ${input.subject.name}`;
    }
    const existing = await tx.groupPermission.findFirst({ where, select: { id: true, level: true } });
    const before = existing?.level ?? 'none';
    if (before === input.level) return { stage: group.name, subject: label, level: input.level, changed: false };
    if (input.level === 'none') await tx.groupPermission.delete({ where: { id: existing!.id } });
    else if (existing) await tx.groupPermission.update({ where: { id: existing.id }, data: { level: input.level } });
    else await tx.groupPermission.create({ data: { ...where, level: input.level } });
    await audit(tx, access, { action: 'permission.set', targetType: 'permission', target: `${group.name}/${label}`, groupName: group.name, before: { level: before }, after: { level: input.level }, requestId: input.requestId });
    return { stage: group.name, subject: label, level: input.level, changed: true };
  });
}
