/**
 * Issue 15: the one check every pointer move into a stage passes, read by
 * judgeMove (issue 29: movePointer enforces its answer, the dry run reports it),
 * so no route can skip it: bad revisions
 * (409), freeze windows (423 unless a manager overrides with a reason), and
 * protected stages (the move becomes a promotion request instead).
 */
import type { Tx } from '@/lib/db/client';
import { can } from '@/lib/auth/permissions';
import { baselineGaps, diffLocks, evaluateMoveApproval, freezeStatus, type ApprovalRule, type HistoryLock, type LockDiff, type MoveApproval, type PolicyLock } from '@/lib/domain';
import { AppError, conflict, forbidden } from '@/lib/errors';
import { dateTime } from '@/lib/format';
import { CORE_CATALOG } from '@/lib/resource-catalog';
import { audit, type AuditActor } from './audit';
import { emitEvent } from './outbox';
import { AUTO_PROMOTE_VIA } from './automation';
import { REQUEST_SELECT, requestEffect, requestLink, requestMessage, requestTtlMs, toRequestDto, type PromotionRequestDto, type RequestDiffSummary } from './request-dto';

export const CORE_RESOURCE_NAMES: ReadonlySet<string> = new Set(CORE_CATALOG.filter((r) => r.source === 'core').map((r) => r.key));

const shortRev = (r: string | null) => (r ? r.slice(0, 10) : 'nothing');

export interface BadMark {
  policy: string;
  revision_id: string;
  reason: string;
  marked_by: string;
  marked_at: string;
}

/** The bad mark of a revision, if any (issue 28: by (policy, revision id), not the row id: a mark survives the revision's deletion and re-upload). */
export async function badMarkOf(tx: Tx, policyName: string, to: { revisionId: string } | null): Promise<BadMark | null> {
  if (!to) return null;
  const bad = await tx.badRevision.findFirst({ where: { policyName, revisionId: to.revisionId }, select: { reason: true, markedByEmail: true, createdAt: true } });
  return bad ? { policy: policyName, revision_id: to.revisionId, reason: bad.reason, marked_by: bad.markedByEmail, marked_at: bad.createdAt.toISOString() } : null;
}

/** The 409 of a move to a revision marked bad (naming who and why). */
export function badRevisionError(bad: BadMark): AppError {
  return conflict(`Revision ${shortRev(bad.revision_id)} of '${bad.policy}' is marked bad by ${bad.marked_by} on ${bad.marked_at.slice(0, 10)}: ${bad.reason}. It cannot be promoted or rolled back to anywhere until it is unmarked.`, {
    bad_revision: bad,
  });
}

export interface FreezeOverride {
  reason: string;
  window: FreezeWindowNow;
  /** Issue 29: who gave the override (an approver applying a request, not its requester); null: the mover. */
  by?: { userId: string | null; email: string } | null;
}

/** The freeze window covering `now` in a stage, with the end of the freeze (null: not frozen). */
export interface FreezeWindowNow {
  id: string;
  reason: string;
  ends_at: string;
}

export async function activeFreeze(tx: Tx, group: { id: string }, now: Date): Promise<FreezeWindowNow | null> {
  const windows = await tx.freezeWindow.findMany({ where: { groupId: group.id, startsAt: { lte: now } }, select: { id: true, startsAt: true, endsAt: true, weekly: true, reason: true } });
  if (!windows.length) return null;
  const status = freezeStatus(windows, now);
  if (!status.active.length) return null;
  const w = status.active[0];
  return { id: w.window.id, reason: w.window.reason, ends_at: status.opensAt!.toISOString() };
}

/** Whether this actor may override a freeze (or a promotion gate) of the stage: those who manage it. */
export function mayOverrideGuards(actor: AuditActor | null, stage: string): boolean {
  return !!actor && actor.kind !== 'system' && can(actor, 'stage.manage', { stage });
}

/**
 * 423 while a freeze window covers the move (`window`, from activeFreeze);
 * with an override reason, only someone who manages the stage (or an
 * explicitly authorised apply) passes, and the override is returned for the
 * audit event and the history.
 */
export function resolveFreeze(
  group: { name: string },
  window: FreezeWindowNow | null,
  actor: AuditActor | null,
  overrideReason: string | null | undefined,
  authorised?: boolean,
  by?: { userId: string | null; email: string } | null,
): FreezeOverride | null {
  if (!window) return null;
  const reason = overrideReason?.trim();
  if (!reason) {
    throw new AppError(
      'locked',
      `'${group.name}' is frozen until ${dateTime(window.ends_at)} (${window.reason}). Nothing moves into it until then; someone who manages the stage may override the freeze with a written reason.`,
      [],
      { freeze: window, override_field: 'override_reason' },
    );
  }
  // The system overrides only when explicitly authorised (an approved request applied).
  const mayOverride = authorised ?? mayOverrideGuards(actor, group.name);
  if (!mayOverride) throw forbidden(`'${group.name}' is frozen until ${dateTime(window.ends_at)} (${window.reason}); only those who manage stage '${group.name}' may override the freeze.`);
  return { reason, window, ...(by ? { by } : {}) };
}

function summarize(diff: LockDiff): RequestDiffSummary {
  const LIMIT = 200;
  const cookbooks = diff.cookbooks.map((c) => ({ name: c.name, kind: c.kind, ...(c.level ? { level: c.level } : {}), ...(c.from ? { from: c.from.version } : {}), ...(c.to ? { to: c.to.version } : {}) }));
  const runList = diff.runList.map((c) => ({ kind: c.kind, item: c.item }));
  const attributes = diff.attributes.map((a) => ({ kind: a.kind, precedence: a.precedence, path: a.path.join('.') }));
  return {
    summary: diff.summary as unknown as Record<string, unknown>,
    cookbooks: cookbooks.slice(0, LIMIT),
    run_list: runList.slice(0, LIMIT),
    attributes: attributes.slice(0, LIMIT),
    truncated: cookbooks.length > LIMIT || runList.length > LIMIT || attributes.length > LIMIT,
  };
}

export interface GuardedMove {
  group: { id: string; name: string };
  policy: { id: string; name: string };
  to: { pk: string; revisionId: string } | null;
  kind: string;
  reason?: string | null;
  overrideReason?: string | null;
  freezeOverride: FreezeOverride | null;
  origin?: Record<string, unknown>;
  requestId?: string | null;
}

const emptyLock = (name: string): PolicyLock => ({ name, revision_id: '', run_list: [], cookbook_locks: {}, default_attributes: {}, override_attributes: {} });

/**
 * Issue 28: the revisions a stage ran of a policy, newest first, each once
 * (from its pointer history, which is kept by name and outlives deletions).
 * Rows of the same instant are chained by their from → to links.
 */
async function historyRevisionIds(tx: Tx, groupName: string, policyName: string, currentRevisionId: string | null): Promise<string[]> {
  const rows = await tx.pointerHistory.findMany({ where: { groupName, policyName }, select: { fromRevisionId: true, toRevisionId: true, createdAt: true }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
  const out: string[] = [];
  const seen = new Set<string>();
  const push = (id: string | null) => {
    if (id && !seen.has(id)) {
      seen.add(id);
      out.push(id);
    }
  };
  push(currentRevisionId);
  let cursor = currentRevisionId;
  const left = [...rows];
  while (left.length) {
    const t = left[0].createdAt.getTime();
    let k = left.findIndex((r) => r.createdAt.getTime() === t && r.toRevisionId === cursor);
    if (k < 0) k = 0;
    const [row] = left.splice(k, 1);
    push(row.toRevisionId);
    push(row.fromRevisionId);
    cursor = row.fromRevisionId;
  }
  return out;
}

/** The approvals a move needs and the diff they judged (baseline → target). */
export interface MoveJudged {
  requirement: MoveApproval;
  diff: LockDiff;
}

/**
 * Issue 28: the approvals a move into a protected stage needs, judged against
 * the stage's history (lib/domain/approval/move.ts states the invariant);
 * null when the stage is not protected. The diff is baseline → target.
 */
export async function moveRequirement(
  tx: Tx,
  group: { id: string; name: string },
  policy: { id: string; name: string },
  current: { revisionId: string; pk: string } | null,
  to: { pk: string; revisionId: string } | null,
  /** Issue 29: the target's document when it is not stored yet (the dry run of a cookbook promotion). */
  toDocument?: PolicyLock,
): Promise<MoveJudged | null> {
  const protection = await tx.stageProtection.findUnique({ where: { groupId: group.id }, select: { approvalsRequired: true, rules: true } });
  if (!protection) return null;
  const docs = await tx.policyRevision.findMany({ where: { id: { in: [current?.pk, to?.pk].filter((x): x is string => !!x) } }, select: { id: true, document: true } });
  const doc = (pk: string | undefined) => {
    const d = pk ? docs.find((x) => x.id === pk) : undefined;
    return d ? (JSON.parse(d.document) as PolicyLock) : null;
  };
  const fromLock = doc(current?.pk);
  const toLock = toDocument ?? doc(to?.pk);
  const ids = await historyRevisionIds(tx, group.name, policy.name, current?.revisionId ?? null);
  const history: HistoryLock[] = [];
  let loaded = 0;
  const BATCH = 20;
  // Documents are loaded in batches, only as far back as the baseline needs (a removal needs none).
  while (toLock && loaded < ids.length) {
    const batch = ids.slice(loaded, loaded + BATCH);
    const rows = await tx.policyRevision.findMany({ where: { policyId: policy.id, revisionId: { in: batch } }, select: { revisionId: true, document: true } });
    const byId = new Map(rows.map((r) => [r.revisionId, r.document]));
    for (const id of batch) {
      const text = byId.get(id);
      history.push(text ? (JSON.parse(text) as PolicyLock) : 'deleted');
    }
    loaded += batch.length;
    if (!baselineGaps(fromLock, toLock, history).length) break;
  }
  const requirement = evaluateMoveApproval({
    current: fromLock,
    to: toLock,
    history,
    complete: !toLock || loaded >= ids.length,
    approvalsRequired: protection.approvalsRequired,
    rules: JSON.parse(protection.rules) as ApprovalRule[],
    coreResources: CORE_RESOURCE_NAMES,
  });
  const name = policy.name;
  const diff = diffLocks(requirement.baseline ?? emptyLock(name), toLock ?? emptyLock(name));
  return { requirement, diff };
}

/**
 * For a protected stage: the approvals this change needs by the stage's rules
 * (judged against its history, issue 28). When it needs any, opens a
 * promotion request (or returns the requester's identical pending one)
 * instead of moving; null when the stage is not protected or the rules ask
 * for no approval.
 */
export async function openRequestIfProtected(
  tx: Tx,
  actor: AuditActor | null,
  move: GuardedMove,
  current: { revisionId: string; pk: string } | null,
  now: Date,
  /** Issue 29: the requirement judgeMove already computed (else it is judged here). */
  prejudged?: MoveJudged | null,
): Promise<PromotionRequestDto | null> {
  const judged = prejudged !== undefined ? prejudged : await moveRequirement(tx, move.group, move.policy, current, move.to);
  if (!judged) return null;
  const { requirement, diff } = judged;
  if (requirement.approvalsRequired <= 0) return null;
  // Issue 47: the automatic promotion (a system actor) asks like a person would; no other system actor opens requests.
  const automation = actor?.kind === 'system' && actor.via === AUTO_PROMOTE_VIA;
  if (!actor?.userId && !automation) throw forbidden(`'${move.group.name}' requires approval; only a signed-in user can request a change.`);

  const fromRevisionId = current?.revisionId ?? null;
  const toRevisionId = move.to?.revisionId ?? null;
  // A retried push or a double click: the same person's identical open request is answered again, not duplicated.
  const same = await tx.promotionRequest.findFirst({
    where: { groupId: move.group.id, policyId: move.policy.id, status: 'pending', fromRevisionId, toRevisionId, requesterId: actor!.userId, requesterEmail: actor!.email, expiresAt: { gt: now } },
    select: REQUEST_SELECT,
  });
  if (same) return toRequestDto(same, now);

  const [nodes, stale] = await Promise.all([
    tx.node.count({ where: { groupId: move.group.id, policyId: move.policy.id } }),
    tx.node.count({ where: { groupId: move.group.id, policyId: move.policy.id, NOT: { revisionApplied: fromRevisionId ?? '' } } }),
  ]);
  const created = await tx.promotionRequest.create({
    data: {
      groupId: move.group.id,
      policyId: move.policy.id,
      groupName: move.group.name,
      policyName: move.policy.name,
      kind: move.kind,
      fromRevisionId,
      toRevisionId,
      toRevisionPk: move.to?.pk ?? null,
      status: 'pending',
      approvalsRequired: requirement.approvalsRequired,
      reasons: JSON.stringify(requirement.reasons),
      diffSummary: JSON.stringify(summarize(diff)),
      blastRadius: JSON.stringify({ nodes, stale: fromRevisionId ? stale : 0 }),
      origin: JSON.stringify(move.origin ?? {}),
      reason: move.reason ?? null,
      artifactsOverride: move.overrideReason?.trim() || null,
      freezeOverride: move.freezeOverride?.reason ?? null,
      requesterId: actor!.userId,
      requesterEmail: actor!.email,
      createdAt: now,
      updatedAt: now,
      expiresAt: new Date(now.getTime() + requestTtlMs()),
    },
    select: REQUEST_SELECT,
  });
  const dto = toRequestDto(created, now);
  await audit(tx, actor, {
    action: 'request.open',
    targetType: 'pointer',
    target: `${move.group.name}/${move.policy.name}`,
    groupName: move.group.name,
    policyName: move.policy.name,
    before: { revision_id: fromRevisionId },
    after: { revision_id: toRevisionId, request: created.id, kind: move.kind, approvals_required: requirement.approvalsRequired, reasons: requirement.reasons.map((r) => r.message), ...(move.freezeOverride ? { freeze_override: move.freezeOverride } : {}) },
    reason: move.reason,
    requestId: move.requestId,
  });
  // Issue 43: what approval would do, in words: a ring request starts a ring (its blast radius), it does not move the stage.
  const asks =
    move.kind === 'ring'
      ? `asks to roll ${move.policy.name} out in rings in ${move.group.name}: approval ${requestEffect(created).onApproval} (${move.group.name} runs ${shortRev(fromRevisionId)} until the ring's last step)`
      : `asks to move ${move.policy.name} ${shortRev(fromRevisionId)} → ${shortRev(toRevisionId)} into ${move.group.name}`;
  await emitEvent(tx, 'request.opened', `${actor.email} ${asks}: ${requirement.approvalsRequired} approval(s) needed (${requirement.reasons[0]?.message}). ${requestLink(created.id)}`, { request: dto }, {
    at: now,
    message: requestMessage(
      created,
      move.kind === 'ring' ? `Approval needed: a ringed rollout of ${move.policy.name} in ${move.group.name}` : `Approval needed: ${move.policy.name} into ${move.group.name}`,
      requirement.reasons.length ? [['Why', requirement.reasons.map((r) => r.message).join('; ')]] : [],
    ),
  });
  return dto;
}
