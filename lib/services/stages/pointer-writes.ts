import { assertCan, can, refusal, type Access } from '@/lib/auth/permissions';
import { forbidden, notFound } from '@/lib/errors';
import {
  audit,
  nextStagePosition,
  movePointer,
  type PromotionRequestDto,
  chooseOwnerTeam,
  checkRevision,
  storeRevision,
  withoutServerFields,
  transaction,
} from '@/lib/services/funnel';

export interface SetGroupPolicyInput {
  group: string;
  policy: string;
  text: string;
  requestId?: string;
  reason?: string;
  /** Owning team when the policy does not exist yet (see chooseOwnerTeam). */
  ownerTeam?: string | null;
  /** Issue 15: a written reason to move during a freeze window (needs manage on the stage). */
  freezeOverrideReason?: string;
  /** Issue 42 (the importer): what the caller saw in the stage (a revision id, null for none); a mismatch is a 409. Absent: Chef's blind PUT. */
  expectedRevisionId?: string | null;
}

/**
 * PUT /policy_groups/:group/policies/:name with a lock body: stores the
 * revision if it is new and points the group at it. 201 for a new
 * association, 200 for a replacement (Chef Server's statuses). Needs
 * `promote` on the stage, plus ownership of the policy when the revision
 * (or the policy) is new. Concurrent identical PUTs (the group, the policy, the
 * revision or the association created by another writer first) run again and
 * answer as if they came one after the other.
 */
export async function setGroupPolicy(access: Access, input: SetGroupPolicyInput): Promise<{ status: 200 | 201 | 202; document: string; revisionId: string; request?: PromotionRequestDto }> {
  const text = withoutServerFields(input.text);
  const revision = checkRevision(text, input.policy);
  const { lock } = revision;
  // Issue 28: no stage-existence oracle. Who may not change the stage gets one answer, whether the stage exists (hidden
  // from them, or only visible) or not. (Those who may create stages, administrators, pass `stage.promote` on any stage,
  // so the one row decides: issue 44.)
  if (!can(access, 'stage.promote', { stage: input.group })) throw forbidden(refusal('stage.promote', { stage: input.group }));
  return transaction(async (tx) => {
    let group = await tx.policyGroup.findUnique({ where: { name: input.group }, select: { id: true, name: true } });
    if (!group) {
      // Chef creates a missing group; in the console stages are managed, so only those who may create stages can.
      assertCan(access, 'stage.create');
      group = await tx.policyGroup.create({ data: { name: input.group, position: await nextStagePosition(tx) }, select: { id: true, name: true } });
      await audit(tx, access, { action: 'stage.create', targetType: 'stage', target: input.group, groupName: input.group, requestId: input.requestId });
    }
    assertCan(access, 'stage.promote', { stage: group.name });
    let policy = await tx.policy.findUnique({ where: { name: input.policy }, select: { id: true, name: true, ownerTeamId: true } });
    if (!policy) {
      assertCan(access, 'policy.create');
      const ownerTeamId = await chooseOwnerTeam(tx, access, input.ownerTeam);
      policy = await tx.policy.create({ data: { name: input.policy, ownerTeamId }, select: { id: true, name: true, ownerTeamId: true } });
      await audit(tx, access, { action: 'policy.create', targetType: 'policy', target: input.policy, policyName: input.policy, after: { ownerTeamId }, requestId: input.requestId });
    }
    const exists = await tx.policyRevision.findUnique({ where: { policyId_revisionId: { policyId: policy.id, revisionId: lock.revision_id } }, select: { id: true } });
    if (!exists) assertCan(access, 'policy.upload', { ownerTeamId: policy.ownerTeamId });
    const stored = await storeRevision(tx, access, policy, revision, 'upload');
    if (stored.created) {
      await audit(tx, access, {
        action: 'revision.upload',
        targetType: 'revision',
        target: `${policy.name}@${lock.revision_id}`,
        policyName: policy.name,
        after: { revision_id: lock.revision_id },
        requestId: input.requestId,
      });
    }
    const moved = await movePointer(tx, access, {
      group,
      policy,
      to: { pk: stored.id, revisionId: stored.revisionId },
      kind: 'set',
      reason: input.reason,
      freezeOverrideReason: input.freezeOverrideReason,
      requestId: input.requestId,
      origin: { upload: true },
      ...(input.expectedRevisionId !== undefined ? { expectedRevisionId: input.expectedRevisionId } : {}),
    });
    const doc = await tx.policyRevision.findUniqueOrThrow({ where: { id: stored.id }, select: { document: true } });
    // Issue 15: a protected stage got a request (the revision is stored; the pointer did not move).
    if (moved.request) return { status: 202, document: doc.document, revisionId: stored.revisionId, request: moved.request };
    return { status: moved.created ? 201 : 200, document: doc.document, revisionId: stored.revisionId };
  });
}

/** DELETE /policy_groups/:group/policies/:name — removes the association; returns the revision it held. */
export async function removeGroupPolicy(access: Access, input: { group: string; policy: string; requestId?: string; reason?: string; freezeOverrideReason?: string }): Promise<{ document: string; request?: PromotionRequestDto }> {
  return transaction(async (tx) => {
    const row = await tx.groupPolicy.findFirst({
      where: { group: { name: input.group }, policy: { name: input.policy } },
      select: { group: { select: { id: true, name: true } }, policy: { select: { id: true, name: true } }, revision: { select: { revisionId: true, document: true } } },
    });
    // Issue 28: a stage the caller may not see answers as a missing one (404), not 403.
    if (!row || !can(access, 'stage.view', { stage: row.group.name })) throw notFound(`Cannot load policy ${input.policy} in policy group ${input.group}`);
    assertCan(access, 'stage.promote', { stage: row.group.name });
    const moved = await movePointer(tx, access, {
      group: row.group,
      policy: row.policy,
      to: null,
      kind: 'remove',
      expectedRevisionId: row.revision.revisionId,
      reason: input.reason,
      freezeOverrideReason: input.freezeOverrideReason,
      requestId: input.requestId,
    });
    if (moved.request) return { document: row.revision.document, request: moved.request };
    return { document: row.revision.document };
  });
}
