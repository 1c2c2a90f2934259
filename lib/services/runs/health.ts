/**
 * Issue 26: rollout health per stage and policy, run history, promotion gates
 * and the automatic rollback.
 *
 * - Health: of the nodes that should run a stage's revision of a policy, how
 *   many converged it, failed on it (top failures by cookbook and resource),
 *   have not run it yet, or are missing (NODE_MISSING_AFTER_MINUTES).
 * - Gates and rollback rules per stage (`StageRolloutRule`), edited by those
 *   who manage the stage; the gate itself is enforced in movePointer.
 * - After each finished run on a stage's current revision: `rollout.failed`
 *   (first failure after a change), `rollout.converged` (every counted node
 *   converged it), and the automatic rollback when the rule says so — through
 *   movePointer (kind `rollback`, expected revision = the bad one), exactly
 *   once across instances: the RolloutOutcome key decides, and the pointer's
 *   compare-and-swap refuses a second move.
 */
import type { z } from 'zod';
import { db, type Tx } from '@/lib/db/client';
import { processState } from '@/lib/process-state';
import { rolloutPrecheck } from './ingest-queries';
import { pointerNames } from '@/lib/db/queries/pointer-names';
import { assertCan, can, canReadNode, type Access } from '@/lib/auth/permissions';
import { evaluateRollback, summarizeHealth, validateAutoPromote, validateGateChecks, validateGateRule, validateRollbackRule, type GateCheck, type GateEvaluation, type HealthSummary, type RollbackRule } from '@/lib/domain/rollout';
import {
  checkTargetUrl,
  refreshChecks,
  automationState,
  type AutomationStateDto,
  audit,
  requireGroup,
  requirePolicy,
  absoluteUrl,
  emitEvent,
  type EventMessage,
  recordVerdict,
  movePointer,
  isUniqueViolation,
  transaction,
  evaluateStageGate,
  loadNodeFacts,
  missingAfterMs,
  type StageNodeFacts,
} from '@/lib/services/funnel';
import { AppError, badRequest, notFound } from '@/lib/errors';
import type { ZSetStageRolloutRule } from '@/lib/validation/rollout-rules';
import { inRing, ringSeed } from '@/lib/domain/rings';

export type { GateEvaluation, HealthSummary } from '@/lib/domain/rollout';
export { missingAfterMs } from '@/lib/services/funnel';

/** The start of the second `d` falls in (chef-client's times have no fraction). */
const secondOf = (d: Date) => new Date(Math.floor(d.getTime() / 1000) * 1000);

const SYSTEM_ACTOR = { kind: 'system' as const, userId: null, email: 'system (automatic rollback)', via: 'rollout-rule' };
const short = (r: string | null) => (r ? r.slice(0, 10) : 'nothing');

/** Issue 41: how much of a node's own text (an error message) an event carries. */
const EVENT_TEXT_MAX = 300;
/** Text a node reported, cut to `max` characters. */
const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
/** One line: a node's text cannot start lines (or list items, headings) of its own in a chat message. */
const oneLine = (text: string) => text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ');
/** Issue 43: the stage's history page (where rollout outcomes are shown), as an absolute link for notifications. */
const historyLink = (stage: string, policy: string) => absoluteUrl(`/history?policy=${encodeURIComponent(policy)}&stage=${encodeURIComponent(stage)}`);
function rolloutMessage(stage: string, policy: string, title: string, facts: [string, string][]): EventMessage {
  return { title, link: { url: historyLink(stage, policy), label: `Open the history of ${policy} in ${stage}` }, facts: [['Stage', stage], ['Policy', policy], ...facts] };
}

// ------------------------------------------------------------------ health

export interface StageHealthDto extends HealthSummary {
  stage: string;
  policy: string;
  /**
   * Issue 43: of the nodes counted, those served an open ring's revision (a ringed rollout of this stage and
   * policy): each is counted against the revision it is served — converged, failed or not yet run on the RING's
   * revision — never as "not yet run" for the stage's. The Nodes list counts a node the same way (servedRevisions).
   */
  in_ring: number;
  ring: { id: string; percent: number; to_revision_id: string } | null;
}

type OpenRing = { id: string; percent: number; toRevisionId: string; named: string[]; groupName: string; policyName: string };

/** The open rings (active or paused) still serving, by `stage/policy`: one statement (and the pointers'). */
async function openRings(tx: Tx, where: { stage?: string; policy?: string } = {}): Promise<Map<string, OpenRing>> {
  const rows = await tx.ringRollout.findMany({
    where: { status: { in: ['active', 'paused'] }, ...(where.stage ? { groupName: where.stage } : {}), ...(where.policy ? { policyName: where.policy } : {}) },
    select: { id: true, groupId: true, policyId: true, groupName: true, policyName: true, percent: true, toRevisionId: true, fromRevisionPk: true, nodes: { select: { nodeName: true } } },
  });
  if (!rows.length) return new Map();
  const pointers = await tx.groupPolicy.findMany({ where: { groupId: { in: rows.map((r) => r.groupId) } }, select: { groupId: true, policyId: true, revisionPk: true } });
  const at = new Map(pointers.map((p) => [`${p.groupId}|${p.policyId}`, p.revisionPk]));
  const out = new Map<string, OpenRing>();
  for (const r of rows) {
    // A ring whose stage moved on no longer serves anything (superseded).
    if (at.get(`${r.groupId}|${r.policyId}`) !== r.fromRevisionPk) continue;
    out.set(`${r.groupName}/${r.policyName}`, { id: r.id, percent: r.percent, toRevisionId: r.toRevisionId, named: r.nodes.map((n) => n.nodeName), groupName: r.groupName, policyName: r.policyName });
  }
  return out;
}

const inOpenRing = (ring: OpenRing | undefined, nodeName: string) => !!ring && inRing({ seed: ringSeed(ring.groupName, ring.policyName), percent: ring.percent, named: ring.named }, nodeName);

/**
 * Issue 43: the revision each node should run — its open ring's when a ring serves it, else its stage's (undefined:
 * the stage runs no revision of its policy). The one rule the board's health and the Nodes list's run status share.
 */
export async function servedRevisions(tx: Tx): Promise<(f: Pick<StageNodeFacts, 'nodeName' | 'groupName' | 'policyName'>) => string | undefined> {
  const [pointers, rings] = await Promise.all([
    tx.groupPolicy.findMany({ select: { group: { select: { name: true } }, policy: { select: { name: true } }, revision: { select: { revisionId: true } } } }),
    openRings(tx),
  ]);
  const revision = new Map(pointers.map((p) => [`${p.group.name}/${p.policy.name}`, p.revision.revisionId]));
  return (f) => {
    const key = `${f.groupName}/${f.policyName}`;
    const ring = rings.get(key);
    return inOpenRing(ring, f.nodeName) ? ring!.toRevisionId : revision.get(key);
  };
}

/** A cell's health: ring nodes against the ring's revision, the others against the stage's. */
function cellHealth(stage: string, policy: string, facts: StageNodeFacts[], revisionId: string | null, ring: OpenRing | undefined, now: Date): StageHealthDto {
  const ringNodes = new Set(ring ? facts.filter((f) => inOpenRing(ring, f.nodeName)).map((f) => f.nodeName) : []);
  return {
    stage,
    policy,
    ...summarizeHealth(facts, revisionId, now, missingAfterMs(), 5, (f) => (ringNodes.has(f.nodeName) ? ring!.toRevisionId : revisionId)),
    in_ring: ringNodes.size,
    ring: ring ? { id: ring.id, percent: ring.percent, to_revision_id: ring.toRevisionId } : null,
  };
}

/**
 * Health of every (stage, policy) the viewer may see, keyed `stage/policy`.
 * A constant number of SQL statements (pointers, stages, run states, nodes, open rings)
 * whatever the number of nodes or runs.
 */
export async function rolloutHealth(access: Access, now = new Date()): Promise<Record<string, StageHealthDto>> {
  const client = db();
  const [pointers, facts, rings] = await Promise.all([
    pointerNames(client),
    loadNodeFacts(client),
    openRings(client),
  ]);
  const revision = new Map(pointers.map((p) => [`${p.stage}/${p.policy}`, p.revisionId]));
  const byCell = new Map<string, typeof facts>();
  for (const f of facts) {
    const key = `${f.groupName}/${f.policyName}`;
    if (!revision.has(key)) continue;
    (byCell.get(key) ?? byCell.set(key, []).get(key)!).push(f);
  }
  const out: Record<string, StageHealthDto> = {};
  for (const p of pointers) {
    if (!can(access, 'stage.view', { stage: p.stage })) continue;
    const key = `${p.stage}/${p.policy}`;
    out[key] = cellHealth(p.stage, p.policy, byCell.get(key) ?? [], p.revisionId, rings.get(key), now);
  }
  return out;
}

/** Health of one stage and policy (view on the stage). */
export async function stageHealth(access: Access, stage: string, policy: string, now = new Date()): Promise<StageHealthDto> {
  const client = db();
  const group = await requireGroup(client, stage, access);
  const p = await requirePolicy(client, policy);
  const pointer = await client.groupPolicy.findUnique({ where: { groupId_policyId: { groupId: group.id, policyId: p.id } }, select: { revision: { select: { revisionId: true } } } });
  const facts = (await loadNodeFacts(client, { groupNames: [group.name], policyName: p.name })).filter((f) => f.groupName === group.name && f.policyName === p.name);
  const rings = await openRings(client, { stage: group.name, policy: p.name });
  return cellHealth(group.name, p.name, facts, pointer?.revision.revisionId ?? null, rings.get(`${group.name}/${p.name}`), now);
}

// ------------------------------------------------------------------ run history

export interface RunReportDto {
  run_id: string;
  node: string;
  stage: string | null;
  policy: string | null;
  revision_id: string | null;
  status: 'started' | 'success' | 'failure';
  start_time: string;
  end_time: string | null;
  duration_ms: number | null;
  total_resources: number;
  updated_resources: number;
  failed_resources: number;
  error: { class: string | null; message: string | null; resource: string | null; cookbook: string | null; recipe: string | null } | null;
  /** Resources that changed or failed (up-to-date and skipped ones are counted only). */
  changed: { type: string; name: string; status: string; action: string | null; duration_ms: number | null; cookbook: string | null; recipe: string | null; error: string | null }[];
  deprecations: number;
}

type RunRow = {
  runId: string;
  nodeName: string;
  groupName: string | null;
  policyName: string | null;
  revisionId: string | null;
  status: string;
  startTime: Date;
  endTime: Date | null;
  durationMs: number | null;
  totalResources: number;
  updatedResources: number;
  failedResources: number;
  errorClass: string | null;
  errorMessage: string | null;
  failedResource: string | null;
  failedCookbook: string | null;
  failedRecipe: string | null;
  resources: string;
  deprecations: string;
};

function runDto(r: RunRow): RunReportDto {
  const resources = JSON.parse(r.resources) as RunReportDto['changed'];
  return {
    run_id: r.runId,
    node: r.nodeName,
    stage: r.groupName,
    policy: r.policyName,
    revision_id: r.revisionId,
    status: r.status as RunReportDto['status'],
    start_time: r.startTime.toISOString(),
    end_time: r.endTime?.toISOString() ?? null,
    duration_ms: r.durationMs,
    total_resources: r.totalResources,
    updated_resources: r.updatedResources,
    failed_resources: r.failedResources,
    error: r.status === 'failure' ? { class: r.errorClass, message: r.errorMessage, resource: r.failedResource, cookbook: r.failedCookbook, recipe: r.failedRecipe } : null,
    changed: resources.filter((x) => x.status === 'updated' || x.status === 'failed'),
    deprecations: (JSON.parse(r.deprecations) as unknown[]).length,
  };
}

/** A node's runs, newest first (view on the node's stage; unknown and unviewable nodes look alike). */
export async function nodeRunHistory(access: Access, nodeName: string, opts: { limit?: number } = {}): Promise<RunReportDto[]> {
  const client = db();
  const node = await client.node.findUnique({ where: { name: nodeName }, select: { group: { select: { name: true } } } });
  const state = await client.nodeRunState.findUnique({ where: { nodeName }, select: { groupName: true } });
  if (!node && !state) throw notFound(`node '${nodeName}' not found`);
  const stage = node?.group?.name ?? state?.groupName ?? null;
  if (!canReadNode(access, stage)) throw notFound(`node '${nodeName}' not found`);
  const rows = await client.runReport.findMany({ where: { nodeName }, orderBy: [{ startTime: 'desc' }, { id: 'desc' }], take: Math.min(Math.max(opts.limit ?? 50, 1), 500) });
  return rows.filter((r) => !r.groupName || r.groupName === stage || canReadNode(access, r.groupName)).map(runDto);
}

/** Runs of a stage and policy, newest first, optionally of one revision (view on the stage). */
export async function stageRuns(access: Access, stage: string, policy: string, opts: { revisionId?: string; limit?: number } = {}): Promise<RunReportDto[]> {
  const client = db();
  const group = await requireGroup(client, stage, access);
  const rows = await client.runReport.findMany({
    where: { groupName: group.name, policyName: policy, ...(opts.revisionId ? { revisionId: opts.revisionId } : {}), status: { in: ['success', 'failure'] } },
    orderBy: [{ endTime: 'desc' }, { id: 'desc' }],
    take: Math.min(Math.max(opts.limit ?? 50, 1), 500),
  });
  return rows.map(runDto);
}

// ------------------------------------------------------------------ rules

export interface StageRolloutRuleDto {
  stage: string;
  gate: { enabled: boolean; min_success_pct: number; min_nodes: number; max_failure_pct: number; soak_minutes: number; checks: GateCheck[] };
  /** Issue 47: automatic promotion into this stage. */
  auto_promote: { enabled: boolean; soak_minutes: number | null };
  /** Issue 47: the automation's state (lib/services/runs/auto-promote.ts). */
  automation: AutomationStateDto;
  rollback: { enabled: boolean; window_minutes: number; failure_pct: number; min_runs: number };
  /** The stage the gate looks at (the one before, by position), null for the first stage. */
  gate_from_stage: string | null;
  updated_by: string | null;
  updated_at: string | null;
}

const DEFAULT_RULE = {
  gateEnabled: false,
  gateMinSuccessPct: 90,
  gateMinNodes: 1,
  gateMaxFailurePct: 10,
  gateSoakMinutes: 0,
  rollbackEnabled: false,
  rollbackWindowMinutes: 60,
  rollbackFailurePct: 50,
  rollbackMinRuns: 3,
  gateChecks: '[]',
  autoPromoteEnabled: false,
  autoPromoteSoakMinutes: null as number | null,
  heldAt: null as Date | null,
  heldByEmail: null as string | null,
  heldReason: null as string | null,
  heldSource: null as string | null,
  autoWaiting: '{}',
  updatedByEmail: null,
  updatedAt: null as Date | null,
};

async function ruleDto(tx: Tx, group: { id: string; name: string; position: number }): Promise<StageRolloutRuleDto> {
  const r = (await tx.stageRolloutRule.findUnique({ where: { groupName: group.name } })) ?? DEFAULT_RULE;
  const prev = await tx.policyGroup.findFirst({ where: { position: { lt: group.position } }, orderBy: [{ position: 'desc' }, { name: 'asc' }], select: { name: true } });
  return {
    stage: group.name,
    gate: { enabled: r.gateEnabled, min_success_pct: r.gateMinSuccessPct, min_nodes: r.gateMinNodes, max_failure_pct: r.gateMaxFailurePct, soak_minutes: r.gateSoakMinutes, checks: JSON.parse(r.gateChecks) as GateCheck[] },
    auto_promote: { enabled: r.autoPromoteEnabled, soak_minutes: r.autoPromoteSoakMinutes },
    automation: automationState(r),
    rollback: { enabled: r.rollbackEnabled, window_minutes: r.rollbackWindowMinutes, failure_pct: r.rollbackFailurePct, min_runs: r.rollbackMinRuns },
    gate_from_stage: prev?.name ?? null,
    updated_by: r.updatedByEmail,
    updated_at: r.updatedAt?.toISOString() ?? null,
  };
}

/** A stage's gate and rollback rule (view on the stage). */
export async function getStageRolloutRule(access: Access, stage: string): Promise<StageRolloutRuleDto> {
  const client = db();
  const group = await requireGroup(client, stage, access);
  return ruleDto(client, group);
}

/** The input's one definition (parsed at the caller's edge: the action, the API contract); the ranges below are the rules engine's. */
export { ZSetStageRolloutRule } from '@/lib/validation/rollout-rules';
export type SetStageRolloutRuleInput = z.output<typeof ZSetStageRolloutRule>;

/** Sets a stage's gate and/or rollback rule (manage on the stage; audited). Omitted numbers keep their value. */
export async function setStageRolloutRule(access: Access, input: SetStageRolloutRuleInput): Promise<StageRolloutRuleDto> {
  return transaction(async (tx) => {
    const group = await requireGroup(tx, input.stage, access);
    assertCan(access, 'stage.manage', { stage: group.name });
    const before = await ruleDto(tx, group);
    const cur = (await tx.stageRolloutRule.findUnique({ where: { groupName: group.name } })) ?? DEFAULT_RULE;
    const g = input.gate;
    const rb = input.rollback;
    const ap = input.auto_promote;
    // Issue 47: outside checks. The server fetches their URLs, so only an administrator registers or changes them;
    // each URL meets the webhook rules on private targets (the one rule, net-guard.ts) unless that check allows it.
    let checks = cur.gateChecks;
    if (g?.checks) {
      const wanted = g.checks as GateCheck[];
      const problems = validateGateChecks(wanted);
      if (problems.length) throw badRequest(problems[0].message, problems);
      const normalized = wanted.map((c, i) => ({
        ...c,
        url: checkTargetUrl(c.url, !!c.allow_private_targets, { path: `/gate/checks/${i}/url`, allowField: `gate.checks[${i}].allow_private_targets` }),
      }));
      const nextChecks = JSON.stringify(normalized);
      if (nextChecks !== cur.gateChecks) {
        assertCan(access, 'checks.manage');
        checks = nextChecks;
      }
    }
    const next = {
      gateEnabled: g ? g.enabled : cur.gateEnabled,
      gateMinSuccessPct: g?.min_success_pct ?? cur.gateMinSuccessPct,
      gateMinNodes: g?.min_nodes ?? cur.gateMinNodes,
      gateMaxFailurePct: g?.max_failure_pct ?? cur.gateMaxFailurePct,
      gateSoakMinutes: g?.soak_minutes ?? cur.gateSoakMinutes,
      rollbackEnabled: rb ? rb.enabled : cur.rollbackEnabled,
      rollbackWindowMinutes: rb?.window_minutes ?? cur.rollbackWindowMinutes,
      rollbackFailurePct: rb?.failure_pct ?? cur.rollbackFailurePct,
      rollbackMinRuns: rb?.min_runs ?? cur.rollbackMinRuns,
      gateChecks: checks,
      autoPromoteEnabled: ap ? ap.enabled : cur.autoPromoteEnabled,
      autoPromoteSoakMinutes: ap ? (ap.soak_minutes ?? (ap.enabled ? cur.autoPromoteSoakMinutes : null)) : cur.autoPromoteSoakMinutes,
    };
    const problems = [
      ...validateAutoPromote({ enabled: next.autoPromoteEnabled, soakMinutes: next.autoPromoteSoakMinutes, gateEnabled: next.gateEnabled, hasPreviousStage: !!before.gate_from_stage }),
      ...validateGateRule({ minSuccessPct: next.gateMinSuccessPct, minNodes: next.gateMinNodes, maxFailurePct: next.gateMaxFailurePct, soakMinutes: next.gateSoakMinutes }, '/gate'),
      ...validateRollbackRule({ windowMinutes: next.rollbackWindowMinutes, failurePct: next.rollbackFailurePct, minRuns: next.rollbackMinRuns }, '/rollback'),
    ];
    if (problems.length) throw badRequest(problems[0].message, problems);
    const data = { ...next, updatedByEmail: access.email, updatedAt: new Date() };
    await tx.stageRolloutRule.upsert({ where: { groupName: group.name }, create: { groupName: group.name, ...data }, update: data });
    const after = await ruleDto(tx, group);
    await audit(tx, access, {
      action: 'stage.rollout_rule',
      targetType: 'stage',
      target: group.name,
      groupName: group.name,
      before: { gate: before.gate, rollback: before.rollback, auto_promote: before.auto_promote },
      after: { gate: after.gate, rollback: after.rollback, auto_promote: after.auto_promote },
      requestId: input.requestId,
    });
    return after;
  });
}

/**
 * The gate's state for moving a revision into a stage, for the dialogs
 * (before the click) and the API: null when the stage has no gate. View on
 * the stage; `revisionId` of `policy`, or the one `fromStage` runs.
 */
export async function gateState(access: Access, input: { stage: string; policy: string; revisionId?: string; fromStage?: string }, now = new Date()): Promise<(GateEvaluation & { stage: string; policy: string; can_override: boolean }) | null> {
  const client = db();
  const group = await requireGroup(client, input.stage, access);
  const policy = await requirePolicy(client, input.policy);
  let revisionId = input.revisionId;
  if (!revisionId && input.fromStage) {
    const from = await requireGroup(client, input.fromStage, access);
    revisionId = (await client.groupPolicy.findUnique({ where: { groupId_policyId: { groupId: from.id, policyId: policy.id } }, select: { revision: { select: { revisionId: true } } } }))?.revision.revisionId;
  }
  if (!revisionId) return null;
  // Issue 47: the outside checks, evaluated now (recorded; the answer shows each result, value and duration).
  await refreshChecks(group.name, policy.name, revisionId, now);
  const gate = await evaluateStageGate(client, group, policy.name, revisionId, now);
  return gate ? { ...gate, stage: group.name, policy: policy.name, can_override: can(access, 'stage.manage', { stage: group.name }) } : null;
}

// ------------------------------------------------------------------ after each run

export interface ReportedRun {
  group: string;
  policy: string;
  revisionId: string | null;
  status: 'success' | 'failure';
  nodeName: string;
  failedResource: string | null;
  failedCookbook: string | null;
  errorMessage: string | null;
  endTime: Date;
}

/** Records an announcement once (the unique key decides between instances); false when it was already made. */
async function once(tx: Tx, key: string, data: { groupName: string; policyName: string; revisionId: string; event: string; evidence: unknown }, now: Date): Promise<boolean> {
  if (await tx.rolloutOutcome.findUnique({ where: { key }, select: { id: true } })) return false;
  await tx.rolloutOutcome.create({ data: { key, groupName: data.groupName, policyName: data.policyName, revisionId: data.revisionId, event: data.event, evidence: JSON.stringify(data.evidence), createdAt: now } });
  return true;
}

/** Runs `fn` in a transaction; a lost race on a unique key (another instance did it) is "nothing to do". */
async function onceTx(fn: (tx: Tx) => Promise<void>): Promise<void> {
  try {
    await transaction(fn);
  } catch (e) {
    if (!isUniqueViolation(e)) throw e;
  }
}

/**
 * Called after a finished run is stored. Only runs on the stage's current
 * revision matter; the change is the latest pointer history row that moved
 * the stage to it.
 */
export async function afterRunReported(run: ReportedRun, now = new Date()): Promise<void> {
  if (!run.revisionId) return;
  const client = db();
  const pointer = await client.groupPolicy.findFirst({
    where: { group: { name: run.group }, policy: { name: run.policy } },
    select: { groupId: true, policyId: true, revisionPk: true, revision: { select: { revisionId: true } } },
  });
  if (!pointer || pointer.revision.revisionId !== run.revisionId) return;
  const change = await client.pointerHistory.findFirst({ where: { groupName: run.group, policyName: run.policy, toRevisionId: run.revisionId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], select: { id: true, fromRevisionId: true, createdAt: true } });
  if (!change) return;
  const base = { stage: run.group, policy: run.policy, revision_id: run.revisionId, previous_revision_id: change.fromRevisionId, changed_at: change.createdAt.toISOString() };

  if (run.status === 'failure') {
    await onceTx(async (tx) => {
      const evidence = { ...base, node: run.nodeName, resource: run.failedResource, cookbook: run.failedCookbook, error: run.errorMessage };
      if (!(await once(tx, `${change.id}:rollout.failed`, { groupName: run.group, policyName: run.policy, revisionId: run.revisionId!, event: 'rollout.failed', evidence }, now))) return;
      const where = run.failedResource ? ` at ${clip(run.failedResource, 200)}${run.failedCookbook ? ` (${clip(run.failedCookbook, 100)})` : ''}` : '';
      await emitEvent(tx, 'rollout.failed', oneLine(`${run.nodeName} failed to converge ${run.policy} ${short(run.revisionId)} in ${run.group}${where}: ${clip(run.errorMessage ?? 'no message', EVENT_TEXT_MAX)}. ${historyLink(run.group, run.policy)}`), evidence, {
        at: now,
        message: rolloutMessage(run.group, run.policy, `Failed: ${run.nodeName} on ${run.policy} in ${run.group}`, [
          ['Node', run.nodeName],
          ['Revision', short(run.revisionId)],
          ...(run.failedResource ? ([['Resource', `${clip(run.failedResource, 200)}${run.failedCookbook ? ` (${clip(run.failedCookbook, 100)})` : ''}`]] as [string, string][]) : []),
          ['Error', clip(run.errorMessage ?? 'no message', EVENT_TEXT_MAX)],
        ]),
      });
    });
    await maybeRollBack(run, pointer, change, now);
    return;
  }

  // rollout.converged: every counted node converged it. The cheap look first: any state here not yet a success on it?
  if (await client.rolloutOutcome.findUnique({ where: { key: `${change.id}:rollout.converged` }, select: { id: true } })) return;
  // Nodes that stopped reporting (missing) do not hold the announcement back: the health below does not count them either.
  const notYet = await client.nodeRunState.count({
    where: { groupName: run.group, policyName: run.policy, receivedAt: { gte: new Date(now.getTime() - missingAfterMs()) }, OR: [{ status: { not: 'success' } }, { revisionId: { not: run.revisionId } }, { revisionId: null }] },
  });
  if (notYet > 0) return;
  const facts = (await loadNodeFacts(client, { groupNames: [run.group], policyName: run.policy })).filter((f) => f.groupName === run.group && f.policyName === run.policy);
  const health = summarizeHealth(facts, run.revisionId, now, missingAfterMs());
  if (health.failed || health.pending || !health.converged) return;
  await onceTx(async (tx) => {
    const evidence = { ...base, nodes: health.nodes, converged: health.converged, missing: health.missing };
    if (!(await once(tx, `${change.id}:rollout.converged`, { groupName: run.group, policyName: run.policy, revisionId: run.revisionId!, event: 'rollout.converged', evidence }, now))) return;
    await emitEvent(tx, 'rollout.converged', `${run.policy} ${short(run.revisionId)} converged on ${health.converged} node(s) in ${run.group}${health.missing ? ` (${health.missing} missing)` : ''}. ${historyLink(run.group, run.policy)}`, evidence, {
      at: now,
      message: rolloutMessage(run.group, run.policy, `Converged: ${run.policy} in ${run.group}`, [
        ['Revision', short(run.revisionId)],
        ['Nodes', `${health.converged} converged${health.missing ? `, ${health.missing} missing` : ''}`],
      ]),
    });
  });
}

/** One evaluation to come for a stage × policy × revision: the runs that joined it, and who waits for it. */
interface PendingEvaluation {
  /** The first failed run that joined (rollout.failed's evidence), the last successful one. */
  failure: ReportedRun | null;
  success: ReportedRun | null;
  now: Date;
  waiters: (() => void)[];
}

/** Evaluations running or waiting, per stage × policy × revision: one map per process (lib/process-state.ts), whichever copy reported the run. */
const evaluations = processState('rollout.evaluations', () => new Map<string, { pending: PendingEvaluation | null }>());

/**
 * afterRunReported, coalesced per stage × policy × revision (issue 26, ingest
 * speed): while one evaluation runs, the runs reported meanwhile join the
 * next one, which starts when it ends — so a burst of runs costs a few
 * evaluations, not one each. Every caller's promise settles after an
 * evaluation that started after its run was stored (so it saw that run),
 * as when each run was evaluated on its own; what the evaluation decides is
 * read from the stored runs and states, and each announcement and the
 * rollback happen once (the RolloutOutcome keys, across instances too).
 * Failures do not reject (the run is stored; the worker's pass evaluates the
 * rollback again).
 */
export function evaluateAfterRun(run: ReportedRun, now = new Date()): Promise<void> {
  if (!run.revisionId) return Promise.resolve();
  const key = `${run.group}\0${run.policy}\0${run.revisionId}`;
  let slot = evaluations.get(key);
  const start = !slot;
  if (!slot) evaluations.set(key, (slot = { pending: null }));
  const p = (slot.pending ??= { failure: null, success: null, now, waiters: [] });
  if (run.status === 'failure') p.failure ??= run;
  else p.success = run;
  if (now > p.now) p.now = now;
  const done = new Promise<void>((resolve) => p.waiters.push(resolve));
  if (start) void drainEvaluations(key, slot);
  return done;
}

/**
 * Whether afterRunReported could do anything for this run: one read of what
 * it looks at first (rolloutPrecheck). No when the stage does not run the
 * revision; for a failure, when rollout.failed was announced and there is no
 * rollback to make (rule off, made already, or nothing to go back to); for a
 * success, when rollout.converged was announced or a counted node has not
 * converged the revision yet. Otherwise afterRunReported decides, as always.
 */
async function mayHaveWork(run: ReportedRun, now: Date): Promise<boolean> {
  const c = await rolloutPrecheck(run.group, run.policy, run.revisionId!, new Date(now.getTime() - missingAfterMs()));
  if (!c) return false;
  if (run.status === 'failure') return !c.failedAnnounced || (c.rollbackEnabled && !c.rolledBack && !!c.fromRevisionId);
  return !c.convergedAnnounced && c.notYet === 0;
}

async function drainEvaluations(key: string, slot: { pending: PendingEvaluation | null }): Promise<void> {
  while (slot.pending) {
    const p = slot.pending;
    slot.pending = null;
    for (const run of [p.failure, p.success]) {
      if (!run) continue;
      try {
        if (await mayHaveWork(run, p.now)) await afterRunReported(run, p.now);
      } catch (e) {
        // The runs are stored; the rollout's evaluation runs again with the next report (and the worker's pass).
        if (!(e instanceof AppError)) console.error('[rollout] evaluation after a run failed', e);
      }
    }
    for (const w of p.waiters) w();
  }
  evaluations.delete(key);
}

/** The stage's rollback rule, when enabled. */
async function rollbackRuleOf(groupName: string): Promise<RollbackRule | null> {
  const r = await db().stageRolloutRule.findUnique({ where: { groupName }, select: { rollbackEnabled: true, rollbackWindowMinutes: true, rollbackFailurePct: true, rollbackMinRuns: true } });
  return r?.rollbackEnabled ? { windowMinutes: r.rollbackWindowMinutes, failurePct: r.rollbackFailurePct, minRuns: r.rollbackMinRuns } : null;
}

async function maybeRollBack(
  run: ReportedRun,
  pointer: { groupId: string; policyId: string; revisionPk: string },
  change: { id: string; fromRevisionId: string | null; createdAt: Date },
  now: Date,
): Promise<boolean> {
  if (!change.fromRevisionId) return false; // nothing ran before: nothing to go back to
  const rule = await rollbackRuleOf(run.group);
  if (!rule) return false;
  // chef-client reports times to the second: a run that ended in the second of the change counts.
  const changeAt = secondOf(change.createdAt);
  const windowEnd = new Date(changeAt.getTime() + rule.windowMinutes * 60_000);
  const runs = await db().runReport.findMany({
    where: { groupName: run.group, policyName: run.policy, revisionId: run.revisionId, status: { in: ['success', 'failure'] }, endTime: { gte: changeAt, lte: windowEnd } },
    select: { status: true, endTime: true, nodeName: true, failedResource: true, failedCookbook: true },
    orderBy: [{ endTime: 'asc' }, { id: 'asc' }],
    take: 100_000,
  });
  // Issue 41: distinct nodes, each by its latest run in the window.
  const e = evaluateRollback({ rule, changeAt, now, runs: runs.map((r) => ({ node: r.nodeName, status: r.status as 'success' | 'failure', endTime: r.endTime! })) });
  if (!e.trigger) return false;
  const ruleText = `≥ ${rule.failurePct}% of at least ${rule.minRuns} node(s) failed within ${rule.windowMinutes} minute(s)`;
  // Where the failed nodes stopped: each failed node's latest failing run, grouped by cookbook and resource.
  const lastFailure = new Map<string, { failedResource: string | null; failedCookbook: string | null }>();
  for (const r of runs) if (r.status === 'failure' && e.failedNodes.includes(r.nodeName)) lastFailure.set(r.nodeName, r);
  const groups = new Map<string, { cookbook: string | null; resource: string | null; nodes: number }>();
  for (const f of lastFailure.values()) {
    const key = JSON.stringify([f.failedCookbook, f.failedResource]);
    const g = groups.get(key) ?? { cookbook: f.failedCookbook, resource: f.failedResource, nodes: 0 };
    g.nodes++;
    groups.set(key, g);
  }
  const topFailures = [...groups.values()].sort((a, b) => b.nodes - a.nodes).slice(0, 5);
  const top = topFailures.map((g) => ({ where: `${g.cookbook ?? '?'} ${g.resource ?? '?'}`, nodes: g.nodes }));
  const evidence = { rule: ruleText, runs: e.runs, failed: e.failed, failure_pct: e.failurePct, counted: 'nodes', top_failures: top, failed_nodes: e.failedNodes.slice(0, 50) };
  let done = false;
  await onceTx(async (tx) => {
    const key = `${change.id}:rollout.rolled_back`;
    if (await tx.rolloutOutcome.findUnique({ where: { key }, select: { id: true } })) return;
    const prev = await tx.policyRevision.findUnique({ where: { policyId_revisionId: { policyId: pointer.policyId, revisionId: change.fromRevisionId! } }, select: { id: true, revisionId: true } });
    if (!prev) return; // the previous revision was deleted: nothing to go back to (the failure was announced)
    await tx.rolloutOutcome.create({ data: { key, groupName: run.group, policyName: run.policy, revisionId: run.revisionId!, event: 'rollout.rolled_back', evidence: JSON.stringify(evidence), createdAt: now } });
    const summary = `automatic rollback of ${run.policy} ${short(run.revisionId)} in ${run.group}: ${e.summary}`;
    // The compare-and-swap on the revision that failed: if anyone moved the stage meanwhile, this is a 409 and nothing happens.
    const moved = await movePointer(tx, SYSTEM_ACTOR, {
      group: { id: pointer.groupId, name: run.group },
      policy: { id: pointer.policyId, name: run.policy },
      to: { pk: prev.id, revisionId: prev.revisionId },
      kind: 'rollback',
      reason: summary,
      expectedRevisionId: run.revisionId,
      automaticRollback: { rule: ruleText, evidence },
      at: now,
    });
    if (!moved.changed) return;
    // Issues 41 and 43: the failure is evidence about THIS stage (a stage verdict), not a global bad mark that every
    // other stage would inherit: moving the revision into this stage again needs a manager's written override;
    // elsewhere the guard's answer, the board and the journey tell of it.
    const verdict = await recordVerdict(tx, {
      key: `rollback:${change.id}`,
      stage: run.group,
      policy: run.policy,
      revisionId: run.revisionId!,
      source: 'rollback',
      nodes: e.runs,
      failedNodes: e.failed,
      failedResource: topFailures[0]?.resource ?? null,
      failedCookbook: topFailures[0]?.cookbook ?? null,
      failedNodeNames: e.failedNodes,
      extra: { rule: ruleText, top_failures: topFailures },
      at: now,
    });
    await audit(tx, SYSTEM_ACTOR, { action: 'revision.failed_in_stage', targetType: 'revision', target: `${run.policy}@${run.revisionId}`, policyName: run.policy, groupName: run.group, after: { verdict: verdict.id, evidence }, reason: verdict.summary });
    await emitEvent(tx, 'rollout.rolled_back', oneLine(`${run.group} rolled back ${run.policy} ${short(run.revisionId)} → ${short(prev.revisionId)}: ${e.summary}. ${historyLink(run.group, run.policy)}`), { stage: run.group, policy: run.policy, from_revision_id: run.revisionId, to_revision_id: prev.revisionId, audit_id: moved.auditId, evidence, verdict }, {
      at: now,
      message: rolloutMessage(run.group, run.policy, `Rolled back automatically: ${run.policy} in ${run.group}`, [
        ['Rolled back', `${short(run.revisionId)} → ${short(prev.revisionId)}`],
        ['Failed nodes', `${e.failed} of ${e.runs}`],
        ...(topFailures[0] ? ([['Top failure', `${topFailures[0].resource ?? '?'}${topFailures[0].cookbook ? ` (${topFailures[0].cookbook})` : ''}`]] as [string, string][]) : []),
      ]),
    });
    done = true;
  });
  return done;
}

/** Re-evaluates the rollback of every stage with a rule on the latest failed run (the worker's pass; normally the ingest decides). */
export async function evaluateRollbacks(now = new Date()): Promise<number> {
  const rules = await db().stageRolloutRule.findMany({ where: { rollbackEnabled: true }, select: { groupName: true } });
  let n = 0;
  for (const r of rules) {
    const pointers = await db().groupPolicy.findMany({ where: { group: { name: r.groupName } }, select: { groupId: true, policyId: true, revisionPk: true, policy: { select: { name: true } }, revision: { select: { revisionId: true } } } });
    for (const p of pointers) {
      const change = await db().pointerHistory.findFirst({ where: { groupName: r.groupName, policyName: p.policy.name, toRevisionId: p.revision.revisionId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], select: { id: true, fromRevisionId: true, createdAt: true } });
      if (!change) continue;
      const last = await db().runReport.findFirst({ where: { groupName: r.groupName, policyName: p.policy.name, revisionId: p.revision.revisionId, status: 'failure', endTime: { gte: secondOf(change.createdAt) } }, orderBy: { endTime: 'desc' } });
      if (!last) continue;
      const run: ReportedRun = { group: r.groupName, policy: p.policy.name, revisionId: p.revision.revisionId, status: 'failure', nodeName: last.nodeName, failedResource: last.failedResource, failedCookbook: last.failedCookbook, errorMessage: last.errorMessage, endTime: last.endTime! };
      if (await maybeRollBack(run, p, change, now)) n++;
    }
  }
  return n;
}
