import { assertCan, can, type Access } from '@/lib/auth/permissions';
import type { MoveStageInput, PutStageInput } from '@/lib/validation/stages';
import { conflict, notFound } from '@/lib/errors';
import { audit, nextStagePosition, movePointer, transaction } from '@/lib/services/funnel';

/** The inputs' one definition (parsed at the caller's edge: actions, the API contract, the import); the rules below need the database. */
export { ZMoveStageInput, ZPutStageInput } from '@/lib/validation/stages';

/** PUT /policy_groups/:group — creates a stage (admin) or updates its position, description and settings (manage; issue 41: open enrollment). */
export async function putStage(access: Access, input: PutStageInput, requestId?: string): Promise<{ status: 200 | 201; name: string }> {
  return transaction(async (tx) => {
    const existing = await tx.policyGroup.findUnique({ where: { name: input.name }, select: { id: true, position: true, description: true, requireArtifacts: true, openEnrollment: true } });
    // Issue 41: a stage the caller may not view is answered as a missing one (the creation's refusal), no oracle.
    if (!existing || !can(access, 'stage.view', { stage: input.name })) {
      assertCan(access, 'stage.create');
      const position = input.position ?? (await nextStagePosition(tx));
      const created = await tx.policyGroup.create({ data: { name: input.name, position, description: input.description ?? '', requireArtifacts: input.require_artifacts ?? false, openEnrollment: input.open_enrollment ?? false } });
      await audit(tx, access, { action: 'stage.create', targetType: 'stage', target: input.name, groupName: input.name, after: { position, description: created.description, require_artifacts: created.requireArtifacts, open_enrollment: created.openEnrollment }, requestId });
      return { status: 201, name: input.name };
    }
    assertCan(access, 'stage.manage', { stage: input.name });
    const data = {
      position: input.position ?? existing.position,
      description: input.description ?? existing.description,
      requireArtifacts: input.require_artifacts ?? existing.requireArtifacts,
      openEnrollment: input.open_enrollment ?? existing.openEnrollment,
    };
    await tx.policyGroup.update({ where: { id: existing.id }, data });
    await audit(tx, access, {
      action: 'stage.update',
      targetType: 'stage',
      target: input.name,
      groupName: input.name,
      before: { position: existing.position, description: existing.description, requireArtifacts: existing.requireArtifacts, openEnrollment: existing.openEnrollment },
      after: data,
      requestId,
    });
    return { status: 200, name: input.name };
  });
}

/**
 * Moves a stage one place earlier or later in promotion order: both positions
 * change in one transaction with one audit event (`stage.move`), so a reorder
 * is one write, one toast, one entry. Needs `manage` on both stages.
 */
export async function moveStage(access: Access, input: MoveStageInput, requestId?: string): Promise<{ name: string; order: string[] }> {
  return transaction(async (tx) => {
    const stages = await tx.policyGroup.findMany({ orderBy: [{ position: 'asc' }, { name: 'asc' }], select: { id: true, name: true, position: true } });
    const i = stages.findIndex((g) => g.name === input.name);
    if (i < 0) throw notFound(`Cannot find policy group '${input.name}'`);
    const j = input.direction === 'earlier' ? i - 1 : i + 1;
    const before = stages.map((g) => g.name);
    if (j < 0 || j >= stages.length) return { name: input.name, order: before };
    assertCan(access, 'stage.manage', { stage: stages[i].name });
    assertCan(access, 'stage.manage', { stage: stages[j].name });
    const order = [...stages];
    [order[i], order[j]] = [order[j], order[i]];
    // Positions become 0..n-1 in the new order: the other stages keep their relative order, and
    // ties (which would make a plain swap invisible) disappear. Only rows whose number changes are written.
    for (const [k, g] of order.entries()) if (g.position !== k) await tx.policyGroup.update({ where: { id: g.id }, data: { position: k } });
    const after = order.map((g) => g.name);
    await audit(tx, access, { action: 'stage.move', targetType: 'stage', target: input.name, groupName: input.name, before: { order: before }, after: { order: after }, requestId });
    return { name: input.name, order: after };
  });
}

/** DELETE /policy_groups/:group — removes the stage and its associations (recorded in history); revisions stay. */
export async function deleteStage(access: Access, name: string, requestId?: string) {
  return transaction(async (tx) => {
    const group = await tx.policyGroup.findUnique({
      where: { name },
      select: { id: true, name: true, position: true, description: true, policies: { select: { policy: { select: { id: true, name: true } }, revision: { select: { revisionId: true } } } } },
    });
    // Issue 41: a stage the caller may not view is answered as a missing one.
    if (!group || !can(access, 'stage.view', { stage: name })) throw notFound(`Cannot load policy group ${name}`);
    assertCan(access, 'stage.manage', { stage: name });
    for (const p of group.policies) {
      const moved = await movePointer(tx, access, { group, policy: p.policy, to: null, kind: 'remove', expectedRevisionId: p.revision.revisionId, reason: 'stage deleted', requestId });
      // Issue 15: a protected stage is not deleted with its policies; lift the protection first (manage may), which is audited.
      if (moved.request) throw conflict(`Stage '${name}' is protected: lift its protection before deleting it with its policies.`);
    }
    await tx.policyGroup.delete({ where: { id: group.id } });
    const policies = Object.fromEntries(group.policies.map((p) => [p.policy.name, { revision_id: p.revision.revisionId }]));
    await audit(tx, access, { action: 'stage.delete', targetType: 'stage', target: name, groupName: name, before: { position: group.position, policies }, requestId });
    return { uri: `/api/v1/policy_groups/${name}`, ...(group.policies.length ? { policies } : {}) };
  });
}
