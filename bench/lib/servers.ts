/** Starts the built console on a seeded scratch database, and bare node:http baselines, for HTTP benchmarks. */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';

const ROOT = path.resolve(import.meta.dirname, '../..');

export async function startConsole(port: number): Promise<{ url: string; dbUrl: string; stop: () => void }> {
  if (!fs.existsSync(path.join(ROOT, '.next', 'BUILD_ID'))) {
    const r = spawnSync('npx', ['next', 'build'], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
    if (r.status !== 0) throw new Error('next build failed');
  }
  const dbFile = path.join(ROOT, 'data', 'bench', `bench-${port}.db`);
  fs.mkdirSync(path.dirname(dbFile), { recursive: true });
  fs.rmSync(dbFile, { force: true });
  const env = { ...process.env, DATABASE_URL: `file:${dbFile}`, SEED_DEMO: "true", NEXT_TELEMETRY_DISABLED: "1" } as NodeJS.ProcessEnv;
  const prep = spawnSync('npx', ['tsx', 'scripts/prepare.ts'], { cwd: ROOT, stdio: 'inherit', env });
  if (prep.status !== 0) throw new Error('prepare failed');
  const child: ChildProcess = spawn('npx', ['next', 'start', '-p', String(port), '-H', '127.0.0.1'], { cwd: ROOT, env, stdio: 'ignore', detached: true });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 120; i++) {
    try {
      if ((await fetch(`${url}/api/health`)).ok) break;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return {
    url,
    dbUrl: `file:${dbFile}`,
    stop: () => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        /* already gone */
      }
    },
  };
}

/** A bare node:http server answering every request with the given bytes. */
export async function startBare(port: number, body: string, contentType = 'application/json'): Promise<{ url: string; stop: () => Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${port}`, stop: () => new Promise((r) => server.close(() => r())) };
}

/** Requests per second under autocannon (loopback only, bounded in time). */
export async function throughput(url: string, seconds: number, headers: Record<string, string> = {}, connections = 32): Promise<{ rps: number; non2xx: number; latencyMs: number }> {
  const result = await autocannon({ url, connections, duration: seconds, headers });
  return { rps: result.requests.average, non2xx: result.non2xx, latencyMs: result.latency.average };
}
