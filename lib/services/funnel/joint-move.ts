/**
 * Issue 48: several pointers of one stage moved together, all or nothing, through the one guard. Each member
 * is judged as `movePointer` judges it (judgeMove: bad mark, freeze, gate, missing artifacts, approvals); the
 * approvals are sized by the combined change (the rules take the strongest finding, so the most any member
 * needs, with every member's reasons). On a protected stage that asks for approvals, ONE promotion request
 * covers every member (kind `together`, the members on the row) and nothing moves; its last approval applies
 * them all in one transaction, and it is outdated when any member's stage moved meanwhile. Otherwise every
 * member moves through movePointer in one transaction, in one fixed order (by policy name: no deadlock
 * between two joint moves), each checked against what the caller saw.
 */
import type { Tx } from '@/lib/db/client';
import { can, type Access } from '@/lib/auth/permissions';
import type { ApprovalReason, LockDiff, PolicyLock } from '@/lib/domain';
import { conflict, forbidden } from '@/lib/errors';
import type { JointMemberDto, JointMoveDto } from '@/lib/types/dependents';
import { audit, type AuditActor } from './audit';
import { badRevisionError, resolveFreeze, type MoveJudged } from './guard';
import { resolveVerdict } from './verdict';
import { judgeMove, type PointerKind } from './move-judge';
import { guardPreview } from './move-preview';
import { emitEvent } from './outbox';
import { assertExpected, movePointer, type MovePointerResult } from './pointer';
import { REQUEST_SELECT, requestLink, requestMessage, requestTtlMs, toRequestDto, type PromotionRequestDto, type RequestDiffSummary } from './request-dto';
import { resolveGate } from './rollout-gate';

/** The kind of a promotion request that moves several policies together (issue 48). */
export const JOINT_REQUEST_KIND = 'together';

export interface JointMember {
  policy: { id: string; name: string };
  to: { pk: string; revisionId: string };
  /** The included policy itself, or one of its dependents (what the dialogs say). */
  role: 'included' | 'dependent';
}

/** A member as the request row keeps it. */
interface StoredMember {
  policy_id: string;
  policy: string;
  kind: PointerKind;
  from_revision_id: string | null;
  to_revision_id: string;
  to_revision_pk: string;
}

const byName = (a: { policy: { name: string } }, b: { policy: { name: string } }) => (a.policy.name < b.policy.name ? -1 : a.policy.name > b.policy.name ? 1 : 0);
const plural = (n: number) => `${n} approval${n === 1 ? '' : 's'}`;
const short = (r: string | null) => (r ? r.slice(0, 10) : 'nothing');

/** Every member's reasons, named by policy, strongest first (each message once). */
function jointReasons(members: { name: string; reasons: ApprovalReason[] }[]): ApprovalReason[] {
  const seen = new Set<string>();
  const out: ApprovalReason[] = [];
  for (const m of members) {
    for (const r of m.reasons) {
      const message = `${m.name}: ${r.message}`;
      if (seen.has(message)) continue;
      seen.add(message);
      out.push({ ...r, message });
    }
  }
  return out.sort((a, b) => b.approvals - a.approvals);
}

/** The request's change summary: every member's changes, named by policy. */
function jointSummary(diffs: { name: string; diff: LockDiff }[]): RequestDiffSummary {
  const LIMIT = 200;
  const cookbooks = diffs.flatMap(({ name, diff }) => diff.cookbooks.map((c) => ({ name: `${name}: ${c.name}`, kind: c.kind, ...(c.level ? { level: c.level } : {}), ...(c.from ? { from: c.from.version } : {}), ...(c.to ? { to: c.to.version } : {}) })));
  const runList = diffs.flatMap(({ name, diff }) => diff.runList.map((c) => ({ kind: c.kind, item: `${name}: ${c.item}` })));
  const attributes = diffs.flatMap(({ name, diff }) => diff.attributes.map((a) => ({ kind: a.kind, precedence: a.precedence, path: `${name}: ${a.path.join('.')}` })));
  return {
    summary: null,
    cookbooks: cookbooks.slice(0, LIMIT),
    run_list: runList.slice(0, LIMIT),
    attributes: attributes.slice(0, LIMIT),
    truncated: cookbooks.length > LIMIT || runList.length > LIMIT || attributes.length > LIMIT,
  };
}

/**
 * The guard's dry run of a joint move (nothing is written): each member's answer (guardPreview, what
 * movePointer would do with it alone) and the joint one: blocked when any member is, a request sized by
 * the most any member needs, else a move.
 */
export async function previewJointMove(tx: Tx, access: Access, group: { id: string; name: string }, members: (JointMember & { toDocument?: PolicyLock })[], kind: PointerKind): Promise<JointMoveDto> {
  const out: JointMemberDto[] = [];
  for (const m of [...members].sort(byName)) {
    const preview = await guardPreview(tx, access, { group, policy: m.policy, to: m.to, toDocument: m.toDocument, kind });
    out.push({ policy: m.policy.name, role: m.role, from_revision_id: preview.from_revision_id, to_revision_id: m.to.revisionId, preview });
  }
  const moving = out.filter((m) => m.preview.outcome !== 'unchanged');
  const blocked = moving.flatMap((m) => m.preview.blocked_by.map((b) => `${m.policy}: ${b}`));
  const needs = [...new Set(moving.flatMap((m) => m.preview.needs))];
  const approvals = Math.max(0, ...moving.map((m) => m.preview.approvals_required));
  const reasons = jointReasons(moving.map((m) => ({ name: m.policy, reasons: m.preview.reasons as ApprovalReason[] })));
  const n = moving.length;
  const what = `${n} polic${n === 1 ? 'y' : 'ies'}`;
  const base = { stage: group.name, approvals_required: approvals, reasons, blocked_by: blocked, needs, members: out };
  if (!n) return { ...base, outcome: 'unchanged', action: 'Nothing to move', summary: `${group.name} already runs every one of these revisions.` };
  if (blocked.length) return { ...base, outcome: 'blocked', action: 'Cannot move', summary: `Nothing moves: ${blocked.join(' ')}` };
  const override = needs.includes('freeze_override_reason') || needs.includes('gate_override_reason') || needs.includes('verdict_override_reason') ? 'Override and ' : '';
  if (approvals > 0) {
    return { ...base, outcome: 'request', action: `${override}${override ? 'request' : 'Request'} ${plural(approvals)} for all ${what}`, summary: `Moving ${what} together into ${group.name} needs ${plural(approvals)} (${reasons[0]?.message ?? 'the stage asks for them'}): confirming opens one promotion request covering all of them; nothing moves until it is approved, then all move at once.` };
  }
  return { ...base, outcome: 'move', action: `${override ? 'Override and move' : 'Move'} all ${what} now`, summary: `${group.name} needs no approval for these changes: all ${what} move at once, or none does.` };
}

export interface JointMoveInput {
  group: { id: string; name: string };
  members: JointMember[];
  kind: PointerKind;
  /** What the caller saw in the stage, per policy name (a revision id, or null for none); a mismatch is a 409 for the whole move. */
  expected: Record<string, string | null>;
  reason?: string | null;
  overrideReason?: string | null;
  freezeOverrideReason?: string | null;
  gateOverrideReason?: string | null;
  /** Issues 43 and 41: a manager's written reason to move a member that failed in this stage before. */
  verdictOverrideReason?: string | null;
  origin?: Record<string, unknown>;
  requestId?: string | null;
  at?: Date;
}

export interface JointMoveResult {
  moved: (MovePointerResult & { policy: string })[];
  /** The stage asked for approvals: this one request covers every member; nothing moved. */
  request: PromotionRequestDto | null;
}

/** Moves every member or none (the caller's transaction), or opens one request covering them all. */
export async function moveTogether(tx: Tx, actor: AuditActor | null, input: JointMoveInput): Promise<JointMoveResult> {
  const { group } = input;
  const now = input.at ?? new Date();
  const members = [...input.members].sort(byName);
  const current = new Map<string, { revisionId: string; pk: string } | null>();
  for (const m of members) {
    const row = await tx.groupPolicy.findUnique({ where: { groupId_policyId: { groupId: group.id, policyId: m.policy.id } }, select: { revisionPk: true, revision: { select: { revisionId: true } } } });
    const cur = row ? { revisionId: row.revision.revisionId, pk: row.revisionPk } : null;
    if (!(m.policy.name in input.expected)) throw conflict(`'${m.policy.name}' has no expected revision: say what you saw in '${group.name}' (null for none).`);
    assertExpected(group.name, m.policy.name, cur?.revisionId ?? null, input.expected[m.policy.name]);
    current.set(m.policy.name, cur);
  }
  const moving = members.filter((m) => current.get(m.policy.name)?.revisionId !== m.to.revisionId);
  if (!moving.length) return { moved: [], request: null };

  // The guard, member by member, before anything moves (the same reads movePointer enforces).
  const judged: { member: JointMember; approval: MoveJudged | null }[] = [];
  let freezeOverride: ReturnType<typeof resolveFreeze> = null;
  let gateReason: string | null = null;
  let verdict: { reason: string; by: string } | null = null;
  const missing: string[] = [];
  for (const m of moving) {
    const j = await judgeMove(tx, { group, policy: m.policy, current: current.get(m.policy.name) ?? null, to: m.to, kind: input.kind, now });
    if (j.bad) throw badRevisionError(j.bad);
    freezeOverride = resolveFreeze(group, j.freeze, actor, input.freezeOverrideReason) ?? freezeOverride;
    const gate = await resolveGate(tx, group, m.policy, j.gate, actor, input.gateOverrideReason);
    if (gate) gateReason = gate.reason;
    const v = await resolveVerdict(tx, group, m.policy, j.verdicts.here, actor, input.verdictOverrideReason);
    if (v) verdict = { reason: v.reason, by: v.by };
    for (const x of j.missingArtifacts ?? []) missing.push(`${m.policy.name}: ${x}`);
    judged.push({ member: m, approval: j.approval });
  }
  if (missing.length && !input.overrideReason?.trim()) {
    throw conflict(`'${group.name}' requires every cookbook on the server, and ${missing.length} are missing: ${missing.join(', ')}. Upload them (chef push), or give an override reason.`, { missing_artifacts: missing });
  }
  const approvals = Math.max(0, ...judged.map((j) => j.approval?.requirement.approvalsRequired ?? 0));
  if (approvals > 0) {
    const origin = { ...input.origin, ...(gateReason ? { gate_override: { reason: gateReason, by: actor?.email ?? null } } : {}), ...(verdict ? { verdict_override: verdict } : {}) };
    const request = await openJointRequest(tx, actor, { ...input, origin, members: moving }, current, judged, approvals, freezeOverride?.reason ?? null, now);
    return { moved: [], request };
  }
  const moved: JointMoveResult['moved'] = [];
  for (const m of moving) {
    const r = await movePointer(tx, actor, {
      group,
      policy: m.policy,
      to: m.to,
      kind: input.kind,
      reason: input.reason,
      expectedRevisionId: current.get(m.policy.name)?.revisionId ?? null,
      overrideReason: input.overrideReason,
      freezeOverrideReason: input.freezeOverrideReason,
      gateOverrideReason: input.gateOverrideReason,
      verdictOverrideReason: input.verdictOverrideReason,
      origin: input.origin,
      requestId: input.requestId,
      at: now,
    });
    // Every member needed no approval on its own, so none opens a request here; if one did, nothing may move.
    if (r.request) throw conflict(`'${group.name}' asked for approvals while moving '${m.policy.name}'; nothing moved. Try again.`);
    moved.push({ ...r, policy: m.policy.name });
  }
  return { moved, request: null };
}

async function openJointRequest(
  tx: Tx,
  actor: AuditActor | null,
  input: JointMoveInput,
  current: Map<string, { revisionId: string; pk: string } | null>,
  judged: { member: JointMember; approval: MoveJudged | null }[],
  approvals: number,
  freezeOverride: string | null,
  now: Date,
): Promise<PromotionRequestDto> {
  if (!actor?.userId) throw forbidden(`'${input.group.name}' requires approval; only a signed-in user can request a change.`);
  // The included policy leads (the row's own policy); then the dependents by name.
  const ordered = [...input.members].sort((a, b) => (a.role === b.role ? byName(a, b) : a.role === 'included' ? -1 : 1));
  const stored: StoredMember[] = ordered.map((m) => ({ policy_id: m.policy.id, policy: m.policy.name, kind: input.kind, from_revision_id: current.get(m.policy.name)?.revisionId ?? null, to_revision_id: m.to.revisionId, to_revision_pk: m.to.pk }));
  const membersJson = JSON.stringify(stored);
  const lead = stored[0];
  const same = await tx.promotionRequest.findFirst({ where: { groupId: input.group.id, kind: JOINT_REQUEST_KIND, status: 'pending', requesterId: actor.userId, members: membersJson, expiresAt: { gt: now } }, select: REQUEST_SELECT });
  if (same) return toRequestDto(same, now);
  const ids = stored.map((m) => m.policy_id);
  const [nodes, onCurrent] = await Promise.all([
    tx.node.count({ where: { groupId: input.group.id, policyId: { in: ids } } }),
    Promise.all(stored.map((m) => (m.from_revision_id ? tx.node.count({ where: { groupId: input.group.id, policyId: m.policy_id, NOT: { revisionApplied: m.from_revision_id } } }) : 0))),
  ]);
  const reasons = jointReasons(judged.map((j) => ({ name: j.member.policy.name, reasons: j.approval?.requirement.reasons ?? [] })));
  const summary = jointSummary(judged.filter((j) => j.approval).map((j) => ({ name: j.member.policy.name, diff: j.approval!.diff })));
  const created = await tx.promotionRequest.create({
    data: {
      groupId: input.group.id,
      policyId: lead.policy_id,
      groupName: input.group.name,
      policyName: lead.policy,
      kind: JOINT_REQUEST_KIND,
      fromRevisionId: lead.from_revision_id,
      toRevisionId: lead.to_revision_id,
      toRevisionPk: lead.to_revision_pk,
      members: membersJson,
      status: 'pending',
      approvalsRequired: approvals,
      reasons: JSON.stringify(reasons),
      diffSummary: JSON.stringify(summary),
      blastRadius: JSON.stringify({ nodes, stale: onCurrent.reduce((a, b) => a + b, 0) }),
      origin: JSON.stringify(input.origin ?? {}),
      reason: input.reason ?? null,
      artifactsOverride: input.overrideReason?.trim() || null,
      freezeOverride,
      requesterId: actor.userId,
      requesterEmail: actor.email,
      createdAt: now,
      updatedAt: now,
      expiresAt: new Date(now.getTime() + requestTtlMs()),
    },
    select: REQUEST_SELECT,
  });
  const dto = toRequestDto(created, now);
  for (const m of stored) {
    await audit(tx, actor, {
      action: 'request.open',
      targetType: 'pointer',
      target: `${input.group.name}/${m.policy}`,
      groupName: input.group.name,
      policyName: m.policy,
      before: { revision_id: m.from_revision_id },
      after: { revision_id: m.to_revision_id, request: created.id, kind: m.kind, together_with: stored.filter((x) => x !== m).map((x) => x.policy), approvals_required: approvals, reasons: reasons.map((r) => r.message), ...(freezeOverride ? { freeze_override: freezeOverride } : {}) },
      reason: input.reason,
      requestId: input.requestId,
    });
  }
  const names = stored.map((m) => m.policy).join(', ');
  await emitEvent(tx, 'request.opened', `${actor.email} asks to move ${stored.length} policies together into ${input.group.name} (${names}): ${plural(approvals)} needed (${reasons[0]?.message}). ${requestLink(created.id)}`, { request: dto }, {
    at: now,
    message: requestMessage(created, `Approval needed: ${stored.length} policies together into ${input.group.name}`, [['Policies', names], ...(reasons.length ? ([['Why', reasons.map((r) => r.message).join('; ')]] as [string, string][]) : [])]),
  });
  return dto;
}

/** The members of a joint request row. */
export function jointMembers(row: { members?: string | null }): StoredMember[] {
  if (!row.members) return [];
  try {
    return JSON.parse(row.members) as StoredMember[];
  } catch {
    return [];
  }
}

/** The first member whose stage no longer runs what the request was made against (null: none): the whole request is outdated then. */
export async function staleJointMember(tx: Tx, row: { groupId: string; members?: string | null }): Promise<{ policy: string; from: string | null; current: string | null } | null> {
  for (const m of jointMembers(row)) {
    const cur = await tx.groupPolicy.findUnique({ where: { groupId_policyId: { groupId: row.groupId, policyId: m.policy_id } }, select: { revision: { select: { revisionId: true } } } });
    const now = cur?.revision.revisionId ?? null;
    if (now !== m.from_revision_id) return { policy: m.policy, from: m.from_revision_id, current: now };
  }
  return null;
}

/**
 * Applies an approved joint request (the caller checked that no member is stale): judged again as it applies
 * (a member needing more approvals than given keeps the request waiting), then every member moves in this
 * transaction through movePointer with the approval, or none does.
 */
export async function applyJointRequest(
  tx: Tx,
  access: Access,
  row: { id: string; groupId: string; groupName: string; policyName: string; kind: string; fromRevisionId: string | null; toRevisionId: string | null; approvalsRequired: number; requesterId: string | null; requesterEmail: string; diffSummary: string; origin: string; reason: string | null; freezeOverride: string | null; artifactsOverride: string | null; members?: string | null },
  approvers: string[],
  overrideReason: string | undefined,
  requestId: string | undefined,
  now: Date,
): Promise<void> {
  const group = { id: row.groupId, name: row.groupName };
  const members = jointMembers(row);
  // Judged again (the stage's history or rules may have changed since it was asked for).
  let needed = 0;
  const reasonsNow: { name: string; reasons: ApprovalReason[] }[] = [];
  for (const m of members) {
    const cur = await tx.groupPolicy.findUnique({ where: { groupId_policyId: { groupId: row.groupId, policyId: m.policy_id } }, select: { revisionPk: true, revision: { select: { revisionId: true } } } });
    const j = await judgeMove(tx, { group, policy: { id: m.policy_id, name: m.policy }, current: cur ? { revisionId: cur.revision.revisionId, pk: cur.revisionPk } : null, to: { pk: m.to_revision_pk, revisionId: m.to_revision_id }, kind: m.kind, now });
    needed = Math.max(needed, j.approval?.requirement.approvalsRequired ?? 0);
    reasonsNow.push({ name: m.policy, reasons: j.approval?.requirement.reasons ?? [] });
  }
  if (needed > approvers.length && needed > row.approvalsRequired) {
    const reasons = jointReasons(reasonsNow);
    await tx.promotionRequest.update({ where: { id: row.id }, data: { approvalsRequired: needed, reasons: JSON.stringify(reasons), updatedAt: now } });
    await audit(tx, access, { action: 'request.rejudged', targetType: 'pointer', target: `${row.groupName}/${row.policyName}`, groupName: row.groupName, policyName: row.policyName, before: { approvals_required: row.approvalsRequired }, after: { request: row.id, approvals_required: needed, reasons: reasons.map((r) => r.message) }, requestId });
    return;
  }
  const { count } = await tx.promotionRequest.updateMany({ where: { id: row.id, status: 'pending' }, data: { status: 'applied', decidedAt: now, decidedByEmail: access.email, updatedAt: now } });
  if (count !== 1) throw conflict('This request was decided concurrently; refresh.');
  const freezeReason = overrideReason || row.freezeOverride || null;
  const authorised = overrideReason ? can(access, 'stage.manage', { stage: row.groupName }) : !!row.freezeOverride;
  const system = { kind: 'system' as const, userId: row.requesterId, email: row.requesterEmail, via: `promotion-request:${row.id}` };
  const moved: { policy: string; auditId: string | null }[] = [];
  for (const m of [...members].sort((a, b) => (a.policy < b.policy ? -1 : a.policy > b.policy ? 1 : 0))) {
    if (!(await tx.policyRevision.findUnique({ where: { id: m.to_revision_pk }, select: { id: true } }))) throw conflict(`Revision ${short(m.to_revision_id)} of '${m.policy}' was deleted since the request was made; it cannot be applied.`);
    const r = await movePointer(tx, system, {
      group,
      policy: { id: m.policy_id, name: m.policy },
      to: { pk: m.to_revision_pk, revisionId: m.to_revision_id },
      kind: m.kind,
      reason: row.reason,
      expectedRevisionId: m.from_revision_id,
      overrideReason: row.artifactsOverride,
      freezeOverrideReason: freezeReason,
      freezeOverrideAuthorised: authorised,
      freezeOverrideBy: freezeOverrideGiver(access, overrideReason, row),
      approvedRequest: { id: row.id, approvers },
      requestId,
      at: now,
    });
    moved.push({ policy: m.policy, auditId: r.auditId });
  }
  const lead = moved.find((m) => m.policy === row.policyName) ?? moved[0];
  await tx.promotionRequest.update({ where: { id: row.id }, data: { appliedAuditId: lead?.auditId ?? null } });
  const names = members.map((m) => m.policy).join(', ');
  await emitEvent(tx, 'request.applied', `${members.length} policies now run their new revisions in ${row.groupName} together (${names}; approved by ${approvers.join(', ')}). ${requestLink(row.id)}`, { request_id: row.id, stage: row.groupName, policy: row.policyName, members: members.map((m) => ({ policy: m.policy, from_revision_id: m.from_revision_id, to_revision_id: m.to_revision_id })), approved_by: approvers, audit_ids: moved.map((m) => m.auditId) }, {
    at: now,
    message: requestMessage(row, `Applied: ${members.length} policies together in ${row.groupName}`, [['Policies', names], ['Approved by', approvers.join(', ')]]),
  });
}

/**
 * Issue 29: a freeze override on an approved request is recorded as given by whoever gave it: the approver
 * applying it now (with a reason), or the manager who asked with one.
 */
export function freezeOverrideGiver(
  access: { userId: string | null; email: string },
  overrideReason: string | null | undefined,
  row: { freezeOverride: string | null; requesterId: string | null; requesterEmail: string },
): { userId: string | null; email: string } | null {
  return overrideReason ? { userId: access.userId, email: access.email } : row.freezeOverride ? { userId: row.requesterId, email: row.requesterEmail } : null;
}
