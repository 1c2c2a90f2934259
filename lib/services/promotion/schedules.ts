/**
 * Issue 29: scheduled promotion — "apply when the freeze ends", "apply at 02:00 UTC".
 *
 * Scheduling fixes what will move (the revision `from` runs now, or a revision by id) and what the stage
 * runs now (the apply is a compare-and-swap against it), and is audited. When it is due, the rollout
 * worker applies it through the same `movePointer` guard a click would meet, judged at that time and
 * with the scheduler's rights at that time (loaded afresh): it moves, opens a promotion request on a
 * protected stage, or is refused (a freeze that has not ended — "when the freeze ends" then waits for
 * the new end —, a bad revision, an unmet gate, the stage having moved, the scheduler no longer allowed).
 *
 * Exactly once across instances: the apply claims the row with a conditional update (status pending →
 * applied/requested, `where status = 'pending'`) in the transaction of the move, so a second instance's
 * claim matches no row; a refusal rolls that transaction back and is recorded by another conditional
 * update in its own transaction, with its audit event.
 */
import { db, type Tx } from '@/lib/db/client';
import { assertCan, can, type Access } from '@/lib/auth/permissions';
import { loadAccess } from '@/lib/db/queries/access';
import { AppError, badRequest, conflict, forbidden, isAppError, notFound } from '@/lib/errors';
import type { ScheduledPromotionDto } from '@/lib/types/scheduled-promotions';
import type { CancelScheduledPromotionInput, SchedulePromotionInput } from '@/lib/validation/scheduled-promotions';
import { audit, requireGroup, requirePolicy, movePointer, transaction } from '@/lib/services/funnel';
import { previewMove } from './move-preview';
import { promotionSource } from './promote-policy';

export type { ScheduledPromotionDto } from '@/lib/types/scheduled-promotions';

/** How far ahead a promotion may be scheduled. */
const MAX_AHEAD_MS = 90 * 24 * 3600_000;
const short = (r: string | null) => (r ? r.slice(0, 10) : 'nothing');

export type { CancelScheduledPromotionInput, SchedulePromotionInput } from '@/lib/validation/scheduled-promotions';

type Row = {
  id: string;
  groupName: string;
  policyName: string;
  fromStage: string | null;
  toRevisionId: string;
  expectedRevisionId: string | null;
  mode: string;
  runAt: Date;
  reason: string | null;
  status: string;
  outcome: string | null;
  createdById: string | null;
  createdByEmail: string;
  createdAt: Date;
  decidedAt: Date | null;
};

/** Who may cancel a pending schedule: whoever scheduled it, or someone who manages the stage (the one rule: the cancel and the lists). */
function mayCancel(access: Access, r: Pick<Row, 'createdById' | 'groupName'>): boolean {
  return can(access, 'schedule.cancel', { ...(r.createdById !== null ? { userId: r.createdById } : {}), stage: r.groupName });
}

function toDto(r: Row, reader?: Access): ScheduledPromotionDto {
  return {
    id: r.id,
    stage: r.groupName,
    policy: r.policyName,
    from_stage: r.fromStage,
    to_revision_id: r.toRevisionId,
    expected_revision_id: r.expectedRevisionId,
    when: r.mode as ScheduledPromotionDto['when'],
    run_at: r.runAt.toISOString(),
    reason: r.reason,
    status: r.status as ScheduledPromotionDto['status'],
    outcome: r.outcome ? (JSON.parse(r.outcome) as Record<string, unknown>) : null,
    scheduled_by: r.createdByEmail,
    created_at: r.createdAt.toISOString(),
    decided_at: r.decidedAt?.toISOString() ?? null,
    may_cancel: r.status === 'pending' && !!reader && mayCancel(reader, r),
  };
}

/** Schedules a promotion (promote on the stage, view on `from`): what moves is fixed now; the guard judges it when it applies. */
export async function schedulePromotion(access: Access, input: SchedulePromotionInput, now = new Date()): Promise<ScheduledPromotionDto> {
  // The input is parsed at the edge (ZSchedulePromotion with scheduleWhenRule); what is left needs the clock or the database.
  if (input.from === input.stage) throw badRequest('A stage cannot be promoted into itself', [{ path: '/from', message: 'from must differ from stage' }]);
  let runAt: Date;
  if (input.when === 'at') {
    const t = input.at!.getTime();
    if (t <= now.getTime()) {
      const message = `at must be in the future (it is ${now.toISOString().slice(0, 16).replace('T', ' ')} UTC now)`;
      throw badRequest(message, [{ path: '/at', message }]);
    }
    if (t > now.getTime() + MAX_AHEAD_MS) throw badRequest('at must be within 90 days', [{ path: '/at', message: 'at must be within 90 days' }]);
    runAt = new Date(t);
  } else {
    // The guard's own answer now: the freeze covering the stage, and when it ends.
    const preview = await previewMove(access, { policy: input.policy, stage: input.stage, kind: 'promote', from: input.from });
    if (!preview.freeze) throw badRequest(`'${input.stage}' is not frozen now: schedule at a time, or promote now`, [{ path: '/when', message: "when is 'freeze_end' but the stage is not frozen now" }]);
    runAt = new Date(preview.freeze.ends_at);
  }
  return transaction(async (tx) => {
    const [group, policy] = await Promise.all([requireGroup(tx, input.stage, access), requirePolicy(tx, input.policy)]);
    assertCan(access, 'stage.promote', { stage: group.name });
    const { source, fromName } = await promotionSource(tx, access, policy, input.from);
    const current = await tx.groupPolicy.findUnique({ where: { groupId_policyId: { groupId: group.id, policyId: policy.id } }, select: { revision: { select: { revisionId: true } } } });
    const running = current?.revision.revisionId ?? null;
    if (running !== input.expectedRevisionId) {
      throw conflict(`'${group.name}' changed since you looked: it now runs ${short(running)} of '${policy.name}', not ${short(input.expectedRevisionId)}. Refresh and review the change again.`, { current_revision_id: running });
    }
    if (running === source.revision.revisionId) throw badRequest(`'${group.name}' already runs revision ${short(running)} of '${policy.name}'`, [{ path: '/from', message: 'nothing would change' }]);
    const row = await tx.scheduledPromotion.create({
      data: {
        groupName: group.name,
        policyName: policy.name,
        fromStage: fromName.startsWith('rev:') ? null : fromName,
        toRevisionId: source.revision.revisionId,
        expectedRevisionId: running,
        mode: input.when,
        runAt,
        reason: input.reason ?? null,
        createdById: access.userId,
        createdByEmail: access.email,
        createdAt: now,
      },
    });
    await audit(tx, access, {
      action: 'promotion.schedule',
      targetType: 'pointer',
      target: `${group.name}/${policy.name}`,
      groupName: group.name,
      policyName: policy.name,
      before: { revision_id: running },
      after: { schedule: row.id, revision_id: row.toRevisionId, when: input.when, run_at: runAt.toISOString(), from_stage: row.fromStage },
      reason: input.reason,
      requestId: input.requestId,
    });
    return toDto(row, access);
  });
}

/**
 * Scheduled promotions of the stages the reader may view, soonest first (`status` filters); with `decidedSince`,
 * those decided (applied, requested, failed, cancelled) since then, latest first.
 */
export async function listScheduledPromotions(access: Access, opts: { stage?: string; policy?: string; status?: string; decidedSince?: Date } = {}): Promise<ScheduledPromotionDto[]> {
  const rows = await db().scheduledPromotion.findMany({
    where: {
      ...(opts.stage ? { groupName: opts.stage } : {}),
      ...(opts.policy ? { policyName: opts.policy } : {}),
      ...(opts.status ? { status: opts.status } : {}),
      ...(opts.decidedSince ? { decidedAt: { gte: opts.decidedSince } } : {}),
    },
    orderBy: opts.decidedSince ? [{ decidedAt: 'desc' }, { id: 'asc' }] : [{ runAt: 'asc' }, { id: 'asc' }],
    take: 500,
  });
  return rows.filter((r) => can(access, 'stage.view', { stage: r.groupName })).map((r) => toDto(r, access));
}

/** Cancels a pending schedule (whoever scheduled it, or who manages the stage). */
export async function cancelScheduledPromotion(access: Access, input: CancelScheduledPromotionInput, now = new Date()): Promise<ScheduledPromotionDto> {
  return transaction(async (tx) => {
    const row = await tx.scheduledPromotion.findUnique({ where: { id: input.id } });
    if (!row || !can(access, 'stage.view', { stage: row.groupName })) throw notFound(`Cannot find scheduled promotion '${input.id}'`);
    if (!mayCancel(access, row)) throw forbidden('Only whoever scheduled it, or someone who manages the stage, may cancel a scheduled promotion.');
    const { count } = await tx.scheduledPromotion.updateMany({ where: { id: row.id, status: 'pending' }, data: { status: 'cancelled', decidedAt: now, outcome: JSON.stringify({ cancelled_by: access.email }) } });
    if (count !== 1) throw conflict(`This scheduled promotion is ${row.status}; it can no longer be cancelled.`, { status: row.status });
    await audit(tx, access, { action: 'promotion.schedule_cancel', targetType: 'pointer', target: `${row.groupName}/${row.policyName}`, groupName: row.groupName, policyName: row.policyName, after: { schedule: row.id }, requestId: input.requestId });
    return toDto((await tx.scheduledPromotion.findUnique({ where: { id: row.id } }))!, access);
  });
}

/** Applies one due schedule inside `tx`: claims it first (pending → applied, conditional), then moves through movePointer; a refusal rolls the claim back with the move. */
async function applyInTx(tx: Tx, row: Row, access: Access, now: Date): Promise<ScheduledPromotionDto> {
  const { count } = await tx.scheduledPromotion.updateMany({ where: { id: row.id, status: 'pending' }, data: { status: 'applied', decidedAt: now } });
  if (count !== 1) throw new ClaimLost();
  const [group, policy] = await Promise.all([requireGroup(tx, row.groupName), requirePolicy(tx, row.policyName)]);
  const rev = await tx.policyRevision.findUnique({ where: { policyId_revisionId: { policyId: policy.id, revisionId: row.toRevisionId } }, select: { id: true } });
  if (!rev) throw conflict(`Revision ${short(row.toRevisionId)} of '${row.policyName}' was deleted since it was scheduled.`);
  const moved = await movePointer(tx, { ...access, via: `schedule:${row.id}` }, {
    group,
    policy,
    to: { pk: rev.id, revisionId: row.toRevisionId },
    kind: 'promote',
    reason: row.reason ?? `scheduled ${row.mode === 'freeze_end' ? 'for the end of the freeze' : `at ${row.runAt.toISOString()}`}`,
    expectedRevisionId: row.expectedRevisionId,
    origin: { ...(row.fromStage ? { from_stage: row.fromStage } : {}), schedule: row.id },
    at: now,
  });
  const status = moved.request ? 'requested' : 'applied';
  const outcome = moved.request ? { request_id: moved.request.id, approvals_required: moved.request.approvals_required } : { audit_id: moved.auditId };
  await tx.scheduledPromotion.update({ where: { id: row.id }, data: { status, outcome: JSON.stringify(outcome) } });
  return toDto({ ...row, status, decidedAt: now, outcome: JSON.stringify(outcome) });
}

class ClaimLost extends Error {}

/**
 * The worker's pass: every pending schedule whose time has come, through the guard, once across
 * instances. Returns what this call applied, requested, failed or moved on (a "freeze end" schedule
 * whose stage is frozen again waits for the new end).
 */
export async function applyDueScheduledPromotions(now = new Date()): Promise<{ applied: string[]; requested: string[]; failed: string[]; waiting: string[] }> {
  const due = await db().scheduledPromotion.findMany({ where: { status: 'pending', runAt: { lte: now } }, orderBy: [{ runAt: 'asc' }, { id: 'asc' }], take: 100 });
  const out = { applied: [] as string[], requested: [] as string[], failed: [] as string[], waiting: [] as string[] };
  for (const row of due) {
    const access = row.createdById ? await loadAccess(row.createdById) : null;
    try {
      if (!access) throw forbidden(`${row.createdByEmail} can no longer sign in, so their scheduled promotion does not apply.`);
      if (!can(access, 'stage.promote', { stage: row.groupName })) throw forbidden(`${row.createdByEmail} may no longer promote into '${row.groupName}'.`);
      const dto = await transaction((tx) => applyInTx(tx, row, access, now));
      (dto.status === 'requested' ? out.requested : out.applied).push(row.id);
    } catch (e) {
      if (e instanceof ClaimLost) continue;
      if (!isAppError(e)) throw e;
      const freeze = (e.details as { freeze?: { ends_at?: string } } | undefined)?.freeze;
      if (row.mode === 'freeze_end' && e.status === 423 && freeze?.ends_at && Date.parse(freeze.ends_at) > now.getTime()) {
        // Frozen again: "when the freeze ends" means this freeze's end too.
        const { count } = await db().scheduledPromotion.updateMany({ where: { id: row.id, status: 'pending', runAt: row.runAt }, data: { runAt: new Date(freeze.ends_at) } });
        if (count === 1) out.waiting.push(row.id);
        continue;
      }
      const failedNow = await recordFailure(row, access, e, now);
      if (failedNow) out.failed.push(row.id);
    }
  }
  return out;
}

/** A refusal at apply time: failed, with the guard's words, audited — once (conditional on pending). */
async function recordFailure(row: Row, access: Access | null, e: AppError, now: Date): Promise<boolean> {
  return transaction(async (tx) => {
    const { count } = await tx.scheduledPromotion.updateMany({ where: { id: row.id, status: 'pending' }, data: { status: 'failed', decidedAt: now, outcome: JSON.stringify({ status: e.status, error: e.message }) } });
    if (count !== 1) return false;
    await audit(tx, access ? { ...access, via: `schedule:${row.id}` } : { kind: 'system', userId: row.createdById, email: row.createdByEmail, via: `schedule:${row.id}` }, {
      action: 'promotion.schedule_failed',
      targetType: 'pointer',
      target: `${row.groupName}/${row.policyName}`,
      groupName: row.groupName,
      policyName: row.policyName,
      after: { schedule: row.id, revision_id: row.toRevisionId, status: e.status },
      reason: e.message,
    });
    return true;
  });
}
