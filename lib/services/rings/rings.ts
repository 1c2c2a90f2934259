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
import { inRing, ringSeed, ringStartWords, ringSteps, ringWidening, validateRingSteps, type RingPlan } from '@/lib/domain/rings';
import { AppError, badRequest, conflict, forbidden, notFound } from '@/lib/errors';
import type { RingHealthDto, RingNodeDto, RingRolloutDto, RingStatusDto } from '@/lib/types/rings';
import {
  audit,
  type AuditActor,
  activeFreeze,
  badMarkOf,
  badRevisionError,
  openRequestIfProtected,
  resolveFreeze,
  judgeMove,
  requireGroup,
  requirePolicy,
  movePointer,
  isUniqueViolation,
  transaction,
  loadNodeFacts,
  missingAfterMs,
  resolveGate,
  type StageNodeFacts,
  markOverridden,
  recordVerdict,
  resolveVerdict,
  type StageVerdictDto,
  holdAutomation,
} from '@/lib/services/funnel';
import type { RingActionInput, StartRingInput } from '@/lib/validation/rings';
import { emitRingEvent, RING_REQUEST_KIND } from './request-rings';
import { toVerdictDto, VERDICT_SELECT } from '@/lib/db/queries/verdicts';

export type { RingRolloutDto } from '@/lib/types/rings';

const OPEN: RingStatusDto[] = ['pending_approval', 'active', 'paused'];
const WORKER_ACTOR = { kind: 'system' as const, userId: null, email: 'system (ringed rollout)', via: 'ring-worker' };
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
  rollbackOnFailure: true,
  endSnapshot: true,
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
  rollbackOnFailure: boolean;
  endSnapshot: string | null;
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

/** Issue 43: what an ended ring's page shows: the ring as it stood when it ended. */
interface EndSnapshot {
  health: RingHealthDto;
  nodes: RingNodeDto[];
}

const ENDED: RingStatusDto[] = ['completed', 'rolled_back', 'superseded'];

/** The ring's first-step plan in numbers and words (what starting it does). */
function planOf(row: RingRow, steps: number[], named: string[], nodeNames: string[]): RingPlan {
  const per = ringSteps({ seed: ringSeed(row.groupName, row.policyName), steps, named }, nodeNames);
  return { stage: row.groupName, steps, firstNodes: per[0]?.length ?? 0, stageNodes: nodeNames.length, soakMinutes: row.soakMinutes, gateOnConvergence: row.gateOnConvergence, rollbackOnFailure: row.rollbackOnFailure };
}

/** What keeps a gated ring from widening now: "1 of 3 ring node(s) converged revision …", "1 failed on it". */
function unconverged(row: RingRow, h: RingHealthDto): string[] {
  if (!row.gateOnConvergence || h.ring_nodes === 0) return [];
  return [h.converged < h.ring_nodes ? `${h.converged} of ${h.ring_nodes} ring node${h.ring_nodes === 1 ? '' : 's'} converged revision ${short(row.toRevisionId)}` : null, h.failed ? `${h.failed} failed on it` : null].filter((x): x is string => !!x);
}

function toDto(
  row: RingRow,
  currentPk: string | null,
  nodes: { name: string; revisionApplied: string | null }[],
  facts: Map<string, StageNodeFacts>,
  now: Date,
  detail: boolean,
  extra: { verdict: StageVerdictDto | null; freeze: { reason: string; ends_at: string } | null },
): RingRolloutDto {
  const steps = JSON.parse(row.steps) as number[];
  const named = row.nodes.map((n) => n.nodeName).sort();
  let status = row.status as RingStatusDto;
  if ((status === 'active' || status === 'paused') && currentPk !== row.fromRevisionPk) status = 'superseded';
  const seed = ringSeed(row.groupName, row.policyName);
  const serving = status === 'active' || status === 'paused';
  const missing = missingAfterMs();
  // Issue 43: an ended ring shows the facts of its end (kept when it ended), not what its former nodes run now.
  const snapshot = ENDED.includes(status) && row.endSnapshot ? (JSON.parse(row.endSnapshot) as EndSnapshot) : null;
  const health: RingHealthDto = snapshot ? { ...snapshot.health } : { ring_nodes: 0, converged: 0, failed: 0, pending: 0, missing: 0 };
  const snapNodes = new Map((snapshot?.nodes ?? []).map((n) => [n.name, n]));
  const nodeDto = (n: { name: string; revisionApplied: string | null }): RingNodeDto => {
    const kept = snapNodes.get(n.name);
    if (snapshot) return kept ? { ...kept, revision_id: n.revisionApplied } : { name: n.name, revision_id: n.revisionApplied, serves: 'stage', named: named.includes(n.name), standing: 'pending', failed_resource: null, failed_cookbook: null };
    const inside = serving && inRing({ seed, percent: row.percent, named }, n.name);
    const f = facts.get(n.name);
    const standing = f ? classifyNode(f, row.toRevisionId, now, missing) : n.revisionApplied === row.toRevisionId ? 'converged' : 'pending';
    const failedAt = standing === 'failed' ? f?.lastRun : null;
    return { name: n.name, revision_id: n.revisionApplied, serves: inside ? 'ring' : 'stage', named: named.includes(n.name), standing, failed_resource: failedAt?.failedResource ?? null, failed_cookbook: failedAt?.failedCookbook ?? null };
  };
  const all = nodes.map(nodeDto);
  // An ended ring's nodes that left the stage since are still listed as they were at its end.
  for (const k of snapNodes.values()) if (!all.some((n) => n.name === k.name)) all.push(k);
  if (!snapshot) {
    for (const n of all) {
      if (n.serves !== 'ring') continue;
      health.ring_nodes++;
      health[n.standing]++;
    }
  }
  const byName = new Map(all.map((n) => [n.name, n]));
  const plan = planOf(row, steps, named, nodes.map((n) => n.name));
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
    rollback_on_failure: row.rollbackOnFailure,
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
    ended_facts: !!snapshot,
    plan: { first_nodes: plan.firstNodes, stage_nodes: plan.stageNodes, words: ringStartWords(plan, row.toRevisionId), widening: ringWidening(plan) },
    widen_blockers: { unconverged: status === 'active' ? unconverged(row, health) : [], freeze: extra.freeze },
    verdict: extra.verdict,
    url: `/rings/${row.id}`,
  };
  if (detail) {
    const per = ringSteps({ seed, steps, named }, nodes.map((n) => n.name));
    const listed = new Set(per.flat());
    const left = all.filter((n) => !listed.has(n.name));
    dto.step_nodes = steps.map((percent, i) => ({
      percent,
      nodes: [...per[i].map((n) => byName.get(n)!), ...(i === 0 ? left : [])],
      state: status === 'completed' || i < row.step ? 'done' : i === row.step ? 'current' : 'next',
    }));
  }
  return dto;
}

async function loadDto(tx: Tx, row: RingRow, now: Date, detail: boolean, verdict?: StageVerdictDto | null): Promise<RingRolloutDto> {
  const open = row.status === 'active' || row.status === 'paused' || row.status === 'pending_approval';
  const [current, nodes, facts, v, freeze] = await Promise.all([
    tx.groupPolicy.findUnique({ where: { groupId_policyId: { groupId: row.groupId, policyId: row.policyId } }, select: { revisionPk: true } }),
    stageNodes(tx, row.groupId, row.policyId),
    ringFacts(tx, row),
    verdict !== undefined ? verdict : tx.stageVerdict.findFirst({ where: { ringId: row.id }, select: VERDICT_SELECT }).then((r) => (r ? toVerdictDto(r) : null)),
    open && detail ? activeFreeze(tx, { id: row.groupId }, now) : null,
  ]);
  return toDto(row, current?.revisionPk ?? null, nodes, facts, now, detail, { verdict: v, freeze: freeze ? { reason: freeze.reason, ends_at: freeze.ends_at } : null });
}

/** The snapshot an ending ring keeps (its health and every node's standing then), as JSON. */
function endSnapshot(dto: RingRolloutDto): string {
  const nodes = (dto.step_nodes ?? []).flatMap((s) => s.nodes).slice(0, 5000);
  return JSON.stringify({ health: dto.health, nodes } satisfies EndSnapshot);
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
  const visible = rows.filter((r) => can(access, 'stage.view', { stage: r.groupName }));
  const verdicts = new Map(
    (await db().stageVerdict.findMany({ where: { ringId: { in: visible.map((r) => r.id) } }, select: VERDICT_SELECT })).map((v) => [v.ringId!, toVerdictDto(v)] as const),
  );
  const out: RingRolloutDto[] = [];
  for (const r of visible) out.push(await loadDto(db(), r, now, false, verdicts.get(r.id) ?? null));
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
      // (lib/services/funnel/move-judge.ts): bad mark, freeze, the stage's gate, missing artifacts, approvals.
      const toRef = { pk: to.id, revisionId: to.revisionId };
      const currentRef = { revisionId: current.revision.revisionId, pk: current.revisionPk };
      const judged = await judgeMove(tx, { group, policy, current: currentRef, to: toRef, kind: 'promote', now });
      if (judged.bad) throw badRevisionError(judged.bad);
      const freeze = resolveFreeze(group, judged.freeze, access, input.override_reason);
      const gate = await resolveGate(tx, group, policy, judged.gate, access, input.gate_override_reason);
      // Issue 43: a revision that failed in this stage (a canary ring rolled back, the stage's rule) needs a manager's written override.
      const verdict = await resolveVerdict(tx, group, policy, judged.verdicts.here, access, input.verdict_override_reason);
      if (judged.missingArtifacts?.length) {
        throw conflict(`'${group.name}' requires every cookbook on the server, and ${judged.missingArtifacts.length} of revision ${short(to.revisionId)} are missing: ${judged.missingArtifacts.join(', ')}. Upload them (chef push) before rolling it out.`, {
          missing_artifacts: judged.missingArtifacts,
        });
      }
      const gateOnConvergence = input.gate_on_convergence ?? false;
      // Issue 43: automatic rollback on a ring node's failure is its own choice; left out, it follows the gate as before.
      const rollbackOnFailure = input.rollback_on_failure ?? gateOnConvergence;
      const soakMinutes = input.soak_minutes ?? null;
      const nodeNames = (await stageNodes(tx, group.id, policy.id)).map((n) => n.name);
      const first = ringSteps({ seed: ringSeed(group.name, policy.name), steps, named }, nodeNames)[0] ?? [];
      // What approving the start does is said from this (the request page, the approve dialog, the webhooks, the history).
      const origin = {
        ring: { steps, named_nodes: named, first_nodes: first.length, stage_nodes: nodeNames.length, soak_minutes: soakMinutes, gate_on_convergence: gateOnConvergence, rollback_on_failure: rollbackOnFailure },
        ...(gate ? { gate_override: { reason: gate.reason, by: access.email } } : {}),
        ...(verdict ? { verdict_override: { reason: verdict.reason, by: verdict.by } } : {}),
      };
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
          gateOnConvergence,
          rollbackOnFailure,
          soakMinutes,
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
          ...(verdict ? { verdict_override: { reason: verdict.reason, verdicts: verdict.verdicts.map((v) => v.summary) } } : {}),
          gate_on_convergence: gateOnConvergence,
          rollback_on_failure: rollbackOnFailure,
          soak_minutes: soakMinutes,
        },
        reason: input.reason ?? freeze?.reason ?? gate?.reason ?? verdict?.reason,
        requestId: input.requestId,
      });
      const dto = await loadDto(tx, created, now, true);
      if (!request) {
        if (verdict) await markOverridden(tx, verdict, now);
        await emitRingEvent(tx, 'ring.started', dto, access.email, now);
      }
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
  const before = await loadDto(tx, row, now, true);
  const unmet = unconverged(row, before.health);
  if (unmet.length) {
    const reason = input.gate_override_reason?.trim();
    // Issue 43: in words a person uses; the API field is in the details.
    if (!reason) {
      throw new AppError(
        'conflict',
        `The ring has not converged yet: ${unmet.join('; ')}. Wait for its nodes' next runs, or, as someone who manages ${row.groupName}, widen it anyway with a written reason.`,
        [],
        { ring_health: before.health, override_field: 'gate_override_reason' },
      );
    }
    if (!access || !can(access, 'stage.manage', { stage: row.groupName })) throw forbidden(`Only those who manage stage '${row.groupName}' may widen a ring before it converged.`);
    gateOverride = reason;
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
  let ended = after;
  if (last) {
    // Issue 43: the ring as it stood at its end: every node of the stage in it, each with its standing on the revision.
    const nodes = (before.step_nodes ?? []).flatMap((x) => x.nodes).map((n) => ({ ...n, serves: 'ring' as const }));
    const health: RingHealthDto = { ring_nodes: nodes.length, converged: 0, failed: 0, pending: 0, missing: 0 };
    for (const n of nodes) health[n.standing]++;
    ended = await tx.ringRollout.update({ where: { id: row.id }, data: { endSnapshot: JSON.stringify({ health, nodes: nodes.slice(0, 5000) } satisfies EndSnapshot) }, select: RING_SELECT });
  }
  const dto = await loadDto(tx, ended, now, true);
  await emitRingEvent(tx, last ? 'ring.completed' : 'ring.widened', dto, actor.email, now, gateOverride ?? freeze?.reason ?? null);
  return dto;
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
    const ringNodes = before.status === 'superseded' ? [] : (before.step_nodes ?? []).flatMap((s) => s.nodes).filter((n) => n.serves === 'ring');
    const returned = ringNodes.map((n) => n.name);
    const { count } = await tx.ringRollout.updateMany({
      where: { id: row.id, status: row.status },
      // Issue 43: the ring as it stood when it ended, for its page and the rings list.
      data: { status: 'rolled_back', openKey: null, endedAt: now, endReason: input.reason?.trim() || 'rolled back', updatedAt: now, endSnapshot: endSnapshot(before) },
    });
    if (count !== 1) throw conflict('This ringed rollout changed concurrently; refresh.');
    if (row.status === 'pending_approval' && row.requestId) {
      await tx.promotionRequest.updateMany({ where: { id: row.requestId, status: 'pending' }, data: { status: 'withdrawn', decidedAt: now, decidedByEmail: actor?.email ?? 'system', updatedAt: now } });
    }
    // Issues 43 and 41: a ring rolled back while its nodes failed on its revision leaves a verdict: the revision failed
    // in this stage (with the nodes, the resource and the cookbook), which the guard, the board and the journey show.
    const failed = ringNodes.filter((n) => n.standing === 'failed');
    let verdict: StageVerdictDto | null = null;
    if (failed.length) {
      const where = new Map<string, { resource: string | null; cookbook: string | null; n: number }>();
      for (const f of failed) {
        const k = JSON.stringify([f.failed_resource, f.failed_cookbook]);
        const g = where.get(k) ?? { resource: f.failed_resource, cookbook: f.failed_cookbook, n: 0 };
        g.n++;
        where.set(k, g);
      }
      const top = [...where.values()].sort((a, b) => b.n - a.n)[0];
      verdict = await recordVerdict(tx, {
        key: `ring:${row.id}`,
        stage: row.groupName,
        policy: row.policyName,
        revisionId: row.toRevisionId,
        source: 'ring',
        ringId: row.id,
        nodes: ringNodes.length,
        failedNodes: failed.length,
        failedResource: top.resource,
        failedCookbook: top.cookbook,
        failedNodeNames: failed.map((n) => n.name),
        extra: { ring_step: row.step, percent: row.percent, rolled_back_by: actor?.email ?? 'system', automatic: !access },
        at: now,
      });
      // Issue 47: a ring rolled back for failures holds the stage's automatic promotion (who rolled it back, and the verdict).
      await holdAutomation(tx, actor, { stage: row.groupName, policy: row.policyName, revisionId: row.toRevisionId, source: 'ring', reason: verdict.summary, requestId: input.requestId }, now);
    }
    await audit(tx, actor, {
      action: 'ring.rollback',
      targetType: 'pointer',
      target: `${row.groupName}/${row.policyName}`,
      groupName: row.groupName,
      policyName: row.policyName,
      before: { ring: row.id, status: row.status, step: row.step, percent: row.percent, revision_id: row.toRevisionId, health: before.health },
      after: { ring: row.id, status: 'rolled_back', revision_id: row.fromRevisionId, returned_nodes: returned, ...(verdict ? { verdict: { id: verdict.id, summary: verdict.summary } } : {}) },
      reason: input.reason,
      requestId: input.requestId,
    });
    const after = await tx.ringRollout.findUniqueOrThrow({ where: { id: row.id }, select: RING_SELECT });
    const dto = { ...(await loadDto(tx, after, now, true)), returned_nodes: returned };
    if (row.status !== 'pending_approval') await emitRingEvent(tx, 'ring.rolled_back', dto, actor?.email ?? 'system', now, input.reason ?? null);
    return dto;
  });
}

// ------------------------------------------------------------------ the worker's pass


/** The reason of an automatic rollback: "automatic: 1 of 3 ring nodes failed on 5f1c0a9e21 (ruby_block[x])". */
function automaticReason(row: RingRow, dto: RingRolloutDto): string {
  const first = (dto.step_nodes ?? []).flatMap((s) => s.nodes).find((n) => n.serves === 'ring' && n.standing === 'failed');
  const h = dto.health;
  return `automatic: ${h.failed} of ${h.ring_nodes} ring node${h.ring_nodes === 1 ? '' : 's'} failed on revision ${short(row.toRevisionId)}${first?.failed_resource ? ` (${first.failed_resource})` : ''}`;
}

/**
 * Issue 40 and 43: rolls an open ring back when it asks to be rolled back on a failure and a ring node failed;
 * true when this call did it. Judged when a failed run of the ring's revision is reported (ingestRunMessage) and
 * by the worker's pass; the rollback's compare-and-swap on the status makes it happen once across instances.
 */
async function rollBackIfFailed(row: RingRow, now: Date): Promise<boolean> {
  if (!row.rollbackOnFailure || (row.status !== 'active' && row.status !== 'paused')) return false;
  const dto = await loadDto(db(), row, now, true);
  if ((dto.status !== 'active' && dto.status !== 'paused') || dto.health.failed === 0) return false;
  try {
    await rollBackRingRollout(null, { id: row.id, reason: automaticReason(row, dto) }, now, WORKER_ACTOR);
    return true;
  } catch (e) {
    // Another instance (or a person) ended it first.
    if (e instanceof AppError) return false;
    throw e;
  }
}

/**
 * Issue 40: a failed run is judged against the open ring of the node's stage and policy as it is reported
 * (as the stage's own rollback rule is), not only by the worker's next pass. Cheap when there is no ring:
 * one indexed read for a failed run of a revision a ring serves.
 */
export async function judgeRingsAfterRun(run: { stage: string; policy: string; revisionId: string | null; status: 'success' | 'failure' }, now = new Date()): Promise<void> {
  if (run.status !== 'failure' || !run.revisionId) return;
  const row = await db().ringRollout.findFirst({ where: { groupName: run.stage, policyName: run.policy, status: { in: ['active', 'paused'] }, toRevisionId: run.revisionId, rollbackOnFailure: true }, select: RING_SELECT });
  if (row) await rollBackIfFailed(row, now);
}

/**
 * The rollout worker's pass (lib/services/rollout-worker.ts): rolls back every open ring that asks to be
 * rolled back on a failure and has a failed ring node (issue 40: whether or not it has a soak time), and widens
 * every active ring whose step has soaked `soak_minutes` (and converged, when gated). Every instance may run
 * it: each widening is conditional on the step it read, and each rollback on the status, so each happens once.
 */
export async function advanceRings(now = new Date()): Promise<{ widened: string[]; rolledBack: string[] }> {
  const due = await db().ringRollout.findMany({ where: { OR: [{ status: { in: ['active', 'paused'] }, rollbackOnFailure: true }, { status: 'active', soakMinutes: { not: null } }] }, select: RING_SELECT });
  const widened: string[] = [];
  const rolledBack: string[] = [];
  for (const row of due) {
    try {
      if (await rollBackIfFailed(row, now)) {
        rolledBack.push(row.id);
        continue;
      }
      if (row.status !== 'active' || !row.soakMinutes) continue;
      const dto = await loadDto(db(), row, now, false);
      if (dto.status !== 'active' || dto.health.failed > 0 && row.rollbackOnFailure) continue;
      if (now.getTime() < row.stepStartedAt.getTime() + row.soakMinutes * 60_000) continue;
      if (row.gateOnConvergence && (dto.health.converged < dto.health.ring_nodes || dto.health.failed > 0)) continue;
      await transaction((tx) => widenInTx(tx, null, WORKER_ACTOR, { id: row.id, expected_step: row.step, reason: `automatic after ${row.soakMinutes} minute(s) of soak` }, now));
      widened.push(row.id);
    } catch (e) {
      // Another instance widened it first, a freeze, or the stage moved: the next pass looks again.
      if (!(e instanceof AppError)) throw e;
    }
  }
  return { widened, rolledBack };
}

/** Issue 43: the ringed rollout a ring request starts (for the request page; the request's own visibility was checked). */
export async function ringOfRequest(requestId: string): Promise<{ id: string; url: string; status: string } | null> {
  const r = await db().ringRollout.findFirst({ where: { requestId }, orderBy: { createdAt: 'desc' }, select: { id: true, status: true } });
  return r ? { id: r.id, url: `/rings/${r.id}`, status: r.status } : null;
}
