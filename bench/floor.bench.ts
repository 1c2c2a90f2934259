import { createDb } from '@/lib/db/client';
import { createApiToken } from '@/lib/services/users';
import { round, type BenchResult } from './lib/harness';
import { startBare, startConsole, throughput } from './lib/servers';

/**
 * The HTTP rows against the framework's own floor as well as bare node:http:
 * a dynamic Next route that does nothing (app/api/bench-floor), the health
 * route and the node read path, in one run on one server.
 */
export default async function bench(seconds: number): Promise<BenchResult[]> {
  process.env.BENCH_FLOOR = '1';
  const app = await startConsole(3230);
  try {
    const client = createDb(app.dbUrl);
    const { token } = await createApiToken(null, { userEmail: 'viewer@example.com', name: 'bench-floor' }, client);
    await client.$disconnect();
    const headers = { authorization: `Bearer ${token}` };
    const readPath = '/api/v1/policy_groups/production/policies/webapp';
    const floorBody = await (await fetch(`${app.url}/api/bench-floor`)).text();
    if (floorBody !== '{"status":"ok"}') throw new Error(`floor route answered ${floorBody}`);
    const bare = await startBare(3231, floorBody);
    try {
      const base = await throughput(`${bare.url}/`, seconds);
      const floor = await throughput(`${app.url}/api/bench-floor`, seconds);
      const health = await throughput(`${app.url}/api/health`, seconds);
      const read = await throughput(`${app.url}${readPath}`, seconds, headers);
      for (const [what, r] of [['floor', floor], ['health', health], ['read path', read]] as const) if (r.non2xx) throw new Error(`${what} answered ${r.non2xx} non-2xx responses`);
      const rps = (n: number) => Math.round(n);
      return [
        {
          name: 'trivial Next route (the framework floor), 32 connections',
          ours_ms: round(floor.latencyMs),
          baseline: 'bare node:http, same bytes',
          baseline_ms: round(base.latencyMs),
          ratio: round(floor.rps / base.rps),
          goal: 'report only',
          met: true,
          note: `${rps(floor.rps)} vs ${rps(base.rps)} req/s; ms columns are mean latency`,
        },
        {
          name: 'node read path vs the framework floor',
          ours_ms: round(read.latencyMs),
          baseline: 'trivial Next route, same server',
          baseline_ms: round(floor.latencyMs),
          ratio: round(read.rps / floor.rps),
          goal: 'report only',
          met: true,
          note: `${rps(read.rps)} vs ${rps(floor.rps)} req/s (bare node:http ${rps(base.rps)}); the read path also runs the proxy (middleware) and a token lookup`,
        },
        {
          name: 'GET /api/health vs the framework floor',
          ours_ms: round(health.latencyMs),
          baseline: 'trivial Next route, same server',
          baseline_ms: round(floor.latencyMs),
          ratio: round(health.rps / floor.rps),
          goal: 'report only',
          met: true,
          note: `${rps(health.rps)} vs ${rps(floor.rps)} req/s; health reads and test-writes the database`,
        },
      ];
    } finally {
      await bare.stop();
    }
  } finally {
    app.stop();
  }
}
