/**
 * Automatic rollback (issue 26): "if, within W minutes after a change, ≥ Y %
 * of at least N nodes that reported the new revision failed on it, move the
 * stage back". Issue 41: it counts distinct NODES, not runs — each node by its
 * latest run in the window — so one node reporting many failures is one node.
 * Pure.
 */

export interface RollbackRule {
  /** W: runs finished within this many minutes after the change count. */
  windowMinutes: number;
  /** Y: percent (1–100) of those nodes whose latest run in the window failed. */
  failurePct: number;
  /** N: at least this many distinct nodes reported the new revision before deciding (the API's `min_runs`). */
  minRuns: number;
}

export interface RollbackEvaluation {
  /** Roll back now. */
  trigger: boolean;
  /** The window is still open (runs can still count). */
  windowOpen: boolean;
  /** Distinct nodes with a finished run on the new revision in the window (the API's `runs`), and of them those whose latest failed. */
  runs: number;
  failed: number;
  failurePct: number;
  /** The nodes whose latest run in the window failed. */
  failedNodes: string[];
  /** One sentence: why (or why not yet). */
  summary: string;
}

/**
 * Counts the nodes whose latest run on the new revision finished in [changeAt, changeAt + W] and decides.
 * `runs` may include runs outside the window (ignored).
 */
export function evaluateRollback(input: { rule: RollbackRule; changeAt: Date; now: Date; runs: { node: string; status: 'success' | 'failure'; endTime: Date }[] }): RollbackEvaluation {
  const { rule, changeAt, now } = input;
  const start = changeAt.getTime();
  const end = start + rule.windowMinutes * 60_000;
  const latest = new Map<string, { status: 'success' | 'failure'; t: number }>();
  for (const r of input.runs) {
    const t = r.endTime.getTime();
    if (t < start || t > end) continue;
    const seen = latest.get(r.node);
    // The node's latest run; at the same second a failure wins (chef-client's times have no fraction).
    if (!seen || t > seen.t || (t === seen.t && r.status === 'failure')) latest.set(r.node, { status: r.status, t });
  }
  const runs = latest.size;
  const failedNodes = [...latest.entries()].filter(([, v]) => v.status === 'failure').map(([n]) => n).sort();
  const failed = failedNodes.length;
  const failurePct = runs === 0 ? 0 : Math.round((failed / runs) * 1000) / 10;
  const windowOpen = now.getTime() <= end;
  const trigger = runs >= rule.minRuns && runs > 0 && failed * 100 >= rule.failurePct * runs;
  const summary = trigger
    ? `${failed} of ${runs} node(s) that ran the new revision failed on it within ${rule.windowMinutes} minute(s) of the change (${failurePct}% ≥ ${rule.failurePct}%, at least ${rule.minRuns} node(s))`
    : `${failed} of ${runs} node(s) failed (rule: ≥ ${rule.failurePct}% of at least ${rule.minRuns} node(s) within ${rule.windowMinutes} minute(s))`;
  return { trigger, windowOpen, runs, failed, failurePct, failedNodes, summary };
}

export function validateRollbackRule(r: RollbackRule, prefix = ''): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  const int = (v: number, field: string, min: number, max: number) => {
    if (!Number.isInteger(v) || v < min || v > max) out.push({ path: `${prefix}/${field}`, message: `${field} must be a whole number from ${min} to ${max}` });
  };
  int(r.windowMinutes, 'window_minutes', 1, 60 * 24 * 7);
  int(r.failurePct, 'failure_pct', 1, 100);
  int(r.minRuns, 'min_runs', 1, 100_000);
  return out;
}
