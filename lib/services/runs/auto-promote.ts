/**
 * Issue 47: automatic promotion. When the revision the stage before runs meets a stage's gate (its nodes,
 * its soak time, its outside checks) and has soaked `auto_promote.soak_minutes` there, the rollout worker's
 * pass promotes it through `movePointer` — the same guard a person meets, overriding nothing: a freeze makes
 * it wait, a bad revision or one that failed in the stage never moves, an unmet gate waits, a protected stage
 * gets a promotion request (the automation asks like a person). It acts as the system actor
 * (`system (automatic promotion)`, via `auto-promote`) with the evidence in the audit event, the history line
 * and the stage's timeline.
 *
 * Exactly once across instances: the promotion of a revision into a stage is claimed by creating its timeline
 * entry under a unique key (`auto:<stage>/<policy>/<the stage's latest move>/<revision>`) in the transaction of the move; a second
 * instance's insert fails on the key (its transaction rolls back) or finds the entry; the pointer's
 * compare-and-swap refuses a second move too. A refusal rolls the claim back with the move, so the revision
 * is tried again on the next pass.
 *
 * Holds (a person's rollback, a person's promotion of another revision, a ring rolled back for failures) are
 * written where they happen (internal/automation.ts); `resumeAutomation` lifts them.
 */
import { db } from '@/lib/db/client';
import { assertCan, can, type Access } from '@/lib/auth/permissions';
import { AppError, conflict, isAppError } from '@/lib/errors';
import type { CheckResult, GateEvaluation } from '@/lib/domain/rollout';
import {
  audit,
  AUTO_PROMOTE_ACTOR,
  automationState,
  timelineLink,
  type AutomationStateDto,
  type AutomationWaitingDto,
  refreshChecks,
  requireGroup,
  emitEvent,
  movePointer,
  isUniqueViolation,
  transaction,
  evaluateStageGate,
} from '@/lib/services/funnel';

export type { AutomationStateDto } from '@/lib/services/funnel';

const short = (r: string | null) => (r ? r.slice(0, 10) : 'nothing');
const minutes = (ms: number) => Math.max(0, Math.floor(ms / 60_000));

/** The words of the evidence: "auto-promoted: 2 of 2 node(s) in dev converged 31 min ago, checks passed (smoke)". */
function evidenceWords(gate: GateEvaluation, now: Date): string {
  const ago = gate.metSince ? ` ${minutes(now.getTime() - Date.parse(gate.metSince))} min ago` : '';
  const checks = gate.checks?.length ? `, checks passed (${gate.checks.map((c) => `${c.name}${c.value !== null ? ` = ${c.value}` : ''}`).join(', ')})` : '';
  return `auto-promoted: ${gate.converged} of ${gate.counted} node(s) in ${gate.fromStage} converged revision ${short(gate.revisionId)}${ago}${checks}`;
}

function gateEvidence(gate: GateEvaluation) {
  return {
    from_stage: gate.fromStage,
    revision_id: gate.revisionId,
    nodes: gate.nodes,
    counted: gate.counted,
    converged: gate.converged,
    failed: gate.failed,
    required: gate.required,
    met_since: gate.metSince,
    soaked_minutes: gate.soakedMinutes,
    checks: (gate.checks ?? []).map((c: CheckResult) => ({ name: c.name, kind: c.kind, result: c.result, value: c.value, detail: c.detail, duration_ms: c.duration_ms, at: c.at })),
  };
}

type Outcome = { stage: string; policy: string; revisionId: string; status: 'promoted' | 'requested' | 'waiting' | 'lost' | 'done'; waiting?: Omit<AutomationWaitingDto, 'policy' | 'at'> };

/** The previous stage (by position) of a stage. */
async function previousStage(position: number) {
  return db().policyGroup.findFirst({ where: { position: { lt: position } }, orderBy: [{ position: 'desc' }, { name: 'asc' }], select: { id: true, name: true } });
}

/**
 * One policy of one stage: promote the revision the stage before runs when the evidence is in. Only policies the
 * stage already runs are promoted (a policy's first arrival in a stage stays a person's decision).
 */
async function considerOne(
  stage: { id: string; name: string },
  prevName: string,
  policy: { id: string; name: string },
  target: { pk: string; revisionId: string },
  current: string,
  autoSoakMinutes: number | null,
  now: Date,
): Promise<Outcome> {
  const base = { stage: stage.name, policy: policy.name, revisionId: target.revisionId };
  // Once per state of the stage: its latest move (a person's rollback after a resume makes a new state, so the
  // automation may promote the revision again once resumed; the same state never twice).
  const last = await db().pointerHistory.findFirst({ where: { groupName: stage.name, policyName: policy.name }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], select: { id: true } });
  const key = `auto:${stage.name}/${policy.name}/${last?.id ?? 'none'}/${target.revisionId}`;
  const done = await db().automationEvent.findUnique({ where: { key }, select: { kind: true, evidence: true } });
  if (done) {
    if (done.kind !== 'auto_requested') return { ...base, status: 'done' };
    const requestId = (JSON.parse(done.evidence) as { request_id?: string }).request_id;
    const req = requestId ? await db().promotionRequest.findUnique({ where: { id: requestId }, select: { status: true } }) : null;
    return req?.status === 'pending' ? { ...base, status: 'waiting', waiting: { revision_id: target.revisionId, waiting_for: `the approvals of promotion request ${requestId}`, until: null } } : { ...base, status: 'done' };
  }
  let gate = await evaluateStageGate(db(), stage, policy.name, target.revisionId, now);
  if (!gate) return { ...base, status: 'waiting', waiting: { revision_id: target.revisionId, waiting_for: "the stage's gate to be enabled", until: null } };
  const checksUnmet = (gate.checks ?? []).filter((c) => c.result !== 'pass').length;
  const nodesMet = gate.unmet.length === checksUnmet;
  if (!nodesMet) return { ...base, status: 'waiting', waiting: { revision_id: target.revisionId, waiting_for: `the gate: ${gate.unmet.filter((u) => !u.startsWith('check ')).join('; ')}`, until: gate.opensAt } };
  const soak = autoSoakMinutes ?? 0;
  const metAt = gate.metSince ? Date.parse(gate.metSince) : now.getTime();
  if (soak > 0 && now.getTime() - metAt < soak * 60_000) {
    return { ...base, status: 'waiting', waiting: { revision_id: target.revisionId, waiting_for: `the soak time: converged in ${prevName} for ${minutes(now.getTime() - metAt)} of ${soak} minute(s)`, until: new Date(metAt + soak * 60_000).toISOString() } };
  }
  // Soaked: on the timeline once (the unique key decides between instances).
  try {
    await db().automationEvent.create({
      data: { key: `soaked:${stage.name}/${policy.name}/${target.revisionId}`, groupName: stage.name, policyName: policy.name, revisionId: target.revisionId, kind: 'soaked', summary: `${policy.name} ${short(target.revisionId)} converged on ${gate.converged} of ${gate.counted} node(s) in ${prevName} and soaked ${minutes(now.getTime() - metAt)} min`, actorEmail: AUTO_PROMOTE_ACTOR.email, evidence: JSON.stringify(gateEvidence(gate)), createdAt: now },
    });
  } catch (e) {
    if (!isUniqueViolation(e)) throw e;
  }
  if (gate.checks?.length) {
    // The outside checks, fresh (never inside a transaction); the guard reads these evaluations.
    await refreshChecks(stage.name, policy.name, target.revisionId, now);
    gate = (await evaluateStageGate(db(), stage, policy.name, target.revisionId, now))!;
    if (!gate.met) return { ...base, status: 'waiting', waiting: { revision_id: target.revisionId, waiting_for: `the gate: ${gate.unmet.join('; ')}`, until: null } };
  }
  const words = evidenceWords(gate, now);
  const evidence = gateEvidence(gate);
  try {
    const status = await db().$transaction(async (tx) => {
      if (await tx.automationEvent.findUnique({ where: { key }, select: { id: true } })) return 'lost' as const;
      // The claim: another instance's insert of the same key fails, and its transaction rolls back with its move.
      const claim = await tx.automationEvent.create({ data: { key, groupName: stage.name, policyName: policy.name, revisionId: target.revisionId, kind: 'auto_promoted', summary: words, actorEmail: AUTO_PROMOTE_ACTOR.email, evidence: JSON.stringify(evidence), createdAt: now } });
      const moved = await movePointer(tx, AUTO_PROMOTE_ACTOR, {
        group: stage,
        policy,
        to: target,
        kind: 'promote',
        reason: words,
        expectedRevisionId: current,
        origin: { from_stage: prevName, auto_promote: evidence },
        automaticPromotion: { evidence },
        at: now,
      });
      if (moved.request) {
        const summary = `automatic promotion of ${policy.name} ${short(target.revisionId)} into ${stage.name} asks for approval (request ${moved.request.id}): ${words.replace(/^auto-promoted: /, '')}`;
        await tx.automationEvent.update({ where: { id: claim.id }, data: { kind: 'auto_requested', summary, evidence: JSON.stringify({ ...evidence, request_id: moved.request.id }) } });
        return 'requested' as const;
      }
      if (!moved.changed) return 'done' as const;
      await tx.automationEvent.update({ where: { id: claim.id }, data: { evidence: JSON.stringify({ ...evidence, audit_id: moved.auditId }) } });
      await emitEvent(tx, 'promotion.automatic', `${stage.name} ${words} (${policy.name} ${short(current)} → ${short(target.revisionId)}). ${timelineLink(stage.name, policy.name)}`, { stage: stage.name, policy: policy.name, from_revision_id: current, to_revision_id: target.revisionId, audit_id: moved.auditId, evidence }, {
        at: now,
        message: {
          title: `Promoted automatically: ${policy.name} into ${stage.name}`,
          link: { url: timelineLink(stage.name, policy.name), label: `Open the history of ${policy.name} in ${stage.name}` },
          facts: [
            ['Stage', stage.name],
            ['Policy', policy.name],
            ['Moved', `${short(current)} → ${short(target.revisionId)}`],
            ['Evidence', words.replace(/^auto-promoted: /, '')],
          ],
        },
      });
      return 'promoted' as const;
    });
    if (status === 'requested') return { ...base, status, waiting: { revision_id: target.revisionId, waiting_for: 'the approvals of the promotion request it opened', until: null } };
    return { ...base, status };
  } catch (e) {
    if (isUniqueViolation(e)) return { ...base, status: 'lost' };
    if (!isAppError(e)) throw e;
    // The guard said no (a freeze, a bad revision, a failure in this stage, the gate, the stage moved): wait, and say why.
    const d = e.details as { freeze?: { ends_at?: string }; gate?: { opensAt?: string | null } } | undefined;
    return { ...base, status: 'waiting', waiting: { revision_id: target.revisionId, waiting_for: (e as AppError).message, until: d?.freeze?.ends_at ?? d?.gate?.opensAt ?? null } };
  }
}

/**
 * The rollout worker's pass: every stage with automatic promotion on and not held, every policy it runs whose
 * revision differs from the stage before's. Returns what this call did; what each stage waits for is stored for
 * the board (the stage's `automation.waiting`).
 */
export async function autoPromotePass(now = new Date()): Promise<{ promoted: string[]; requested: string[]; waiting: string[] }> {
  const out = { promoted: [] as string[], requested: [] as string[], waiting: [] as string[] };
  // Check evaluations are kept as long as run reports (RUN_RETENTION_DAYS, default 30).
  const days = Number(process.env.RUN_RETENTION_DAYS) > 0 ? Number(process.env.RUN_RETENTION_DAYS) : 30;
  await db().checkEvaluation.deleteMany({ where: { createdAt: { lt: new Date(now.getTime() - days * 86_400_000) } } });
  const rules = await db().stageRolloutRule.findMany({ where: { autoPromoteEnabled: true, heldAt: null }, select: { groupName: true, autoPromoteSoakMinutes: true, autoWaiting: true } });
  for (const rule of rules) {
    const stage = await db().policyGroup.findUnique({ where: { name: rule.groupName }, select: { id: true, name: true, position: true } });
    if (!stage) continue;
    const prev = await previousStage(stage.position);
    if (!prev) continue;
    const [here, there] = await Promise.all([
      db().groupPolicy.findMany({ where: { groupId: stage.id }, select: { policyId: true, revision: { select: { revisionId: true } } } }),
      db().groupPolicy.findMany({ where: { groupId: prev.id }, select: { policyId: true, revisionPk: true, policy: { select: { name: true } }, revision: { select: { revisionId: true } } } }),
    ]);
    const running = new Map(here.map((h) => [h.policyId, h.revision.revisionId]));
    const waiting: Record<string, Omit<AutomationWaitingDto, 'policy'>> = {};
    const before = JSON.parse(rule.autoWaiting || '{}') as Record<string, Omit<AutomationWaitingDto, 'policy'>>;
    for (const p of there.sort((a, b) => (a.policy.name < b.policy.name ? -1 : 1))) {
      const current = running.get(p.policyId);
      if (!current || current === p.revision.revisionId) continue;
      const o = await considerOne({ id: stage.id, name: stage.name }, prev.name, { id: p.policyId, name: p.policy.name }, { pk: p.revisionPk, revisionId: p.revision.revisionId }, current, rule.autoPromoteSoakMinutes, now);
      const label = `${o.stage}/${o.policy}`;
      if (o.status === 'promoted') out.promoted.push(label);
      if (o.status === 'requested') out.requested.push(label);
      if (o.waiting) {
        if (o.status === 'waiting') out.waiting.push(label);
        const prior = before[p.policy.name];
        // Keep when it started waiting for the same thing.
        waiting[p.policy.name] = { ...o.waiting, at: prior && prior.waiting_for === o.waiting.waiting_for && prior.revision_id === o.waiting.revision_id ? prior.at : now.toISOString() };
      }
    }
    const next = JSON.stringify(waiting);
    // The board's words; a hold made meanwhile wins (it cleared them, and the state shows the hold).
    if (next !== rule.autoWaiting) await db().stageRolloutRule.updateMany({ where: { groupName: stage.name, heldAt: null }, data: { autoWaiting: next } });
  }
  return out;
}

/** Lifts the hold of a stage's automatic promotion (manage on the stage; audited, on the timeline, announced). */
export async function resumeAutomation(access: Access, input: { stage: string; reason?: string | null; requestId?: string | null }, now = new Date()): Promise<{ stage: string; automation: AutomationStateDto }> {
  return transaction(async (tx) => {
    const group = await requireGroup(tx, input.stage, access);
    assertCan(access, 'stage.manage', { stage: group.name });
    const rule = await tx.stageRolloutRule.findUnique({ where: { groupName: group.name } });
    if (!rule?.heldAt) throw conflict(`Automatic promotion into '${group.name}' is not held${rule?.autoPromoteEnabled ? '' : ' (it is off)'}.`, { automation: rule ? automationState(rule) : null });
    const { count } = await tx.stageRolloutRule.updateMany({ where: { groupName: group.name, heldAt: rule.heldAt }, data: { heldAt: null, heldByEmail: null, heldReason: null, heldSource: null } });
    if (count !== 1) throw conflict(`Automatic promotion into '${group.name}' was resumed meanwhile.`);
    const reason = input.reason?.trim() || null;
    const held = { at: rule.heldAt.toISOString(), by: rule.heldByEmail, reason: rule.heldReason, source: rule.heldSource };
    const summary = `automatic promotion into ${group.name} resumed by ${access.email}${reason ? `: ${reason}` : ''} (held by ${rule.heldByEmail ?? 'system'}: ${rule.heldReason ?? ''})`;
    await tx.automationEvent.create({ data: { groupName: group.name, kind: 'resumed', summary, actorEmail: access.email, evidence: JSON.stringify({ held, reason }), createdAt: now } });
    await audit(tx, access, { action: 'automation.resume', targetType: 'stage', target: group.name, groupName: group.name, before: { held }, after: { held: null }, reason, requestId: input.requestId });
    await emitEvent(tx, 'automation.resumed', `${summary}. ${timelineLink(group.name)}`, { stage: group.name, resumed_by: access.email, reason, held }, {
      at: now,
      message: { title: `Automatic promotion resumed: ${group.name}`, link: { url: timelineLink(group.name), label: `Open the history of ${group.name}` }, facts: [['Stage', group.name], ['Resumed by', access.email], ...(reason ? ([['Why', reason]] as [string, string][]) : [])] },
    });
    const after = (await tx.stageRolloutRule.findUnique({ where: { groupName: group.name } }))!;
    return { stage: group.name, automation: automationState(after) };
  });
}

// ------------------------------------------------------------------ timeline

export interface TimelineEntryDto {
  at: string;
  /** pushed | promoted | auto-promoted | requested | rolled back | removed | converged | failed | soaked | checked | held | resumed */
  kind: string;
  policy: string | null;
  revision_id: string | null;
  summary: string;
  actor: string | null;
  evidence?: Record<string, unknown>;
}

const AUTOMATION_KINDS: Record<string, string> = { auto_promoted: 'auto-promoted', auto_requested: 'requested', held: 'held', resumed: 'resumed', soaked: 'soaked' };
const POINTER_KINDS: Record<string, string> = { set: 'pushed', promote: 'promoted', 'promote-cookbook': 'promoted', rollback: 'rolled back', remove: 'removed', seed: 'pushed', ring: 'promoted' };

/**
 * Issue 47: what happened in a stage (optionally to one policy) and why, newest first: moves (pushed, promoted,
 * rolled back), rollout outcomes (converged, failed), soak, outside checks (each change of a check's result),
 * the automation's promotions and requests, holds and resumes. View on the stage.
 */
export async function stageTimeline(access: Access, input: { stage: string; policy?: string; limit?: number }): Promise<{ stage: string; policy: string | null; entries: TimelineEntryDto[] }> {
  const client = db();
  const group = await requireGroup(client, input.stage, access);
  const take = Math.min(Math.max(input.limit ?? 100, 1), 500);
  const byPolicy = input.policy ? { policyName: input.policy } : {};
  const [moves, outcomes, autos, checks] = await Promise.all([
    client.pointerHistory.findMany({ where: { groupName: group.name, ...byPolicy }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take }),
    client.rolloutOutcome.findMany({ where: { groupName: group.name, ...byPolicy, event: { in: ['rollout.converged', 'rollout.failed'] } }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take }),
    client.automationEvent.findMany({ where: { groupName: group.name, ...(input.policy ? { OR: [{ policyName: input.policy }, { policyName: null }] } : {}) }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take }),
    client.checkEvaluation.findMany({ where: { groupName: group.name, ...byPolicy }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: 1000 }),
  ]);
  const entries: TimelineEntryDto[] = [];
  // Entries of the same instant: what the automation did first (a hold above the rollback that caused it), then checks, outcomes, moves.
  for (const a of autos) {
    const kind = AUTOMATION_KINDS[a.kind] ?? a.kind;
    entries.push({ at: a.createdAt.toISOString(), kind, policy: a.policyName, revision_id: a.revisionId, summary: a.summary, actor: a.actorEmail, evidence: JSON.parse(a.evidence) as Record<string, unknown> });
  }
  // Checks: each change of a check's result for a revision (oldest first to find the changes).
  const last = new Map<string, string>();
  for (const c of [...checks].reverse()) {
    const k = `${c.policyName}\0${c.revisionId}\0${c.checkName}`;
    if (last.get(k) === c.result) continue;
    last.set(k, c.result);
    entries.push({ at: c.createdAt.toISOString(), kind: 'checked', policy: c.policyName, revision_id: c.revisionId, summary: `check '${c.checkName}' ${c.result === 'pass' ? 'passed' : c.result === 'fail' ? 'failed' : 'inconclusive'} for ${c.policyName} ${short(c.revisionId)}: ${c.detail} (${c.durationMs} ms)`, actor: null, evidence: { check: c.checkName, result: c.result, value: c.value, duration_ms: c.durationMs } });
  }
  for (const m of moves) {
    if (m.actorEmail === AUTO_PROMOTE_ACTOR.email) continue; // its automation entry tells it, with the evidence
    const kind = POINTER_KINDS[m.kind] ?? m.kind;
    entries.push({ at: m.createdAt.toISOString(), kind, policy: m.policyName, revision_id: m.toRevisionId, summary: `${m.actorEmail} ${kind === 'pushed' ? 'pushed' : kind === 'rolled back' ? 'rolled back' : kind === 'removed' ? 'removed' : 'promoted'} ${m.policyName} ${short(m.fromRevisionId)} → ${short(m.toRevisionId)}${m.reason ? `: ${m.reason}` : ''}`, actor: m.actorEmail });
  }
  for (const o of outcomes) {
    const ev = JSON.parse(o.evidence) as { converged?: number; nodes?: number; node?: string; resource?: string | null };
    const summary = o.event === 'rollout.converged' ? `${o.policyName} ${short(o.revisionId)} converged on ${ev.converged ?? '?'} node(s)` : `${ev.node ?? 'a node'} failed on ${o.policyName} ${short(o.revisionId)}${ev.resource ? ` at ${ev.resource}` : ''}`;
    entries.push({ at: o.createdAt.toISOString(), kind: o.event === 'rollout.converged' ? 'converged' : 'failed', policy: o.policyName, revision_id: o.revisionId, summary, actor: null });
  }
  entries.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  return { stage: group.name, policy: input.policy ?? null, entries: entries.slice(0, take) };
}
