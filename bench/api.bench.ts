import { createDb } from '@/lib/db/client';
import { createApiToken } from '@/lib/services/users';
import { round, type BenchResult } from './lib/harness';
import { alternating, startBare, startFrontFloor, startServe, throughput } from './lib/servers';

/**
 * Issue 49: /api/v1 against the floors it could be served from, on the production server (scripts/serve.ts, as
 * `npm run serve` runs it): bare node:http; the node:http front's own floor (lib/ops/server.ts around a handler
 * that does nothing: request id, context, metrics, log line); Next's floor through the front (app/api/bench-floor);
 * and the /api/v1 policy read with a bearer token. Each ratio is the median of 3 rounds, baseline and ours back to
 * back in each (bench/lib/servers.ts `alternating`), with the load average.
 */
export default async function bench(seconds: number): Promise<BenchResult[]> {
  const app = await startServe(3250, { env: { BENCH_FLOOR: '1' } });
  const front = await startFrontFloor(3251);
  const bare = await startBare(3252, JSON.stringify({ status: 'ok' }));
  try {
    const client = createDb(app.dbUrl);
    const { token } = await createApiToken(null, { userEmail: 'viewer@example.com', name: 'bench-api' }, client);
    await client.$disconnect();
    const headers = { authorization: `Bearer ${token}` };
    const readPath = '/api/v1/policy_groups/production/policies/webapp';
    const probe = await fetch(`${app.url}${readPath}`, { headers });
    if (!probe.ok) throw new Error(`the bearer read answered ${probe.status}`);
    const load = (url: string, h: Record<string, string> = {}) => async () => {
      const r = await throughput(url, seconds, h);
      if (r.non2xx) throw new Error(`${url} answered ${r.non2xx} non-2xx responses`);
      return { ...r, rate: r.rps, ms: r.latencyMs };
    };
    const baseLoad = load(`${bare.url}/`);
    const frontFloor = await alternating(baseLoad, load(`${front.url}/`));
    const nextFloor = await alternating(baseLoad, load(`${app.url}/api/bench-floor`));
    const read = await alternating(baseLoad, load(`${app.url}${readPath}`, headers));
    const row = (name: string, r: typeof read, goal: string, met: boolean): BenchResult => ({
      name,
      ours_ms: round(r.ours.ms),
      baseline: 'bare node:http, same machine, alternating',
      baseline_ms: round(r.base.ms),
      ratio: round(r.ratio),
      goal,
      met,
      note: `${Math.round(r.ours.rate)} vs ${Math.round(r.base.rate)} req/s (the median round), 32 connections; ms columns are mean latency; ${r.note}`,
    });
    return [
      row('node:http front floor (lib/ops/server.ts shell, no work), production settings', frontFloor, 'report only', true),
      row('trivial Next route through the production front (scripts/serve.ts)', nextFloor, 'report only', true),
      row('/api/v1 policy read with a bearer token, production server (scripts/serve.ts)', read, '>= 0.30 of baseline req/s (issue 49)', read.ratio >= 0.3),
    ];
  } finally {
    await bare.stop();
    await front.stop();
    await app.stop();
  }
}
