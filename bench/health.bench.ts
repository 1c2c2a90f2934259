import { round, type BenchResult } from './lib/harness';
import { startBare, startConsole, throughput } from './lib/servers';

/** The login-free health route vs a bare node:http server returning the same bytes. */
export default async function bench(seconds: number): Promise<BenchResult[]> {
  const app = await startConsole(3210);
  try {
    const body = await (await fetch(`${app.url}/api/health`)).text();
    const bare = await startBare(3211, body);
    try {
      const base = await throughput(`${bare.url}/`, seconds);
      const ours = await throughput(`${app.url}/api/health`, seconds);
      if (ours.non2xx) throw new Error(`health answered ${ours.non2xx} non-2xx responses`);
      const ratio = ours.rps / base.rps;
      return [
        {
          name: 'GET /api/health throughput (32 connections)',
          ours_ms: round(ours.latencyMs),
          baseline: 'bare node:http, same bytes',
          baseline_ms: round(base.latencyMs),
          ratio: round(ratio),
          goal: 'report only',
          met: true,
          note: `${Math.round(ours.rps)} vs ${Math.round(base.rps)} req/s; ms columns are mean latency`,
        },
      ];
    } finally {
      await bare.stop();
    }
  } finally {
    app.stop();
  }
}
