import type { Tx } from '@/lib/db/client';
import { can, type Access } from '@/lib/auth/permissions';
import { notFound } from '@/lib/errors';

/** The one answer for a stage that is missing or that the caller may not view: the two must not be told apart (issue 17, item 21). */
export const stageNotFound = (name: string) => notFound(`Cannot find policy group '${name}'`);

/** A stage by name; with `access`, a stage the caller may not view is reported exactly as a missing one. */
export async function requireGroup(tx: Tx, name: string, access?: Access) {
  const group = await tx.policyGroup.findUnique({ where: { name }, select: { id: true, name: true, position: true } });
  if (!group || (access && !can(access, 'stage.view', { stage: group.name }))) throw stageNotFound(name);
  return group;
}

export async function requirePolicy(tx: Tx, name: string) {
  const policy = await tx.policy.findUnique({ where: { name }, select: { id: true, name: true, ownerTeamId: true } });
  if (!policy) throw notFound(`Cannot find policy '${name}'`);
  return policy;
}

/** The active revision of a policy in a group, or null. */
export async function activePointer(tx: Tx, groupId: string, policyId: string) {
  return tx.groupPolicy.findUnique({
    where: { groupId_policyId: { groupId, policyId } },
    select: { id: true, revisionPk: true, revision: { select: { revisionId: true, document: true } } },
  });
}

/** The position after the last stage: new stages go to the end of the promotion order. */
export async function nextStagePosition(tx: Tx): Promise<number> {
  return ((await tx.policyGroup.aggregate({ _max: { position: true } }))._max.position ?? -1) + 1;
}
