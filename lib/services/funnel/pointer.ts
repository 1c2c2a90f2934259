import type { Tx } from '@/lib/db/client';
import { conflict } from '@/lib/errors';
import { audit, type AuditActor } from './audit';
import { badRevisionError, openRequestIfProtected, resolveFreeze, type FreezeOverride } from './guard';
import { judgeMove, type PointerKind } from './move-judge';
import { emitEvent } from './outbox';
import type { PromotionRequestDto } from './request-dto';
import { resolveGate, type GateOverride } from './rollout-gate';
import { markOverridden, resolveVerdict, type VerdictOverride } from './verdict';
import { outdatePendingRequests } from './request-outdate';
import { holdOnManualMove } from './automation';

export type { PointerKind } from './move-judge';

export interface MovePointerInput {
  group: { id: string; name: string };
  policy: { id: string; name: string };
  /** The new revision (row id and revision_id); null removes the association. */
  to: { pk: string; revisionId: string } | null;
  kind: PointerKind;
  reason?: string | null;
  /**
   * What the caller saw in the group: a revision_id, null for "nothing", or
   * undefined to skip the check (plain Chef-style PUT). A mismatch is a 409.
   */
  expectedRevisionId?: string | null;
  requestId?: string | null;
  at?: Date;
  /**
   * A written reason to move into a stage that requires artifacts although
   * some are missing (audited). Without it such a move is a 409 listing them.
   */
  overrideReason?: string | null;
  /** Issue 15: a written reason to move while a freeze window covers the stage (needs `manage` on it; audited). */
  freezeOverrideReason?: string | null;
  /** Set by the apply of a promotion request: whether its freeze override is authorised (else: the actor must manage the stage). */
  freezeOverrideAuthorised?: boolean;
  /** Issue 29, set by the apply of a promotion request: who gave the freeze override (the approver, or the manager who asked), recorded as such. */
  freezeOverrideBy?: { userId: string | null; email: string } | null;
  /** Set only by the apply of an approved promotion request: the approvals are in, move. */
  approvedRequest?: { id: string; approvers: string[] };
  /** Where the change comes from, kept on a promotion request (from stage, cookbook…). */
  origin?: Record<string, unknown>;
  /** Issue 26: a written reason to move a revision the stage's promotion gate refuses (needs `manage` on the stage; audited). */
  gateOverrideReason?: string | null;
  /** Issue 26: the revision whose convergence the gate judges, when not `to` (a cookbook promotion: the source stage's revision the cookbook comes from). */
  gateSubject?: { revisionId: string };
  /** Issues 43 and 41: a written reason to move a revision that failed in this stage before (a stage verdict; needs `manage` on the stage; audited). */
  verdictOverrideReason?: string | null;
  /**
   * Issue 26, set only by the automatic rollback: the stage's rollback rule
   * moves it back. No gate, no approvals (the rule allows it and the history
   * says so), and a freeze does not stop undoing a change that broke nodes.
   */
  automaticRollback?: { rule: string; evidence: Record<string, unknown> };
  /**
   * Issue 47, set only by the automatic promotion: the evidence it promotes on (kept in the audit event). It
   * passes every check a person's move passes (bad mark, freeze, gate, verdicts, approvals); it overrides none.
   */
  automaticPromotion?: { evidence: Record<string, unknown> };
}

export interface MovePointerResult {
  fromRevisionId: string | null;
  toRevisionId: string | null;
  /** True when the group had no revision of this policy before. */
  created: boolean;
  changed: boolean;
  auditId: string | null;
  /** Issue 15: the stage is protected and the change needs approvals: this request was opened instead and nothing moved. */
  request?: PromotionRequestDto;
  /** Issue 29: the freeze this move overrode (with who overrode it). */
  freezeOverride?: FreezeOverride;
}

/** 409 unless the stage still runs what the caller saw (`expected`: a revision id, or null for nothing). */
export function assertExpected(groupName: string, policyName: string, current: string | null, expected: string | null): void {
  if (expected === current) return;
  throw conflict(
    `'${groupName}' changed since you looked: it now runs ${current ? `revision ${current.slice(0, 10)}` : 'no revision'} of '${policyName}', not ${
      expected ? `revision ${expected.slice(0, 10)}` : 'nothing'
    }. Refresh and review the change again.`,
    { current_revision_id: current, expected_revision_id: expected },
  );
}

/**
 * Points a group at a revision (or removes the association), keeping history
 * and an audit event, inside the caller's transaction. The expected-revision
 * check and the write happen in the same transaction, so two racing callers
 * cannot both succeed.
 *
 * Issue 15, the one guard every move passes (whole policy, cookbook, bulk,
 * rollback, the /api/v1 and Chef PUTs; the demo seed excepted): a bad
 * revision is refused (409), a freeze window refuses (423) unless a manager
 * overrides with a reason, and a protected stage whose rules ask for
 * approvals gets a promotion request instead of the move (`result.request`,
 * `changed: false`). An approved request comes back here with
 * `approvedRequest` and moves.
 */
export async function movePointer(tx: Tx, actor: AuditActor | null, input: MovePointerInput): Promise<MovePointerResult> {
  const { group, policy, to } = input;
  const current = await tx.groupPolicy.findUnique({
    where: { groupId_policyId: { groupId: group.id, policyId: policy.id } },
    select: { id: true, revisionPk: true, revision: { select: { revisionId: true } } },
  });
  const fromRevisionId = current?.revision.revisionId ?? null;
  if (input.expectedRevisionId !== undefined) assertExpected(group.name, policy.name, fromRevisionId, input.expectedRevisionId);
  const toRevisionId = to?.revisionId ?? null;
  if (fromRevisionId === toRevisionId) return { fromRevisionId, toRevisionId, created: false, changed: false, auditId: null };
  const now = input.at ?? new Date();
  const automatic = input.automaticRollback;
  // Issue 29: what the guard decides on, read by the same function the dry run (move-preview.ts) calls.
  const judged = await judgeMove(tx, {
    group,
    policy,
    current: current ? { revisionId: current.revision.revisionId, pk: current.revisionPk } : null,
    to,
    kind: input.kind,
    gateSubject: input.gateSubject,
    approvedRequest: !!input.approvedRequest,
    automatic: !!automatic,
    now,
  });
  const guarded = judged.guarded;
  let freezeOverride: FreezeOverride | null = null;
  let gateOverride: GateOverride | null = null;
  let verdictOverride: VerdictOverride | null = null;
  if (guarded) {
    if (judged.bad) throw badRevisionError(judged.bad);
    freezeOverride = resolveFreeze(group, judged.freeze, actor, automatic ? (input.freezeOverrideReason ?? automatic.rule) : input.freezeOverrideReason, automatic ? true : input.freezeOverrideAuthorised, input.freezeOverrideBy);
    gateOverride = await resolveGate(tx, group, policy, judged.gate, actor, input.gateOverrideReason, input.approvedRequest?.id);
    verdictOverride = await resolveVerdict(tx, group, policy, judged.verdicts.here, actor, input.verdictOverrideReason, input.approvedRequest?.id);
  }

  let artifactOverride: { reason: string; missing: string[] } | null = null;
  if (to && judged.missingArtifacts?.length) {
    const missing = judged.missingArtifacts;
    const reason = input.overrideReason?.trim();
    if (!reason) {
      throw conflict(`'${group.name}' requires every cookbook on the server, and ${missing.length} of revision ${to.revisionId.slice(0, 10)} are missing: ${missing.join(', ')}. Upload them (chef push), or give an override reason.`, {
        missing_artifacts: missing,
      });
    }
    artifactOverride = { reason, missing };
  }

  if (guarded && !input.approvedRequest && !automatic) {
    const origin = {
      ...input.origin,
      ...(gateOverride ? { gate_override: { reason: gateOverride.reason, by: actor?.email ?? null } } : {}),
      ...(verdictOverride ? { verdict_override: { reason: verdictOverride.reason, by: verdictOverride.by } } : {}),
    };
    const request = await openRequestIfProtected(
      tx,
      actor,
      { group, policy, to, kind: input.kind, reason: input.reason, overrideReason: input.overrideReason, freezeOverride, origin, requestId: input.requestId },
      current ? { revisionId: current.revision.revisionId, pk: current.revisionPk } : null,
      now,
      judged.approval,
    );
    if (request) return { fromRevisionId, toRevisionId: fromRevisionId, created: false, changed: false, auditId: null, request };
  }

  if (!to) {
    // Conditional delete: only the row we read, so a concurrent change is never removed blindly.
    const { count } = await tx.groupPolicy.deleteMany({ where: { id: current!.id, revisionPk: current!.revisionPk } });
    if (count !== 1) throw conflict(`'${group.name}' changed while removing '${policy.name}'. Refresh and try again.`);
  } else if (current) {
    const { count } = await tx.groupPolicy.updateMany({
      where: { id: current.id, revisionPk: current.revisionPk },
      data: { revisionPk: to.pk, updatedById: actor?.userId ?? null, updatedByEmail: actor?.email ?? null, updatedAt: now },
    });
    if (count !== 1) throw conflict(`'${group.name}' changed while updating '${policy.name}'. Refresh and try again.`);
  } else {
    try {
      await tx.groupPolicy.create({
        data: { groupId: group.id, policyId: policy.id, revisionPk: to.pk, updatedById: actor?.userId ?? null, updatedByEmail: actor?.email ?? null, updatedAt: now },
      });
    } catch (e) {
      // Another writer created the association first: the unique (group, policy) key decides. A caller that
      // checked what it expected gets a 409; a blind set (Chef's PUT) keeps the raw error, so its caller's
      // retry (retryUniqueConflicts) runs the transaction again and replaces what the winner set.
      if ((e as { code?: string }).code === 'P2002' && input.expectedRevisionId !== undefined) throw conflict(`'${group.name}' changed while adding '${policy.name}'. Refresh and try again.`);
      throw e;
    }
  }
  await tx.pointerHistory.create({
    data: {
      groupName: group.name,
      policyName: policy.name,
      fromRevisionId,
      toRevisionId,
      kind: input.kind,
      reason: historyReason(input.reason, freezeOverride, input.approvedRequest, gateOverride, automatic, verdictOverride),
      actorId: actor?.userId ?? null,
      actorEmail: actor?.email ?? 'system',
      createdAt: now,
    },
  });
  const event = await audit(tx, actor, {
    action: `pointer.${input.kind}`,
    targetType: 'pointer',
    target: `${group.name}/${policy.name}`,
    groupName: group.name,
    policyName: policy.name,
    before: { revision_id: fromRevisionId },
    after: {
      revision_id: toRevisionId,
      ...(artifactOverride ? { artifacts_override: artifactOverride } : {}),
      ...(freezeOverride ? { freeze_override: { reason: freezeOverride.reason, window: freezeOverride.window, by: freezeOverride.by?.email ?? actor?.email ?? 'system' } } : {}),
      ...(input.approvedRequest ? { promotion_request: input.approvedRequest.id, approved_by: input.approvedRequest.approvers } : {}),
      ...(gateOverride ? { gate_override: { reason: gateOverride.reason, gate: gateOverride.gate } } : {}),
      ...(automatic ? { automatic_rollback: { rule: automatic.rule, evidence: automatic.evidence } } : {}),
      ...(input.automaticPromotion ? { automatic_promotion: input.automaticPromotion.evidence } : {}),
      ...(verdictOverride ? { verdict_override: { reason: verdictOverride.reason, by: verdictOverride.by, verdicts: verdictOverride.verdicts.map((v) => ({ id: v.id, summary: v.summary })) } } : {}),
    },
    reason: input.reason ?? artifactOverride?.reason ?? freezeOverride?.reason ?? gateOverride?.reason ?? verdictOverride?.reason,
    requestId: input.requestId,
  });
  if (verdictOverride) await markOverridden(tx, verdictOverride, now);
  // Issue 43: a pending request made against what the stage ran before is outdated now, and says so everywhere.
  await outdatePendingRequests(tx, actor, { group, policy, currentRevisionId: toRevisionId, requestId: input.requestId, at: now });
  // Issue 47: a person's rollback, or their promotion of another revision than the stage before runs, holds the stage's automatic promotion.
  if (!automatic) await holdOnManualMove(tx, actor, { group, policy, kind: input.kind, fromRevisionId, toRevisionId, reason: input.reason, approvedRequestId: input.approvedRequest?.id, requestId: input.requestId }, now);
  if (guarded) {
    const what = `${policy.name} ${fromRevisionId ? fromRevisionId.slice(0, 10) : 'nothing'} → ${toRevisionId ? toRevisionId.slice(0, 10) : 'nothing'} in ${group.name}`;
    const data = { stage: group.name, policy: policy.name, kind: input.kind, from_revision_id: fromRevisionId, to_revision_id: toRevisionId, actor: actor?.email ?? 'system', reason: input.reason ?? null, promotion_request: input.approvedRequest?.id ?? null, audit_id: event.id };
    await emitEvent(tx, 'promotion.applied', `${actor?.email ?? 'system'} moved ${what}`, data, { at: now });
    if (freezeOverride) {
      // Issue 29: the one who overrode (the approver who applied a request with an override), not the mover of record.
      const by = freezeOverride.by?.email ?? actor?.email ?? 'system';
      await emitEvent(tx, 'freeze.overridden', `${by} overrode the freeze of ${group.name} (${freezeOverride.window.reason}, until ${freezeOverride.window.ends_at}): ${freezeOverride.reason}`, { ...data, freeze: freezeOverride.window, override_reason: freezeOverride.reason, overridden_by: by }, { at: now });
    }
  }
  return { fromRevisionId, toRevisionId, created: !current, changed: true, auditId: event.id, ...(freezeOverride ? { freezeOverride } : {}) };
}

/** The history line's reason: the given one, plus a freeze override, the approved request, a gate override and the automatic rollback rule when there are. */
function historyReason(
  reason: string | null | undefined,
  freeze: FreezeOverride | null,
  approved: { id: string; approvers: string[] } | undefined,
  gate: GateOverride | null = null,
  automatic?: { rule: string },
  verdict: VerdictOverride | null = null,
): string | null {
  const parts = [reason?.trim() || null];
  if (verdict) parts.push(`failure override by ${verdict.by} (${verdict.verdicts.map((v) => v.summary).join('; ')}): ${verdict.reason}`);
  if (automatic) parts.push(`allowed without approval by the stage's automatic rollback rule (${automatic.rule})`);
  if (freeze && !automatic) parts.push(`freeze override${freeze.by ? ` by ${freeze.by.email}` : ''} (${freeze.window.reason}): ${freeze.reason}`);
  if (gate) parts.push(`gate override (${gate.gate.unmet.join('; ')}): ${gate.reason}`);
  if (approved) parts.push(`approved request ${approved.id} (${approved.approvers.join(', ')})`);
  const out = parts.filter(Boolean).join(' — ');
  return out || null;
}

