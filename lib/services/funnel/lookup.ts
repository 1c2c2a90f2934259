import type { Tx } from '@/lib/db/client';
import { assertCan, type Access } from '@/lib/auth/permissions';
import { notFound } from '@/lib/errors';

/**
 * A stage by name. With `access`, a caller who may not view a stage of that
 * name is refused before the lookup, so a missing stage and an existing one
 * they cannot see get the same 403 (issue 17, item 21); only callers who may
 * view it (or admins) learn that it is missing.
 */
export async function requireGroup(tx: Tx, name: string, access?: Access) {
  if (access) assertCan(access, 'stage.view', { stage: name });
  const group = await tx.policyGroup.findUnique({ where: { name }, select: { id: true, name: true, position: true } });
  if (!group) throw notFound(`Cannot find policy group '${name}'`);
  return group;
}

export async function requirePolicy(tx: Tx, name: string) {
  const policy = await tx.policy.findUnique({ where: { name }, select: { id: true, name: true, ownerTeamId: true } });
  if (!policy) throw notFound(`Cannot find policy '${name}'`);
  return policy;
}

/** The position after the last stage: new stages go to the end of the promotion order. */
export async function nextStagePosition(tx: Tx): Promise<number> {
  return ((await tx.policyGroup.aggregate({ _max: { position: true } }))._max.position ?? -1) + 1;
}
