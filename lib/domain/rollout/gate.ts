/**
 * Promotion gates (issue 26): "promote into this stage only a revision that,
 * in the stage before it, converged successfully on ≥ X % of at least N
 * nodes, with no more than Y % failures, for at least T minutes". Pure
 * arithmetic over the previous stage's node standings.
 */
import { classifyNode, type NodeRunFacts } from './health';
import type { CheckResult } from './checks';

export interface GateRule {
  /** X: percent (0–100) of the counted nodes that converged the revision successfully. */
  minSuccessPct: number;
  /** N: at least this many nodes converged it. */
  minNodes: number;
  /** Y: at most this percent of the counted nodes failed on it. */
  maxFailurePct: number;
  /** T: the success threshold has held for at least this many minutes. */
  soakMinutes: number;
}

export interface GateEvaluation {
  met: boolean;
  /** The stage the revision must have converged in (null: the first stage, nothing to gate on). */
  fromStage: string | null;
  revisionId: string;
  rule: GateRule;
  /** Nodes of the previous stage that run the policy; missing ones are not counted in the percentages. */
  nodes: number;
  counted: number;
  converged: number;
  failed: number;
  pending: number;
  missing: number;
  successPct: number;
  failurePct: number;
  /** How many converged nodes the rule needs now: max(N, ⌈X % × counted⌉). */
  required: number;
  /** When the required count was first reached (null: not reached). */
  metSince: string | null;
  soakedMinutes: number;
  /** What is missing, one sentence each (empty when met). */
  unmet: string[];
  /**
   * Issue 43: when the gate opens by itself — set when only the soak time is missing (the required nodes
   * converged and stay so): the moment the soak time is over. Null when it is met, or waits for nodes' runs.
   */
  opensAt: string | null;
  /**
   * Issue 47: the gate's outside checks, each by its latest evaluation for this revision (absent: the gate has
   * none). A check that failed or is inconclusive (or was not evaluated lately) leaves the gate unmet.
   */
  checks?: CheckResult[];
}

/** "It opens at 2026-12-03 10:40 UTC…" or "It opens once …": when an unmet gate opens, in words (`fmt` formats a time). */
export function gateOpensWords(g: Pick<GateEvaluation, 'met' | 'opensAt' | 'fromStage' | 'required' | 'converged'> & { checks?: CheckResult[] }, fmt: (iso: string) => string): string {
  if (g.met) return '';
  if (g.converged >= g.required && g.checks?.some((c) => c.result !== 'pass')) return 'It opens once its outside checks pass (someone who manages the stage may override an inconclusive check with a written reason).';
  if (g.opensAt) return `It opens at ${fmt(g.opensAt)}, when the soak time is over (if the nodes in ${g.fromStage} stay converged).`;
  return `It opens once enough nodes in ${g.fromStage} have converged the revision (${g.converged} of the ${g.required} needed so far) and none too many fail.`;
}

const pct = (n: number, d: number) => (d === 0 ? 0 : Math.round((n / d) * 1000) / 10);

/**
 * Evaluates a gate for `revisionId` against the previous stage's nodes.
 * Missing nodes cannot converge anything: they are reported, not counted.
 * The soak clock starts when the `required`-th node first converged the
 * revision successfully (its first success on it), among the nodes whose
 * latest run still is a success on it.
 */
export function evaluateGate(input: { rule: GateRule; fromStage: string | null; revisionId: string; nodes: NodeRunFacts[]; now: Date; missingAfterMs: number }): GateEvaluation {
  const { rule, revisionId, now } = input;
  const base = { fromStage: input.fromStage, revisionId, rule };
  if (input.fromStage === null) {
    return { ...base, met: true, nodes: 0, counted: 0, converged: 0, failed: 0, pending: 0, missing: 0, successPct: 0, failurePct: 0, required: 0, metSince: null, soakedMinutes: 0, unmet: [], opensAt: null };
  }
  let converged = 0;
  let failed = 0;
  let pending = 0;
  let missing = 0;
  const since: number[] = [];
  for (const n of input.nodes) {
    const s = classifyNode(n, revisionId, now, input.missingAfterMs);
    if (s === 'converged') {
      converged++;
      since.push((n.lastRun?.firstSuccessAt ?? n.lastRun!.endTime).getTime());
    } else if (s === 'failed') failed++;
    else if (s === 'pending') pending++;
    else missing++;
  }
  const counted = converged + failed + pending;
  const required = Math.max(rule.minNodes, Math.ceil((rule.minSuccessPct * counted) / 100), 1);
  const successPct = pct(converged, counted);
  const failurePct = pct(failed, counted);
  since.sort((a, b) => a - b);
  const metAt = converged >= required && required > 0 ? since[required - 1] : null;
  const soakedMinutes = metAt === null ? 0 : Math.max(0, Math.floor((now.getTime() - metAt) / 60_000));
  const short = input.revisionId.slice(0, 10);
  const unmet: string[] = [];
  if (converged < rule.minNodes) unmet.push(`${converged} of at least ${rule.minNodes} node(s) in ${input.fromStage} converged revision ${short}`);
  if (counted === 0) unmet.push(`no reporting node in ${input.fromStage} runs the policy`);
  else if (converged * 100 < rule.minSuccessPct * counted) unmet.push(`${successPct}% of ${counted} node(s) in ${input.fromStage} converged revision ${short}, below ${rule.minSuccessPct}%`);
  if (failed * 100 > rule.maxFailurePct * counted) unmet.push(`${failurePct}% of ${counted} node(s) in ${input.fromStage} failed on revision ${short}, above ${rule.maxFailurePct}%`);
  let opensAt: string | null = null;
  if (!unmet.length && soakedMinutes < rule.soakMinutes) {
    unmet.push(`converged for ${soakedMinutes} of ${rule.soakMinutes} minute(s) in ${input.fromStage}`);
    opensAt = new Date(metAt! + rule.soakMinutes * 60_000).toISOString();
  }
  return {
    ...base,
    met: unmet.length === 0,
    nodes: input.nodes.length,
    counted,
    converged,
    failed,
    pending,
    missing,
    successPct,
    failurePct,
    required,
    metSince: metAt === null ? null : new Date(metAt).toISOString(),
    soakedMinutes,
    unmet,
    opensAt,
  };
}

/** Checks a gate rule's numbers; problems name the field and the rule. */
export function validateGateRule(r: GateRule, prefix = ''): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  const int = (v: number, field: string, min: number, max: number) => {
    if (!Number.isInteger(v) || v < min || v > max) out.push({ path: `${prefix}/${field}`, message: `${field} must be a whole number from ${min} to ${max}` });
  };
  int(r.minSuccessPct, 'min_success_pct', 0, 100);
  int(r.minNodes, 'min_nodes', 0, 100_000);
  int(r.maxFailurePct, 'max_failure_pct', 0, 100);
  int(r.soakMinutes, 'soak_minutes', 0, 60 * 24 * 30);
  return out;
}

/** Issue 47: the longest automatic-promotion soak time (30 days), as the gate's. */
export const AUTO_PROMOTE_SOAK_MAX_MINUTES = 60 * 24 * 30;

/** Issue 47: checks `auto_promote` against the rule it joins; problems name the field and the rule. */
export function validateAutoPromote(a: { enabled: boolean; soakMinutes: number | null; gateEnabled: boolean; hasPreviousStage: boolean }, prefix = '/auto_promote'): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  if (a.soakMinutes !== null && (!Number.isInteger(a.soakMinutes) || a.soakMinutes < 0 || a.soakMinutes > AUTO_PROMOTE_SOAK_MAX_MINUTES)) {
    out.push({ path: `${prefix}/soak_minutes`, message: `soak_minutes must be a whole number from 0 to ${AUTO_PROMOTE_SOAK_MAX_MINUTES}` });
  }
  if (a.enabled && !a.hasPreviousStage) out.push({ path: `${prefix}/enabled`, message: 'the first stage has no stage before it to promote from' });
  else if (a.enabled && !a.gateEnabled) out.push({ path: `${prefix}/enabled`, message: "automatic promotion needs the stage's gate (gate.enabled): the gate is the evidence it promotes on" });
  return out;
}
