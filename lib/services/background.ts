/**
 * Background jobs of a server process (started by scripts/serve.ts, never by
 * tests unless they start them): the webhook worker, which also announces
 * freeze windows as they start. `WEBHOOKS_WORKER=false` turns it off (e.g.
 * on all but some instances; every instance may run it safely).
 */
import { db } from '@/lib/db/client';
import { metrics } from '@/lib/ops/metrics';
import { startWebhookWorker, type RunningWorker } from '@/lib/services/webhooks';
import { startRolloutWorker } from './rollout-worker';
import { collectExpiredUploads, collectFiles } from '@/lib/services/cookbooks';

/** The /metrics gauges that read the database (issue 14): pending approval requests and the webhook backlog, counted on each scrape. */
export function registerGauges(): void {
  metrics().pendingApprovals.collect(() => db().promotionRequest.count({ where: { status: 'pending' } }));
  metrics().webhookBacklog.collect(() => db().webhookDelivery.count({ where: { status: 'pending' } }));
}

export function startBackgroundJobs(): { stop(): Promise<void> } {
  registerGauges();
  const workers: { stop(): Promise<void> }[] = [];
  if (process.env.WEBHOOKS_WORKER !== 'false') workers.push(startWebhookWorker() satisfies RunningWorker);
  // Issue 26: run-report retention and the automatic rollback's catch-up pass.
  if (process.env.ROLLOUT_WORKER !== 'false') workers.push(startRolloutWorker());
  // Issue 28: uploaded files of expired sandboxes that nothing names are collected every 10 minutes.
  // Issue 46: then files nothing has named for the grace period are removed from the file store (safe on every instance).
  const collector = setInterval(() => {
    collectExpiredUploads()
      .then(() => collectFiles())
      .catch((e) => console.error('[uploads] collecting expired sandboxes and unreferenced files failed', e));
  }, 10 * 60 * 1000);
  collector.unref();
  return {
    stop: async () => {
      clearInterval(collector);
      await Promise.all(workers.map((w) => w.stop()));
    },
  };
}
