/**
 * Issue 26: the promotion gate, checked by `movePointer` (and only there) for
 * every move into a stage that has one: the revision must have converged in
 * the stage before it (by position) as the gate asks. An unmet gate is a 409
 * with the gate's numbers; someone who manages the stage may override it with
 * a written reason (audited). Also the node facts the health, the gates and
 * the rollback read.
 */
import type { Tx } from '@/lib/db/client';
import { can } from '@/lib/auth/permissions';
import { checkUnmetWords, evaluateGate, gateOpensWords, type GateEvaluation, type GateRule, type NodeRunFacts } from '@/lib/domain/rollout';
import { dateTime } from '@/lib/format';
import { AppError, forbidden } from '@/lib/errors';
import type { AuditActor } from './audit';
import { gateChecksOf, latestCheckResults } from './checks';

/** A node counts as missing after NODE_MISSING_AFTER_MINUTES without a report (default 120). */
export function missingAfterMs(): number {
  const n = Number(process.env.NODE_MISSING_AFTER_MINUTES);
  return (Number.isFinite(n) && n > 0 ? n : 120) * 60_000;
}

export interface StageNodeFacts extends NodeRunFacts {
  nodeName: string;
  groupName: string;
  policyName: string;
}

/**
 * Every node that should run (stage, policy) pairs, with its latest finished
 * run. Issue 41: a node's stage and policy are the console's facts — its node
 * row's — never what a run report said; its latest run counts there only when it
 * was reported in that stage and policy (a node moved since has not run its new
 * stage's revision yet). Four statements whatever the number of nodes (the
 * board's health stays constant in SQL statements as nodes grow).
 */
export async function loadNodeFacts(tx: Tx, where: { groupNames?: string[]; policyName?: string } = {}): Promise<StageNodeFacts[]> {
  const stateWhere = { ...(where.groupNames ? { groupName: { in: where.groupNames } } : {}), ...(where.policyName ? { policyName: where.policyName } : {}) };
  // Scalar ids, and the (few) stages and policies by id: a relation select would load them with IN lists that
  // Prisma splits into chunks of parent rows, one more statement per thousand nodes.
  const [states, rawNodes, groupRows, policyRows] = await Promise.all([
    tx.nodeRunState.findMany({
      where: stateWhere,
      select: { nodeName: true, groupName: true, policyName: true, revisionId: true, status: true, endTime: true, failedResource: true, failedCookbook: true, firstSuccessAt: true, receivedAt: true },
    }),
    tx.node.findMany({
      where: { groupId: { not: null }, policyId: { not: null }, ...(where.groupNames ? { group: { name: { in: where.groupNames } } } : {}), ...(where.policyName ? { policy: { name: where.policyName } } : {}) },
      select: { name: true, lastCheckIn: true, groupId: true, policyId: true },
    }),
    tx.policyGroup.findMany({ select: { id: true, name: true } }),
    tx.policy.findMany({ select: { id: true, name: true } }),
  ]);
  const groupName = new Map(groupRows.map((g) => [g.id, g.name]));
  const policyName = new Map(policyRows.map((p) => [p.id, p.name]));
  const byName = new Map(states.map((s) => [s.nodeName, s]));
  const out: StageNodeFacts[] = [];
  for (const n of rawNodes) {
    const g = n.groupId ? groupName.get(n.groupId) : undefined;
    const p = n.policyId ? policyName.get(n.policyId) : undefined;
    if (!g || !p) continue;
    const s = byName.get(n.name);
    const here = s && s.groupName === g && s.policyName === p ? s : null;
    const saved = n.lastCheckIn;
    out.push({
      nodeName: n.name,
      groupName: g,
      policyName: p,
      lastRun: here
        ? { status: here.status === 'success' ? 'success' : 'failure', revisionId: here.revisionId, endTime: here.endTime, failedResource: here.failedResource, failedCookbook: here.failedCookbook, firstSuccessAt: here.firstSuccessAt }
        : null,
      lastSeen: s && (!saved || s.receivedAt.getTime() > saved.getTime()) ? s.receivedAt : saved,
    });
  }
  return out;
}

export interface GateOverride {
  reason: string;
  gate: GateEvaluation;
}

/** The stage's gate rule, when it has one enabled. */
export async function gateRuleOf(tx: Tx, groupName: string): Promise<GateRule | null> {
  const r = await tx.stageRolloutRule.findUnique({ where: { groupName }, select: { gateEnabled: true, gateMinSuccessPct: true, gateMinNodes: true, gateMaxFailurePct: true, gateSoakMinutes: true } });
  if (!r?.gateEnabled) return null;
  return { minSuccessPct: r.gateMinSuccessPct, minNodes: r.gateMinNodes, maxFailurePct: r.gateMaxFailurePct, soakMinutes: r.gateSoakMinutes };
}

/** Evaluates the gate into `group` for a revision of `policyName`; null when the stage has no gate. */
export async function evaluateStageGate(tx: Tx, group: { id: string; name: string }, policyName: string, revisionId: string, now: Date): Promise<GateEvaluation | null> {
  const rule = await gateRuleOf(tx, group.name);
  if (!rule) return null;
  const self = await tx.policyGroup.findUnique({ where: { id: group.id }, select: { position: true } });
  const prev = self ? await tx.policyGroup.findFirst({ where: { position: { lt: self.position } }, orderBy: [{ position: 'desc' }, { name: 'asc' }], select: { name: true } }) : null;
  const nodes = prev ? (await loadNodeFacts(tx, { groupNames: [prev.name], policyName })).filter((n) => n.groupName === prev.name && n.policyName === policyName) : [];
  const gate = evaluateGate({ rule, fromStage: prev?.name ?? null, revisionId, nodes, now, missingAfterMs: missingAfterMs() });
  // Issue 47: the gate's outside checks, by their latest evaluation for this revision (refreshed outside transactions).
  const checks = await gateChecksOf(tx, group.name);
  if (!checks.length) return gate;
  const results = await latestCheckResults(tx, group.name, policyName, revisionId, checks, now);
  const unmet = results.filter((r) => r.result !== 'pass').map(checkUnmetWords);
  return { ...gate, checks: results, met: gate.met && !unmet.length, unmet: [...gate.unmet, ...unmet], opensAt: unmet.length ? null : gate.opensAt };
}

/** Issue 43: when the refused gate opens, in words (a leading space). */
const gateOpens = (gate: GateEvaluation) => ` ${gateOpensWords(gate, dateTime)}`;

/**
 * The gate check of a move into `group`, given the gate's evaluation (from
 * evaluateStageGate, through judgeMove): null when there is no gate or it is
 * met; the override when a manager gave a reason (or an approved request
 * carried one); else a 409 with the gate's numbers.
 */
export async function resolveGate(
  tx: Tx,
  group: { id: string; name: string },
  policy: { name: string },
  gate: GateEvaluation | null,
  actor: AuditActor | null,
  overrideReason: string | null | undefined,
  approvedRequestId?: string,
): Promise<GateOverride | null> {
  if (!gate || gate.met) return null;
  let reason = overrideReason?.trim() || null;
  let authorised = false;
  if (approvedRequestId) {
    // The manager's override given with the request (kept in its origin) carries to the apply.
    const req = await tx.promotionRequest.findUnique({ where: { id: approvedRequestId }, select: { origin: true } });
    const carried = req ? ((JSON.parse(req.origin) as { gate_override?: { reason?: string } }).gate_override?.reason ?? null) : null;
    if (carried) {
      reason = carried;
      authorised = true;
    }
  }
  if (!reason) {
    throw new AppError(
      'conflict',
      `The promotion gate of '${group.name}' is not met for revision ${gate.revisionId.slice(0, 10)} of '${policy.name}': ${gate.unmet.join('; ')}.${gateOpens(gate)} Someone who manages '${group.name}' may override the gate with a written reason.`,
      [],
      { gate, override_field: 'gate_override_reason' },
    );
  }
  if (!authorised) {
    if (!actor || actor.kind === 'system' || !can(actor, 'stage.manage', { stage: group.name })) throw forbidden(`The promotion gate of '${group.name}' is not met; only those who manage stage '${group.name}' may override it.`);
  }
  return { reason, gate };
}
