import { createDb } from '@/lib/db/client';
import { createApiToken } from '@/lib/services/users';
import { round, type BenchResult } from './lib/harness';
import { startBare, startConsole, throughput } from './lib/servers';

/**
 * The node read path, GET /api/v1/policy_groups/:g/policies/:p with a bearer
 * token, against a bare node:http server returning the same bytes.
 */
export default async function bench(seconds: number): Promise<BenchResult[]> {
  const app = await startConsole(3220);
  try {
    const client = createDb(app.dbUrl);
    const { token } = await createApiToken(null, { userEmail: 'viewer@example.com', name: 'bench' }, client);
    await client.$disconnect();
    const headers = { authorization: `Bearer ${token}` };
    const path = '/api/v1/policy_groups/production/policies/webapp';
    const res = await fetch(`${app.url}${path}`, { headers });
    if (!res.ok) throw new Error(`read path answered ${res.status}`);
    const body = await res.text();
    const bare = await startBare(3221, body);
    try {
      const base = await throughput(`${bare.url}/`, seconds);
      const ours = await throughput(`${app.url}${path}`, seconds, headers);
      if (ours.non2xx) throw new Error(`read path answered ${ours.non2xx} non-2xx responses`);
      const ratio = ours.rps / base.rps;
      return [
        {
          name: 'node read path GET /policy_groups/:g/policies/:p (32 connections)',
          ours_ms: round(ours.latencyMs),
          baseline: 'bare node:http, same bytes',
          baseline_ms: round(base.latencyMs),
          ratio: round(ratio),
          goal: '>= 0.30 of baseline req/s',
          met: ratio >= 0.3,
          note: `${Math.round(ours.rps)} vs ${Math.round(base.rps)} req/s over ${seconds}s; ms columns are mean latency; body ${body.length} bytes`,
        },
      ];
    } finally {
      await bare.stop();
    }
  } finally {
    app.stop();
  }
}
