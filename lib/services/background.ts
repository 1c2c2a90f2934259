/**
 * Background jobs of a server process (started by scripts/serve.ts, never by
 * tests unless they start them): the webhook worker, which also announces
 * freeze windows as they start. `WEBHOOKS_WORKER=false` turns it off (e.g.
 * on all but some instances; every instance may run it safely).
 */
import { startWebhookWorker, type RunningWorker } from './webhook-worker';

export function startBackgroundJobs(): { stop(): Promise<void> } {
  const workers: RunningWorker[] = [];
  if (process.env.WEBHOOKS_WORKER !== 'false') workers.push(startWebhookWorker());
  return { stop: async () => void (await Promise.all(workers.map((w) => w.stop()))) };
}
