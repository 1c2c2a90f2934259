import { db, type Tx } from '@/lib/db/client';
import { assertCan, type Access } from '@/lib/auth/permissions';
import { badRequest } from '@/lib/errors';
import { requireGroup, requirePolicy, movePointer } from '@/lib/services/funnel';
import type { RollbackInput } from '@/lib/validation/promotion';

/** The input's one definition (parsed at the caller's edge: the action, the API contract); the rules below need the database. */
export { ZRollbackInput } from '@/lib/validation/promotion';
export type { RollbackInput } from '@/lib/validation/promotion';

/** The revision a rollback returns to: one the stage held before (per its pointer history) and still stored; else a 400. */
export async function rollbackTarget(tx: Tx, group: { name: string }, policy: { id: string; name: string }, toRevisionId: string): Promise<{ id: string }> {
  const held = await tx.pointerHistory.findFirst({ where: { groupName: group.name, policyName: policy.name, toRevisionId }, select: { id: true } });
  const rev = await tx.policyRevision.findUnique({ where: { policyId_revisionId: { policyId: policy.id, revisionId: toRevisionId } }, select: { id: true } });
  if (!held || !rev) {
    throw badRequest(`'${group.name}' never ran revision ${toRevisionId} of '${policy.name}' (or it was deleted); a rollback can only return to a revision the stage held before`, [
      { path: '/toRevisionId', message: 'must be a revision this stage held before' },
    ]);
  }
  return rev;
}

/** Points a stage back at a revision it held before (per its pointer history). */
export async function rollback(access: Access, input: RollbackInput) {
  return db().$transaction(async (tx) => {
    const [group, policy] = await Promise.all([requireGroup(tx, input.group, access), requirePolicy(tx, input.policy)]);
    assertCan(access, 'stage.promote', { stage: group.name });
    const rev = await rollbackTarget(tx, group, policy, input.toRevisionId);
    const moved = await movePointer(tx, access, {
      group,
      policy,
      to: { pk: rev.id, revisionId: input.toRevisionId },
      kind: 'rollback',
      reason: input.reason,
      overrideReason: input.overrideReason,
      freezeOverrideReason: input.freezeOverrideReason,
      verdictOverrideReason: input.verdictOverrideReason,
      expectedRevisionId: input.expectedRevisionId,
      requestId: input.requestId,
      origin: { rollback: true },
    });
    return { policy: policy.name, group: group.name, fromRevisionId: moved.fromRevisionId, toRevisionId: input.toRevisionId, changed: moved.changed, auditId: moved.auditId, ...(moved.request ? { request: moved.request } : {}) };
  });
}
