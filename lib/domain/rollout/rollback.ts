/**
 * Automatic rollback (issue 26): "if, within W minutes after a change, ≥ Y %
 * of at least N runs on the new revision fail, move the stage back". Pure.
 */

export interface RollbackRule {
  /** W: runs finished within this many minutes after the change count. */
  windowMinutes: number;
  /** Y: percent (1–100) of those runs that failed. */
  failurePct: number;
  /** N: at least this many runs on the new revision before deciding. */
  minRuns: number;
}

export interface RollbackEvaluation {
  /** Roll back now. */
  trigger: boolean;
  /** The window is still open (runs can still count). */
  windowOpen: boolean;
  runs: number;
  failed: number;
  failurePct: number;
  /** One sentence: why (or why not yet). */
  summary: string;
}

/**
 * Counts the runs on the new revision that finished in [changeAt, changeAt + W]
 * and decides. `runs` may include runs outside the window (ignored).
 */
export function evaluateRollback(input: { rule: RollbackRule; changeAt: Date; now: Date; runs: { status: 'success' | 'failure'; endTime: Date }[] }): RollbackEvaluation {
  const { rule, changeAt, now } = input;
  const start = changeAt.getTime();
  const end = start + rule.windowMinutes * 60_000;
  let runs = 0;
  let failed = 0;
  for (const r of input.runs) {
    const t = r.endTime.getTime();
    if (t < start || t > end) continue;
    runs++;
    if (r.status === 'failure') failed++;
  }
  const failurePct = runs === 0 ? 0 : Math.round((failed / runs) * 1000) / 10;
  const windowOpen = now.getTime() <= end;
  const trigger = runs >= rule.minRuns && runs > 0 && failed * 100 >= rule.failurePct * runs;
  const summary = trigger
    ? `${failed} of ${runs} run(s) on the new revision failed within ${rule.windowMinutes} minute(s) of the change (${failurePct}% ≥ ${rule.failurePct}%, at least ${rule.minRuns} run(s))`
    : `${failed} of ${runs} run(s) failed (rule: ≥ ${rule.failurePct}% of at least ${rule.minRuns} run(s) within ${rule.windowMinutes} minute(s))`;
  return { trigger, windowOpen, runs, failed, failurePct, summary };
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
