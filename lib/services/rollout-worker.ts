/**
 * Issue 26: the rollout job of a server process: deletes run reports past the
 * retention period (RUN_RETENTION_DAYS, default 30) and re-evaluates the
 * automatic rollback rules (normally decided by the ingest of each run; the
 * pass catches a report whose evaluation failed). Every instance may run it:
 * deletes are idempotent and the rollback happens once (rollout.ts); scheduled
 * promotions (issue 29) apply once (scheduled-promotions.ts); automatic promotions (issue 47) happen once
 * (auto-promote.ts).
 * `ROLLOUT_WORKER=false` turns it off; ROLLOUT_WORKER_INTERVAL_MS (default 60 s).
 */
import { cleanupRunReports, evaluateRollbacks, autoPromotePass } from '@/lib/services/runs';
import { advanceRings } from '@/lib/services/rings';
import { applyDueScheduledPromotions } from '@/lib/services/promotion';

export interface RunningRolloutWorker {
  stop(): Promise<void>;
}

export function startRolloutWorker(intervalMs = Number(process.env.ROLLOUT_WORKER_INTERVAL_MS) || 60_000): RunningRolloutWorker {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const pass = async () => {
    try {
      await cleanupRunReports();
      await evaluateRollbacks();
      // Issue 30: rings whose step soaked (and converged, when gated) widen; a gated ring whose nodes failed rolls back.
      await advanceRings();
      // Issue 29: promotions scheduled for now ("at 02:00 UTC", "when the freeze ends"), through the guard, once across instances.
      await applyDueScheduledPromotions();
      // Issue 47: automatic promotion of the revisions whose evidence is in, through the guard, once across instances.
      await autoPromotePass();
    } catch (e) {
      console.error('[rollout] pass failed', e);
    }
  };
  const timer = setInterval(() => {
    if (stopped) return;
    running = running.then(pass);
  }, intervalMs);
  timer.unref();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
