/**
 * Promotion requests (issue 15): reading, approving, rejecting, withdrawing.
 * A request is applied through `movePointer` with the revision it was made
 * against; when the stage moved meanwhile it becomes `outdated` and nothing
 * moves. Every status change is a compare-and-swap on `status = 'pending'`,
 * and an approval first takes the request row's write lock (a no-op
 * conditional update), so concurrent approvals are counted one after the
 * other and apply the request exactly once, on SQLite and on PostgreSQL.
 *
 * Approvers: per-stage grants to users or teams (`StageApprover`), separate
 * from view/promote/manage. Administrators approve only when granted like
 * anyone else; the requester never approves their own request.
 */
import { db, type Tx } from '@/lib/db/client';
import { assertCan, can, type Access } from '@/lib/auth/permissions';
import { conflict, forbidden, notFound } from '@/lib/errors';
import {
  audit,
  emitEvent,
  movePointer,
  applyJointRequest,
  freezeOverrideGiver,
  JOINT_REQUEST_KIND,
  jointMembers,
  staleJointMember,
  moveRequirement,
  outdateRequest,
  sweepOutdatedRequests,
  effectiveStatus,
  REQUEST_SELECT,
  REQUEST_STATUSES,
  requestLink,
  requestMessage,
  requestUrl,
  toRequestDto,
  type PromotionRequestDto,
  type RequestRow,
} from '@/lib/services/funnel';
import type { ApproveRequestInput, RejectRequestInput, WithdrawRequestInput } from '@/lib/validation/promotion-requests';
import { activateRingForRequest, RING_REQUEST_KIND } from '@/lib/services/rings';

export type { PromotionRequestDto, PromotionDecisionDto, PromotionRequestStatus, RequestDiffSummary } from '@/lib/services/funnel';
export { REQUEST_STATUSES, requestLink, requestPath, requestUrl } from '@/lib/services/funnel';

const short = (r: string | null) => (r ? r.slice(0, 10) : 'nothing');

/** Principals ("user:<id>", "team:<id>") an access holds, for approver grants. */
export function principalsOf(access: Access): string[] {
  return [`user:${access.userId}`, ...[...access.teamIds].map((t) => `team:${t}`)];
}

/** Whether the user holds an approver grant on the stage (directly or through a team): `request.decide`. Admins only when granted. */
export async function isApprover(tx: Tx, access: Access, groupId: string): Promise<boolean> {
  const approvers = (await tx.stageApprover.findMany({ where: { groupId }, select: { principal: true } })).map((a) => a.principal);
  return can(access, 'request.decide', { approvers });
}

/**
 * Issue 28: approvals are re-checked, not trusted from when they were given:
 * an approval counts only while its author is an active user and still an
 * approver of the stage (directly or through a team). Returns, by user id,
 * why an approval no longer counts.
 */
export async function approvalStanding(tx: Tx, groupId: string, groupName: string, userIds: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (!userIds.length) return out;
  const [users, grants] = await Promise.all([
    tx.user.findMany({ where: { id: { in: [...userIds] } }, select: { id: true, active: true, memberships: { select: { teamId: true } } } }),
    tx.stageApprover.findMany({ where: { groupId }, select: { principal: true } }),
  ]);
  const granted = new Set(grants.map((g) => g.principal));
  const byId = new Map(users.map((u) => [u.id, u]));
  for (const id of userIds) {
    const u = byId.get(id);
    if (!u) out.set(id, 'the account was deleted');
    else if (!u.active) out.set(id, 'the account was deactivated');
    else if (!granted.has(`user:${u.id}`) && !u.memberships.some((m) => granted.has(`team:${m.teamId}`))) out.set(id, `no longer an approver of '${groupName}'`);
  }
  return out;
}

/** The standing of a pending request's approvals (empty for decided requests: they show what was decided). */
async function standingOf(tx: Tx, row: RequestRow & { groupId: string }, now: Date): Promise<Map<string, string>> {
  if (effectiveStatus(row, now) !== 'pending') return new Map();
  return approvalStanding(tx, row.groupId, row.groupName, row.approvals.filter((a) => a.decision === 'approve').map((a) => a.userId));
}

function withViewer(dto: PromotionRequestDto, access: Access, row: RequestRow, approver: boolean): PromotionRequestDto {
  const pending = dto.status === 'pending';
  const isRequester = row.requesterId === access.userId;
  const decided = row.approvals.some((a) => a.userId === access.userId);
  const mayAct = pending && approver && !isRequester && !decided;
  return {
    ...dto,
    viewer: {
      can_approve: mayAct,
      can_reject: mayAct,
      can_withdraw: pending && can(access, 'request.withdraw', { userId: row.requesterId ?? undefined, stage: row.groupName }),
      is_approver: approver,
      is_requester: isRequester,
      already_decided: decided,
    },
  };
}

/** Pending requests past their expiry are written down as expired (lazy expiry: on read and on decision, no timer). */
async function expireStale(tx: Tx, now: Date, where: Record<string, unknown> = {}) {
  await tx.promotionRequest.updateMany({ where: { ...where, status: 'pending', expiresAt: { lte: now } }, data: { status: 'expired', updatedAt: now, decidedAt: now } });
}

/** A listing's filter (read side: the API's query contract and the requests page validate it at their edge). */
export interface ListRequestsInput {
  stage?: string;
  policy?: string;
  status?: (typeof REQUEST_STATUSES)[number];
  /** `mine`: asked by me; `to_approve`: pending, I may approve and have not decided yet. */
  scope?: 'all' | 'mine' | 'to_approve';
  limit?: number;
}

/** Requests in the stages the caller may view, newest first. */
export async function listPromotionRequests(access: Access, input: ListRequestsInput = {}): Promise<PromotionRequestDto[]> {
  const now = new Date();
  const client = db();
  await expireStale(client, now);
  const stages = (await client.policyGroup.findMany({ select: { id: true, name: true } })).filter((g) => can(access, 'stage.view', { stage: g.name }));
  // Issue 43: a pending request whose stage moved on is outdated, here as on its page and the board.
  await client.$transaction((tx) => sweepOutdatedRequests(tx, now, { groupId: { in: stages.map((g) => g.id) } }));
  if (input.stage && !stages.some((s) => s.name === input.stage)) return [];
  const approverOf = new Set((await client.stageApprover.findMany({ where: { principal: { in: principalsOf(access) } }, select: { groupId: true } })).map((a) => a.groupId));
  const scope = input.scope ?? 'all';
  const groupIds = stages.filter((s) => (!input.stage || s.name === input.stage) && (scope !== 'to_approve' || approverOf.has(s.id))).map((s) => s.id);
  const rows = await client.promotionRequest.findMany({
    where: {
      groupId: { in: groupIds },
      ...(input.policy ? { policyName: input.policy } : {}),
      ...(input.status ? { status: input.status } : scope === 'to_approve' ? { status: 'pending' } : {}),
      ...(scope === 'mine' ? { requesterId: access.userId } : {}),
      ...(scope === 'to_approve' ? { NOT: { requesterId: access.userId }, approvals: { none: { userId: access.userId } } } : {}),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: input.limit ?? 200,
    select: { ...REQUEST_SELECT, groupId: true },
  });
  const out: PromotionRequestDto[] = [];
  for (const r of rows) out.push(withViewer(toRequestDto(r, now, await standingOf(client, r, now)), access, r, approverOf.has(r.groupId)));
  return out;
}

/** One request; 404 when it does not exist or its stage is hidden from the caller. */
export async function getPromotionRequest(access: Access, id: string): Promise<PromotionRequestDto> {
  const now = new Date();
  const client = db();
  await expireStale(client, now, { id });
  await client.$transaction((tx) => sweepOutdatedRequests(tx, now, { id }));
  const row = await client.promotionRequest.findUnique({ where: { id }, select: { ...REQUEST_SELECT, groupId: true } });
  if (!row || !can(access, 'stage.view', { stage: row.groupName })) throw notFound(`Cannot find promotion request '${id}'`);
  return withViewer(toRequestDto(row, now, await standingOf(client, row, now)), access, row, await isApprover(client, access, row.groupId));
}

/**
 * Takes the request's row lock (a conditional no-op write) and loads it.
 * Refuses when it does not exist, is hidden, or is no longer pending
 * (expired ones are written down as such, in their own transaction).
 */
async function lockPending(tx: Tx, access: Access, id: string, now: Date) {
  const { count } = await tx.promotionRequest.updateMany({ where: { id, status: 'pending', expiresAt: { gt: now } }, data: { updatedAt: now } });
  const row = await tx.promotionRequest.findUnique({ where: { id }, select: { ...REQUEST_SELECT, groupId: true, policyId: true, toRevisionPk: true } });
  if (!row || !can(access, 'stage.view', { stage: row.groupName })) throw notFound(`Cannot find promotion request '${id}'`);
  if (count !== 1) {
    const status = effectiveStatus(row, now);
    throw conflict(
      status === 'expired'
        ? `This request expired on ${row.expiresAt.toISOString()} without its approvals; ask again if the change is still wanted.`
        : `This request is ${status}${row.decidedByEmail ? ` (by ${row.decidedByEmail})` : ''}; it can no longer be decided.`,
      { status },
    );
  }
  return row;
}

/** The inputs' one definition (parsed at the caller's edge: the actions, the API contracts); the rules below need the database. */
export { ZApproveRequest, ZRejectRequest, ZWithdrawRequest } from '@/lib/validation/promotion-requests';
export type { ApproveRequestInput, RejectRequestInput, WithdrawRequestInput } from '@/lib/validation/promotion-requests';

async function assertMayDecide(tx: Tx, access: Access, row: { requesterId: string | null; groupId: string; groupName: string }) {
  if (row.requesterId === access.userId) throw forbidden('You asked for this change: someone else must approve or reject it.');
  if (!(await isApprover(tx, access, row.groupId))) throw forbidden(`You may not approve changes into stage '${row.groupName}': only its approvers may.`);
}

async function recordDecision(tx: Tx, access: Access, requestId: string, decision: 'approve' | 'reject', comment: string | undefined, now: Date) {
  try {
    await tx.promotionApproval.create({ data: { requestId, userId: access.userId, userEmail: access.email, decision, comment: comment || null, createdAt: now } });
  } catch (e) {
    if ((e as { code?: string }).code === 'P2002') throw conflict('You already decided on this request.');
    throw e;
  }
}

/**
 * Approves; when the approvals reach the number required, applies the
 * request (or marks it outdated when the stage moved since it was made).
 * Returns the request as it stands afterwards.
 */
export async function approvePromotionRequest(access: Access, input: ApproveRequestInput): Promise<PromotionRequestDto> {
  const now = new Date();
  await db().$transaction((tx) => expireStale(tx, now, { id: input.id }));
  const outdated = await db().$transaction(async (tx) => {
    const row = await lockPending(tx, access, input.id, now);
    await assertMayDecide(tx, access, row);
    // Issue 29: a request whose stage has moved can no longer apply: it is outdated, and this approval is not recorded.
    const current = await tx.groupPolicy.findUnique({ where: { groupId_policyId: { groupId: row.groupId, policyId: row.policyId } }, select: { revision: { select: { revisionId: true } } } });
    const currentRevisionId = current?.revision.revisionId ?? null;
    if (currentRevisionId !== row.fromRevisionId) {
      await markOutdated(tx, access, row, currentRevisionId, input.requestId, now);
      return { current: currentRevisionId, from: row.fromRevisionId, stage: row.groupName };
    }
    // Issue 48: a joint request is outdated as a whole when any member's stage moved.
    const stale = row.kind === JOINT_REQUEST_KIND ? await staleJointMember(tx, row) : null;
    if (stale) {
      await markOutdated(tx, access, { ...row, policyName: stale.policy, fromRevisionId: stale.from }, stale.current, input.requestId, now);
      return { current: stale.current, from: stale.from, stage: row.groupName };
    }
    await recordDecision(tx, access, row.id, 'approve', input.comment, now);
    const all = await tx.promotionApproval.findMany({ where: { requestId: row.id, decision: 'approve' }, orderBy: { createdAt: 'asc' }, select: { userId: true, userEmail: true } });
    // Issue 28: only approvals of people still active and still approvers of the stage count.
    const standing = await approvalStanding(tx, row.groupId, row.groupName, all.map((a) => a.userId));
    const approvals = all.filter((a) => !standing.has(a.userId));
    await audit(tx, access, {
      action: 'request.approve',
      targetType: 'pointer',
      target: `${row.groupName}/${row.policyName}`,
      groupName: row.groupName,
      policyName: row.policyName,
      after: { request: row.id, approvals: approvals.length, approvals_required: row.approvalsRequired, ...(standing.size ? { not_counted: Object.fromEntries([...standing].map(([id, why]) => [all.find((a) => a.userId === id)!.userEmail, why])) } : {}) },
      reason: input.comment,
      requestId: input.requestId,
    });
    const what = row.kind === 'ring' ? `the ringed rollout of ${row.policyName} in ${row.groupName}` : `${row.policyName} into ${row.groupName}`;
    await emitEvent(tx, 'request.approved', `${access.email} approved ${what} (${approvals.length} of ${row.approvalsRequired}). ${requestLink(row.id)}`, { request_id: row.id, stage: row.groupName, policy: row.policyName, approver: access.email, comment: input.comment ?? null, approvals: approvals.length, approvals_required: row.approvalsRequired }, {
      at: now,
      message: requestMessage(row, `Approved (${approvals.length} of ${row.approvalsRequired}): ${row.policyName} into ${row.groupName}`, [['Approved by', access.email], ...(input.comment ? ([['Comment', input.comment]] as [string, string][]) : [])]),
    });
    if (approvals.length >= row.approvalsRequired) await applyRequest(tx, access, row, approvals.map((a) => a.userEmail), input.overrideReason, input.requestId, now);
    return null;
  });
  if (outdated) {
    throw conflict(`'${outdated.stage}' has changed since this request was made (it now runs ${short(outdated.current)}, not ${short(outdated.from)}): the request is outdated and your approval was not recorded; nothing moved. Ask again to judge the change against what runs now.`, {
      status: 'outdated',
      current_revision_id: outdated.current,
    });
  }
  return getPromotionRequest(access, input.id);
}

type LockedRow = Awaited<ReturnType<typeof lockPending>>;

/** The stage no longer runs what the request was made against: it is outdated, nothing moves (audited, announced). */
async function markOutdated(tx: Tx, access: Access, row: LockedRow, currentRevisionId: string | null, requestId: string | undefined, now: Date) {
  if (!(await outdateRequest(tx, access, row, currentRevisionId, requestId, now))) throw conflict('This request was decided concurrently; refresh.');
}

/** Applies an approved request through movePointer, or marks it outdated when the stage no longer runs what it was made against. */
async function applyRequest(tx: Tx, access: Access, row: LockedRow, approvers: string[], overrideReason: string | undefined, requestId: string | undefined, now: Date) {
  const current = await tx.groupPolicy.findUnique({ where: { groupId_policyId: { groupId: row.groupId, policyId: row.policyId } }, select: { revisionPk: true, revision: { select: { revisionId: true } } } });
  const currentRevisionId = current?.revision.revisionId ?? null;
  const data = { request_id: row.id, stage: row.groupName, policy: row.policyName, from_revision_id: row.fromRevisionId, to_revision_id: row.toRevisionId };
  if (currentRevisionId !== row.fromRevisionId) return markOutdated(tx, access, row, currentRevisionId, requestId, now);
  if (row.kind === JOINT_REQUEST_KIND) {
    // Issue 48: every member moves, or (one member's stage moved) none does and the request is outdated.
    const stale = await staleJointMember(tx, row);
    if (stale) return markOutdated(tx, access, { ...row, policyName: stale.policy, fromRevisionId: stale.from }, stale.current, requestId, now);
    return applyJointRequest(tx, access, row, approvers, overrideReason, requestId, now);
  }
  // Issue 28: the change is judged again as it applies (the stage's history or rules may have changed since it was
  // asked for); when it now needs more approvals than it has, the request says so and waits for them.
  const toPk = row.toRevisionPk;
  const judged = await moveRequirement(
    tx,
    { id: row.groupId, name: row.groupName },
    { id: row.policyId, name: row.policyName },
    current && currentRevisionId ? { pk: current.revisionPk, revisionId: currentRevisionId } : null,
    row.toRevisionId && toPk ? { pk: toPk, revisionId: row.toRevisionId } : null,
  );
  const needed = judged?.requirement.approvalsRequired ?? 0;
  if (needed > approvers.length && needed > row.approvalsRequired) {
    await tx.promotionRequest.update({ where: { id: row.id }, data: { approvalsRequired: needed, reasons: JSON.stringify(judged!.requirement.reasons), updatedAt: now } });
    await audit(tx, access, {
      action: 'request.rejudged',
      targetType: 'pointer',
      target: `${row.groupName}/${row.policyName}`,
      groupName: row.groupName,
      policyName: row.policyName,
      before: { approvals_required: row.approvalsRequired },
      after: { request: row.id, approvals_required: needed, reasons: judged!.requirement.reasons.map((r) => r.message) },
      requestId,
    });
    return;
  }
  const { count } = await tx.promotionRequest.updateMany({ where: { id: row.id, status: 'pending' }, data: { status: 'applied', decidedAt: now, decidedByEmail: access.email, updatedAt: now } });
  if (count !== 1) throw conflict('This request was decided concurrently; refresh.');
  if (row.toRevisionId && toPk && !(await tx.policyRevision.findUnique({ where: { id: toPk }, select: { id: true } }))) {
    throw conflict(`Revision ${short(row.toRevisionId)} of '${row.policyName}' was deleted since the request was made; it cannot be applied.`);
  }
  if (row.kind === RING_REQUEST_KIND) {
    // Issue 30: an approved ring start starts the ring's first step; the stage's pointer moves at its last step.
    const ring = await activateRingForRequest(tx, { kind: 'system', userId: row.requesterId, email: row.requesterEmail, via: `promotion-request:${row.id}` }, row.id, approvers, now);
    // Issue 43: the words say what happened: a ring started, the stage still runs what it ran.
    await emitEvent(tx, 'request.applied', `Approved by ${approvers.join(', ')}: ${ring.words} (${row.policyName}). ${requestLink(row.id)}`, { ...data, approved_by: approvers, ring: ring.rolloutId, effect: ring.words }, {
      at: now,
      message: requestMessage(row, `Ring started: ${row.policyName} in ${row.groupName} still runs ${short(row.fromRevisionId)}`, [['Approved by', approvers.join(', ')]], 'applied'),
    });
    return;
  }
  // The freeze override: one given now by an approver who manages the stage, or the one a manager gave with the request.
  const freezeReason = overrideReason || row.freezeOverride || null;
  const authorised = overrideReason ? can(access, 'stage.manage', { stage: row.groupName }) : !!row.freezeOverride;
  const moved = await movePointer(
    tx,
    { kind: 'system', userId: row.requesterId, email: row.requesterEmail, via: `promotion-request:${row.id}` },
    {
      group: { id: row.groupId, name: row.groupName },
      policy: { id: row.policyId, name: row.policyName },
      to: row.toRevisionId && toPk ? { pk: toPk, revisionId: row.toRevisionId } : null,
      kind: row.kind as 'promote',
      reason: row.reason,
      expectedRevisionId: row.fromRevisionId,
      overrideReason: row.artifactsOverride,
      freezeOverrideReason: freezeReason,
      freezeOverrideAuthorised: authorised,
      freezeOverrideBy: freezeOverrideGiver(access, overrideReason, row),
      approvedRequest: { id: row.id, approvers },
      requestId,
      at: now,
    },
  );
  await tx.promotionRequest.update({ where: { id: row.id }, data: { appliedAuditId: moved.auditId } });
  if (moved.freezeOverride && overrideReason) {
    // Issue 29: the approver's own audit entry for the override they gave (the move's entry names them too).
    await audit(tx, access, {
      action: 'freeze.override',
      targetType: 'pointer',
      target: `${row.groupName}/${row.policyName}`,
      groupName: row.groupName,
      policyName: row.policyName,
      after: { request: row.id, freeze: moved.freezeOverride.window, applied_audit_id: moved.auditId },
      reason: overrideReason,
      requestId,
    });
  }
  await emitEvent(tx, 'request.applied', `${row.policyName} ${short(row.fromRevisionId)} → ${short(row.toRevisionId)} now runs in ${row.groupName} (approved by ${approvers.join(', ')}). ${requestLink(row.id)}`, { ...data, approved_by: approvers, audit_id: moved.auditId }, {
    at: now,
    message: requestMessage(row, `Applied: ${row.policyName} now runs ${short(row.toRevisionId)} in ${row.groupName}`, [['Approved by', approvers.join(', ')]], 'applied'),
  });
}

/** Rejects (with a comment): the request is closed, nothing moves. */
export async function rejectPromotionRequest(access: Access, input: RejectRequestInput): Promise<PromotionRequestDto> {
  const now = new Date();
  await db().$transaction((tx) => expireStale(tx, now, { id: input.id }));
  await db().$transaction(async (tx) => {
    const row = await lockPending(tx, access, input.id, now);
    await assertMayDecide(tx, access, row);
    await recordDecision(tx, access, row.id, 'reject', input.comment, now);
    const { count } = await tx.promotionRequest.updateMany({ where: { id: row.id, status: 'pending' }, data: { status: 'rejected', decidedAt: now, decidedByEmail: access.email, updatedAt: now } });
    if (count !== 1) throw conflict('This request was decided concurrently; refresh.');
    await audit(tx, access, { action: 'request.reject', targetType: 'pointer', target: `${row.groupName}/${row.policyName}`, groupName: row.groupName, policyName: row.policyName, after: { request: row.id }, reason: input.comment, requestId: input.requestId });
    await emitEvent(tx, 'request.rejected', `${access.email} rejected ${row.policyName} into ${row.groupName}: ${input.comment}. ${requestLink(row.id)}`, { request_id: row.id, stage: row.groupName, policy: row.policyName, rejected_by: access.email, comment: input.comment }, {
      at: now,
      message: requestMessage(row, `Rejected: ${row.policyName} into ${row.groupName}`, [['Rejected by', access.email], ['Comment', input.comment]], null),
    });
  });
  return getPromotionRequest(access, input.id);
}

/** Withdraws a pending request: its requester, or someone who manages the stage. */
export async function withdrawPromotionRequest(access: Access, input: WithdrawRequestInput): Promise<PromotionRequestDto> {
  const now = new Date();
  await db().$transaction((tx) => expireStale(tx, now, { id: input.id }));
  await db().$transaction(async (tx) => {
    const row = await lockPending(tx, access, input.id, now);
    assertCan(access, 'request.withdraw', { userId: row.requesterId ?? undefined, stage: row.groupName });
    const { count } = await tx.promotionRequest.updateMany({ where: { id: row.id, status: 'pending' }, data: { status: 'withdrawn', decidedAt: now, decidedByEmail: access.email, updatedAt: now } });
    if (count !== 1) throw conflict('This request was decided concurrently; refresh.');
    await audit(tx, access, { action: 'request.withdraw', targetType: 'pointer', target: `${row.groupName}/${row.policyName}`, groupName: row.groupName, policyName: row.policyName, after: { request: row.id }, requestId: input.requestId });
  });
  return getPromotionRequest(access, input.id);
}

/** Pending requests per board cell ("stage/policy"), for the badges. */
export async function pendingRequestsByCell(access: Access): Promise<Record<string, { id: string; approvals: number; approvals_required: number; to_revision_id: string | null; url: string }[]>> {
  const now = new Date();
  await db().$transaction((tx) => sweepOutdatedRequests(tx, now));
  const rows = await db().promotionRequest.findMany({
    where: { status: 'pending', expiresAt: { gt: now } },
    orderBy: { createdAt: 'asc' },
    select: { id: true, groupName: true, policyName: true, approvalsRequired: true, toRevisionId: true, members: true, _count: { select: { approvals: { where: { decision: 'approve' } } } } },
  });
  const out: Record<string, { id: string; approvals: number; approvals_required: number; to_revision_id: string | null; url: string }[]> = {};
  for (const r of rows) {
    if (!can(access, 'stage.view', { stage: r.groupName })) continue;
    // Issue 48: a joint request is pending on every member's cell.
    const cells = r.members ? jointMembers(r).map((m) => [m.policy, m.to_revision_id] as const) : [[r.policyName, r.toRevisionId] as const];
    for (const [policy, to] of cells) (out[`${r.groupName}/${policy}`] ??= []).push({ id: r.id, approvals: r._count.approvals, approvals_required: r.approvalsRequired, to_revision_id: to, url: requestUrl(r.id) });
  }
  return out;
}
