/**
 * Issue 30: canary rings inside a stage. A ringed rollout hands a growing
 * part of a stage's nodes a new revision (lib/domain/rings decides which);
 * the Chef policy read serves each node its ring's revision
 * (lib/db/queries/chef-read-path.ts), and the last step makes the revision
 * the stage's pointer through `movePointer`, as any promotion.
 *
 * - Start: the same guard as every promotion (bad revision 409, freeze 423,
 *   the stage's promotion gate 409, and on a protected stage a promotion
 *   request sized by the diff: the ring starts when it is approved).
 * - Widen: a conditional update on (id, status, step), so two instances
 *   widening at once widen exactly once; a freeze stops it; with
 *   `gate_on_convergence` the ring's nodes must have converged its revision
 *   (issue 26's run reports) first; with `soak_minutes` the rollout worker
 *   widens by itself once the step has soaked (and converged, if gated).
 * - Pause / resume: a paused ring keeps serving its nodes and does not widen.
 * - Roll back: the ring ends; only its nodes return to the stage's revision
 *   (the pointer never moved).
 * Every change is audited; the last step's pointer move is in the stage's history.
 */
import { db, type Tx } from '@/lib/db/client';
import { assertCan, can, type Access } from '@/lib/auth/permissions';
import { classifyNode } from '@/lib/domain/rollout';
import { inRing, ringSeed, ringSteps, validateRingSteps } from '@/lib/domain/rings';
import { AppError, badRequest, conflict, notFound } from '@/lib/errors';
import type { RingHealthDto, RingNodeDto, RingRolloutDto, RingStatusDto } from '@/lib/types/rings';
import { audit, type AuditActor } from './internal/audit';
import { activeFreeze, badMarkOf, badRevisionError, openRequestIfProtected, resolveFreeze } from './internal/guard';
import { judgeMove } from './internal/move-judge';
import { requireGroup, requirePolicy } from './internal/lookup';
import type { RingActionInput, StartRingInput } from '@/lib/validation/rings';
import { movePointer } from './internal/pointer';
import { requestUrl } from './internal/request-dto';
import { RING_REQUEST_KIND } from './internal/ring';
import { isUniqueViolation, transaction } from './internal/retry';
import { loadNodeFacts, missingAfterMs, resolveGate, type StageNodeFacts } from './internal/rollout-gate';

export type { RingRolloutDto } from '@/lib/types/rings';

const OPEN: RingStatusDto[] = ['pending_approval', 'active', 'paused'];
const short = (r: string | null) => (r ? r.slice(0, 10) : 'nothing');
const openKey = (groupId: string, policyId: string) => `${groupId}:${policyId}`;

const RING_SELECT = {
  id: true,
  groupId: true,
  policyId: true,
  groupName: true,
  policyName: true,
  fromRevisionPk: true,
  fromRevisionId: true,
  toRevisionPk: true,
  toRevisionId: true,
  steps: true,
  step: true,
  percent: true,
  status: true,
  gateOnConvergence: true,
  soakMinutes: true,
  requestId: true,
  approvedBy: true,
  reason: true,
  stepStartedAt: true,
  createdByEmail: true,
  createdAt: true,
  endedAt: true,
  endReason: true,
  nodes: { select: { nodeName: true } },
} as const;

type RingRow = {
  id: string;
  groupId: string;
  policyId: string;
  groupName: string;
  policyName: string;
  fromRevisionPk: string;
  fromRevisionId: string;
  toRevisionPk: string;
  toRevisionId: string;
  steps: string;
  step: number;
  percent: number;
  status: string;
  gateOnConvergence: boolean;
  soakMinutes: number | null;
  requestId: string | null;
  approvedBy: string | null;
  reason: string | null;
  stepStartedAt: Date;
  createdByEmail: string;
  createdAt: Date;
  endedAt: Date | null;
  endReason: string | null;
  nodes: { nodeName: string }[];
};

/** The inputs' one definition (parsed at the caller's edge: the actions, the API contracts); the rules below need the database. */
export { ZRingAction, ZStartRing } from '@/lib/validation/rings';
export type { RingActionInput, StartRingInput } from '@/lib/validation/rings';

// ------------------------------------------------------------------ reads

async function stageNodes(tx: Tx, groupId: string, policyId: string) {
  return tx.node.findMany({ where: { groupId, policyId }, select: { name: true, revisionApplied: true }, orderBy: { name: 'asc' } });
}

async function ringFacts(tx: Tx, row: RingRow): Promise<Map<string, StageNodeFacts>> {
  const facts = await loadNodeFacts(tx, { groupNames: [row.groupName], policyName: row.policyName });
  return new Map(facts.map((f) => [f.nodeName, f]));
}

function toDto(row: RingRow, currentPk: string | null, nodes: { name: string; revisionApplied: string | null }[], facts: Map<string, StageNodeFacts>, now: Date, detail: boolean): RingRolloutDto {
  const steps = JSON.parse(row.steps) as number[];
  const named = row.nodes.map((n) => n.nodeName).sort();
  let status = row.status as RingStatusDto;
  if ((status === 'active' || status === 'paused') && currentPk !== row.fromRevisionPk) status = 'superseded';
  const seed = ringSeed(row.groupName, row.policyName);
  const serving = status === 'active' || status === 'paused';
  const missing = missingAfterMs();
  const health: RingHealthDto = { ring_nodes: 0, converged: 0, failed: 0, pending: 0, missing: 0 };
  const nodeDto = (n: { name: string; revisionApplied: string | null }): RingNodeDto => {
    const inside = serving && inRing({ seed, percent: row.percent, named }, n.name);
    const f = facts.get(n.name);
    const standing = f ? classifyNode(f, row.toRevisionId, now, missing) : n.revisionApplied === row.toRevisionId ? 'converged' : 'pending';
    return { name: n.name, revision_id: n.revisionApplied, serves: inside ? 'ring' : 'stage', named: named.includes(n.name), standing };
  };
  const all = nodes.map(nodeDto);
  for (const n of all) {
    if (n.serves !== 'ring') continue;
    health.ring_nodes++;
    health[n.standing]++;
  }
  const byName = new Map(all.map((n) => [n.name, n]));
  const dto: RingRolloutDto = {
    id: row.id,
    stage: row.groupName,
    policy: row.policyName,
    from_revision_id: row.fromRevisionId,
    to_revision_id: row.toRevisionId,
    steps,
    step: row.step,
    percent: row.percent,
    status,
    named_nodes: named,
    gate_on_convergence: row.gateOnConvergence,
    soak_minutes: row.soakMinutes,
    next_widen_at: status === 'active' && row.soakMinutes ? new Date(row.stepStartedAt.getTime() + row.soakMinutes * 60_000).toISOString() : null,
    request_id: row.requestId,
    approved_by: row.approvedBy,
    reason: row.reason,
    created_by: row.createdByEmail,
    created_at: row.createdAt.toISOString(),
    step_started_at: row.stepStartedAt.toISOString(),
    ended_at: row.endedAt?.toISOString() ?? null,
    end_reason: row.endReason,
    health,
    url: `/rings/${row.id}`,
  };
  if (detail) {
    const per = ringSteps({ seed, steps, named }, nodes.map((n) => n.name));
    dto.step_nodes = steps.map((percent, i) => ({
      percent,
      nodes: per[i].map((n) => byName.get(n)!),
      state: status === 'completed' || i < row.step ? 'done' : i === row.step ? 'current' : 'next',
    }));
  }
  return dto;
}

async function loadDto(tx: Tx, row: RingRow, now: Date, detail: boolean): Promise<RingRolloutDto> {
  const [current, nodes, facts] = await Promise.all([
    tx.groupPolicy.findUnique({ where: { groupId_policyId: { groupId: row.groupId, policyId: row.policyId } }, select: { revisionPk: true } }),
    stageNodes(tx, row.groupId, row.policyId),
    ringFacts(tx, row),
  ]);
  return toDto(row, current?.revisionPk ?? null, nodes, facts, now, detail);
}

/** One rollout with each step's nodes (view on its stage). */
export async function getRingRollout(access: Access, id: string, now = new Date()): Promise<RingRolloutDto> {
  const row = await db().ringRollout.findUnique({ where: { id }, select: RING_SELECT });
  if (!row || !can(access, 'stage.view', { stage: row.groupName })) throw notFound(`Cannot find ringed rollout '${id}'`);
  return loadDto(db(), row, now, true);
}

/** Rollouts the viewer may see, newest first (optionally of one stage / policy, or only open ones). */
export async function listRingRollouts(access: Access, filter: { stage?: string; policy?: string; open?: boolean } = {}, now = new Date()): Promise<RingRolloutDto[]> {
  const rows = await db().ringRollout.findMany({
    where: { ...(filter.stage ? { groupName: filter.stage } : {}), ...(filter.policy ? { policyName: filter.policy } : {}), ...(filter.open ? { status: { in: OPEN } } : {}) },
    orderBy: { createdAt: 'desc' },
    take: 200,
    select: RING_SELECT,
  });
  const out: RingRolloutDto[] = [];
  for (const r of rows) if (can(access, 'stage.view', { stage: r.groupName })) out.push(await loadDto(db(), r, now, false));
  return out;
}

// ------------------------------------------------------------------ start

/**
 * Starts a ringed rollout of `revision_id` on a stage (promote on the stage).
 * The stage must already run another revision of the policy (the ring's
 * outside keeps it). On a protected stage whose rules ask for approvals the
 * answer carries the promotion request, and the ring starts when it is approved.
 */
export async function startRingRollout(access: Access, input: StartRingInput, now = new Date()): Promise<RingRolloutDto> {
  const steps = input.steps ?? [5, 25, 100];
  const stepErrors = validateRingSteps(steps);
  if (stepErrors.length) throw badRequest(`Invalid steps: ${stepErrors.join('; ')}`, stepErrors.map((m) => ({ path: 'steps', message: m.replace(/^steps(\[\d+\])?: /, '') })));
  const named = [...new Set(input.nodes ?? [])];
  try {
    return await transaction(async (tx) => {
      const group = await requireGroup(tx, input.stage, access);
      assertCan(access, 'stage.promote', { stage: group.name });
      const policy = await requirePolicy(tx, input.policy);
      const [current, to] = await Promise.all([
        tx.groupPolicy.findUnique({ where: { groupId_policyId: { groupId: group.id, policyId: policy.id } }, select: { revisionPk: true, revision: { select: { revisionId: true } } } }),
        tx.policyRevision.findUnique({ where: { policyId_revisionId: { policyId: policy.id, revisionId: input.revision_id } }, select: { id: true, revisionId: true } }),
      ]);
      if (!to) throw notFound(`Cannot find revision ${short(input.revision_id)} of policy '${policy.name}'`);
      if (!current) throw conflict(`'${group.name}' runs no revision of '${policy.name}' yet: there is nothing for the nodes outside a ring to keep. Promote the revision instead.`);
      if (input.expected_revision_id !== undefined && input.expected_revision_id !== current.revision.revisionId) {
        throw conflict(`'${group.name}' changed since you looked: it now runs revision ${short(current.revision.revisionId)} of '${policy.name}'. Refresh and try again.`, { current_revision_id: current.revision.revisionId });
      }
      if (current.revision.revisionId === to.revisionId) throw conflict(`'${group.name}' already runs revision ${short(to.revisionId)} of '${policy.name}'.`);
      await closeStale(tx, group.id, policy.id, now);

      // The guard every promotion passes, judged once by the same function movePointer and the dry run use
      // (lib/services/internal/move-judge.ts): bad mark, freeze, the stage's gate, missing artifacts, approvals.
      const toRef = { pk: to.id, revisionId: to.revisionId };
      const currentRef = { revisionId: current.revision.revisionId, pk: current.revisionPk };
      const judged = await judgeMove(tx, { group, policy, current: currentRef, to: toRef, kind: 'promote', now });
      if (judged.bad) throw badRevisionError(judged.bad);
      const freeze = resolveFreeze(group, judged.freeze, access, input.override_reason);
      const gate = await resolveGate(tx, group, policy, judged.gate, access, input.gate_override_reason);
      if (judged.missingArtifacts?.length) {
        throw conflict(`'${group.name}' requires every cookbook on the server, and ${judged.missingArtifacts.length} of revision ${short(to.revisionId)} are missing: ${judged.missingArtifacts.join(', ')}. Upload them (chef push) before rolling it out.`, {
          missing_artifacts: judged.missingArtifacts,
        });
      }
      const origin = { ring: { steps, named_nodes: named }, ...(gate ? { gate_override: { reason: gate.reason, by: access.email } } : {}) };
      const request = await openRequestIfProtected(
        tx,
        access,
        { group, policy, to: toRef, kind: RING_REQUEST_KIND, reason: input.reason, freezeOverride: freeze, origin, requestId: input.requestId },
        currentRef,
        now,
        judged.approval,
      );
      if (request && request.kind !== RING_REQUEST_KIND) {
        throw conflict(`You already asked to promote revision ${short(to.revisionId)} of '${policy.name}' into '${group.name}' (request ${request.id}, ${request.url}); withdraw it to roll the revision out in rings instead.`, { request: request.id });
      }
      // A retried start of the same request: answer the rollout already waiting for it.
      if (request) {
        const waiting = await tx.ringRollout.findFirst({ where: { requestId: request.id, status: 'pending_approval' }, select: RING_SELECT });
        if (waiting) return { ...(await loadDto(tx, waiting, now, true)), request: { id: request.id, url: request.url, approvals_required: request.approvals_required } };
      }
      const created = await tx.ringRollout.create({
        data: {
          groupId: group.id,
          policyId: policy.id,
          groupName: group.name,
          policyName: policy.name,
          fromRevisionPk: current.revisionPk,
          fromRevisionId: current.revision.revisionId,
          toRevisionPk: to.id,
          toRevisionId: to.revisionId,
          steps: JSON.stringify(steps),
          step: request ? -1 : 0,
          percent: request ? 0 : steps[0],
          status: request ? 'pending_approval' : 'active',
          openKey: openKey(group.id, policy.id),
          gateOnConvergence: input.gate_on_convergence ?? false,
          soakMinutes: input.soak_minutes ?? null,
          requestId: request?.id ?? null,
          reason: input.reason ?? null,
          stepStartedAt: now,
          createdById: access.userId,
          createdByEmail: access.email,
          createdAt: now,
          updatedAt: now,
          nodes: { create: named.map((nodeName) => ({ nodeName })) },
        },
        select: RING_SELECT,
      });
      await audit(tx, access, {
        action: request ? 'ring.request' : 'ring.start',
        targetType: 'pointer',
        target: `${group.name}/${policy.name}`,
        groupName: group.name,
        policyName: policy.name,
        before: { revision_id: current.revision.revisionId },
        after: {
          ring: created.id,
          revision_id: to.revisionId,
          steps,
          named_nodes: named,
          step: created.step,
          percent: created.percent,
          ...(request ? { promotion_request: request.id } : {}),
          ...(freeze ? { freeze_override: freeze } : {}),
          ...(gate ? { gate_override: { reason: gate.reason, gate: gate.gate } } : {}),
        },
        reason: input.reason ?? freeze?.reason ?? gate?.reason,
        requestId: input.requestId,
      });
      const dto = await loadDto(tx, created, now, true);
      return request ? { ...dto, request: { id: request.id, url: request.url, approvals_required: request.approvals_required } } : dto;
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw conflict(`'${input.stage}' already has an open ringed rollout of '${input.policy}': widen, complete or roll it back first.`);
    throw e;
  }
}

/** Ends open rollouts of a cell that can no longer go anywhere: the stage's pointer moved under them, or their request was decided otherwise. */
async function closeStale(tx: Tx, groupId: string, policyId: string, now: Date) {
  const open = await tx.ringRollout.findFirst({ where: { openKey: openKey(groupId, policyId) }, select: { id: true, status: true, fromRevisionPk: true, requestId: true } });
  if (!open) return;
  const current = await tx.groupPolicy.findUnique({ where: { groupId_policyId: { groupId, policyId } }, select: { revisionPk: true } });
  let why: string | null = null;
  if (current?.revisionPk !== open.fromRevisionPk) why = 'the stage moved to another revision';
  else if (open.status === 'pending_approval' && open.requestId) {
    const req = await tx.promotionRequest.findUnique({ where: { id: open.requestId }, select: { status: true, expiresAt: true } });
    if (!req || req.status !== 'pending' || req.expiresAt <= now) why = `its promotion request is ${req ? (req.status === 'pending' ? 'expired' : req.status) : 'gone'}`;
  }
  if (why) await tx.ringRollout.updateMany({ where: { id: open.id, status: open.status }, data: { status: 'superseded', openKey: null, endedAt: now, endReason: why, updatedAt: now } });
}

// ------------------------------------------------------------------ widen, pause, roll back

async function lockRing(tx: Tx, access: Access | null, id: string) {
  const row = await tx.ringRollout.findUnique({ where: { id }, select: RING_SELECT });
  if (!row || (access && !can(access, 'stage.view', { stage: row.groupName }))) throw notFound(`Cannot find ringed rollout '${id}'`);
  if (access) assertCan(access, 'stage.promote', { stage: row.groupName });
  return row;
}

function notOpen(row: RingRow, what: string): AppError {
  return conflict(`This ringed rollout is ${row.status.replace('_', ' ')}${row.endReason ? ` (${row.endReason})` : ''}; it cannot ${what}.`, { status: row.status });
}

/**
 * Widens the ring to its next step; the last step makes the revision the
 * stage's pointer (movePointer, kind `ring`: the gate was checked when the ring started) and completes the rollout.
 * Exactly once: the update is conditional on the step read.
 */
export async function widenRingRollout(access: Access, input: RingActionInput, now = new Date()): Promise<RingRolloutDto> {
  return transaction((tx) => widenInTx(tx, access, access, input, now));
}

async function widenInTx(tx: Tx, access: Access | null, actor: AuditActor, input: RingActionInput, now: Date): Promise<RingRolloutDto> {
  const row = await lockRing(tx, access, input.id);
  if (row.status !== 'active') throw notOpen(row, row.status === 'paused' ? 'widen while paused (resume it first)' : 'widen');
  if (input.expected_step !== undefined && input.expected_step !== row.step) {
    throw conflict(`This ringed rollout moved since you looked: it is at step ${row.step + 1}, not ${input.expected_step + 1}. Refresh.`, { step: row.step });
  }
  const group = { id: row.groupId, name: row.groupName };
  const policy = { id: row.policyId, name: row.policyName };
  const current = await tx.groupPolicy.findUnique({ where: { groupId_policyId: { groupId: row.groupId, policyId: row.policyId } }, select: { revisionPk: true } });
  if (current?.revisionPk !== row.fromRevisionPk) throw conflict(`'${row.groupName}' moved to another revision of '${row.policyName}' since the ring started; the ring no longer applies. Start a new one.`);
  const steps = JSON.parse(row.steps) as number[];
  const next = row.step + 1;
  const toRef = { pk: row.toRevisionPk, revisionId: row.toRevisionId };
  const bad = await badMarkOf(tx, row.policyName, toRef);
  if (bad) throw badRevisionError(bad);
  // Freezes stop widening (a manager may override with a reason; the worker never does).
  const freeze = resolveFreeze(group, await activeFreeze(tx, group, now), actor, input.override_reason, access ? undefined : false);
  let gateOverride: string | null = null;
  if (row.gateOnConvergence) {
    const dto = await loadDto(tx, row, now, false);
    const h = dto.health;
    const unmet = h.ring_nodes === 0 ? [] : [h.converged < h.ring_nodes ? `${h.converged} of ${h.ring_nodes} ring node(s) converged revision ${short(row.toRevisionId)}` : null, h.failed ? `${h.failed} failed on it` : null].filter((x): x is string => !!x);
    if (unmet.length) {
      const reason = input.gate_override_reason?.trim();
      if (!reason) throw conflict(`The ring has not converged yet: ${unmet.join('; ')}. Wait for its nodes' runs, or override with a reason (gate_override_reason).`, { ring_health: h });
      if (!access || !can(access, 'stage.manage', { stage: row.groupName })) throw new AppError('forbidden', `Only those who manage stage '${row.groupName}' may widen a ring before it converged.`);
      gateOverride = reason;
    }
  }
  const last = next >= steps.length - 1;
  const { count } = await tx.ringRollout.updateMany({
    where: { id: row.id, status: 'active', step: row.step },
    data: last
      ? { step: steps.length - 1, percent: 100, status: 'completed', openKey: null, endedAt: now, endReason: 'widened to every node: the revision is the stage\'s', stepStartedAt: now, updatedAt: now }
      : { step: next, percent: steps[next], stepStartedAt: now, updatedAt: now },
  });
  if (count !== 1) throw conflict('This ringed rollout was widened concurrently; refresh.');
  await audit(tx, actor, {
    action: last ? 'ring.complete' : 'ring.widen',
    targetType: 'pointer',
    target: `${row.groupName}/${row.policyName}`,
    groupName: row.groupName,
    policyName: row.policyName,
    before: { ring: row.id, step: row.step, percent: row.percent },
    after: { ring: row.id, step: last ? steps.length - 1 : next, percent: last ? 100 : steps[next], revision_id: row.toRevisionId, ...(freeze ? { freeze_override: freeze } : {}), ...(gateOverride ? { gate_override: gateOverride } : {}) },
    reason: input.reason ?? freeze?.reason ?? gateOverride,
    requestId: input.requestId,
  });
  if (last) {
    // The last step is a promotion: the stage's pointer moves through the one guard, in the stage's history.
    const moved = await movePointer(tx, actor, {
      group,
      policy,
      to: toRef,
      kind: 'ring',
      reason: input.reason ?? `ringed rollout ${row.id} completed (${steps.join('% → ')}%)`,
      expectedRevisionId: row.fromRevisionId,
      freezeOverrideReason: freeze?.reason ?? null,
      ...(freeze ? { freezeOverrideAuthorised: true } : {}),
      ...(row.requestId && row.approvedBy ? { approvedRequest: { id: row.requestId, approvers: row.approvedBy.split(', ') } } : {}),
      origin: { ring: row.id },
      requestId: input.requestId,
      at: now,
    });
    if (moved.request) throw conflict(`'${row.groupName}' now requires approval for this change; a promotion request was opened (${moved.request.url}). The ring stays at its last step until then.`, { request: moved.request.id });
  }
  const after = await tx.ringRollout.findUniqueOrThrow({ where: { id: row.id }, select: RING_SELECT });
  return loadDto(tx, after, now, true);
}

/** Pauses an active ring: its nodes keep the ring's revision, nothing widens (by hand or after the soak time). */
export async function pauseRingRollout(access: Access, input: RingActionInput, now = new Date()): Promise<RingRolloutDto> {
  return setPaused(access, input, true, now);
}

/** Resumes a paused ring (its soak time starts again). */
export async function resumeRingRollout(access: Access, input: RingActionInput, now = new Date()): Promise<RingRolloutDto> {
  return setPaused(access, input, false, now);
}

async function setPaused(access: Access, input: RingActionInput, pause: boolean, now: Date): Promise<RingRolloutDto> {
  return transaction(async (tx) => {
    const row = await lockRing(tx, access, input.id);
    const from = pause ? 'active' : 'paused';
    if (row.status !== from) throw notOpen(row, pause ? 'be paused' : 'be resumed');
    const { count } = await tx.ringRollout.updateMany({ where: { id: row.id, status: from }, data: { status: pause ? 'paused' : 'active', updatedAt: now, ...(pause ? {} : { stepStartedAt: now }) } });
    if (count !== 1) throw conflict('This ringed rollout changed concurrently; refresh.');
    await audit(tx, access, {
      action: pause ? 'ring.pause' : 'ring.resume',
      targetType: 'pointer',
      target: `${row.groupName}/${row.policyName}`,
      groupName: row.groupName,
      policyName: row.policyName,
      before: { ring: row.id, status: row.status },
      after: { ring: row.id, status: pause ? 'paused' : 'active', step: row.step, percent: row.percent },
      reason: input.reason,
      requestId: input.requestId,
    });
    return loadDto(tx, (await tx.ringRollout.findUniqueOrThrow({ where: { id: row.id }, select: RING_SELECT }))!, now, true);
  });
}

/**
 * Rolls a ring back: it ends, and only its nodes return to the stage's
 * revision on their next run (the stage's pointer never moved). A ring still
 * waiting for approval is withdrawn with its request. Answers the nodes that
 * ran the ring (`returned_nodes`).
 */
export async function rollBackRingRollout(access: Access | null, input: RingActionInput, now = new Date(), actor: AuditActor | null = access): Promise<RingRolloutDto> {
  return transaction(async (tx) => {
    const row = await lockRing(tx, access, input.id);
    if (!OPEN.includes(row.status as RingStatusDto)) throw notOpen(row, 'be rolled back');
    const before = await loadDto(tx, row, now, true);
    const returned = before.status === 'superseded' ? [] : (before.step_nodes ?? []).flatMap((s) => s.nodes).filter((n) => n.serves === 'ring').map((n) => n.name);
    const { count } = await tx.ringRollout.updateMany({
      where: { id: row.id, status: row.status },
      data: { status: 'rolled_back', openKey: null, endedAt: now, endReason: input.reason?.trim() || 'rolled back', updatedAt: now },
    });
    if (count !== 1) throw conflict('This ringed rollout changed concurrently; refresh.');
    if (row.status === 'pending_approval' && row.requestId) {
      await tx.promotionRequest.updateMany({ where: { id: row.requestId, status: 'pending' }, data: { status: 'withdrawn', decidedAt: now, decidedByEmail: actor?.email ?? 'system', updatedAt: now } });
    }
    await audit(tx, actor, {
      action: 'ring.rollback',
      targetType: 'pointer',
      target: `${row.groupName}/${row.policyName}`,
      groupName: row.groupName,
      policyName: row.policyName,
      before: { ring: row.id, status: row.status, step: row.step, percent: row.percent, revision_id: row.toRevisionId },
      after: { ring: row.id, status: 'rolled_back', revision_id: row.fromRevisionId, returned_nodes: returned },
      reason: input.reason,
      requestId: input.requestId,
    });
    const after = await tx.ringRollout.findUniqueOrThrow({ where: { id: row.id }, select: RING_SELECT });
    return { ...(await loadDto(tx, after, now, true)), returned_nodes: returned };
  });
}

// ------------------------------------------------------------------ the worker's pass

const WORKER_ACTOR = { kind: 'system' as const, userId: null, email: 'system (ringed rollout)', via: 'ring-worker' };

/**
 * The rollout worker's pass (lib/services/rollout-worker.ts): widens every
 * active ring whose step has soaked `soak_minutes` (and converged, when
 * gated), and rolls back a gated ring whose nodes failed on its revision.
 * Every instance may run it: each widening is conditional on the step it
 * read, so it happens once.
 */
export async function advanceRings(now = new Date()): Promise<{ widened: string[]; rolledBack: string[] }> {
  const due = await db().ringRollout.findMany({ where: { status: 'active', soakMinutes: { not: null } }, select: RING_SELECT });
  const widened: string[] = [];
  const rolledBack: string[] = [];
  for (const row of due) {
    try {
      const dto = await loadDto(db(), row, now, false);
      if (dto.status !== 'active') continue;
      if (row.gateOnConvergence && dto.health.failed > 0) {
        await rollBackRingRollout(null, { id: row.id, reason: `automatic: ${dto.health.failed} of ${dto.health.ring_nodes} ring node(s) failed on revision ${short(row.toRevisionId)}` }, now, WORKER_ACTOR);
        rolledBack.push(row.id);
        continue;
      }
      if (now.getTime() < row.stepStartedAt.getTime() + row.soakMinutes! * 60_000) continue;
      if (row.gateOnConvergence && dto.health.converged < dto.health.ring_nodes) continue;
      await transaction((tx) => widenInTx(tx, null, WORKER_ACTOR, { id: row.id, expected_step: row.step, reason: `automatic after ${row.soakMinutes} minute(s) of soak` }, now));
      widened.push(row.id);
    } catch (e) {
      // Another instance widened it first, a freeze, or the stage moved: the next pass looks again.
      if (!(e instanceof AppError)) throw e;
    }
  }
  return { widened, rolledBack };
}
