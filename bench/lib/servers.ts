/** Starts the built console on a seeded scratch database, and bare node:http baselines, for HTTP benchmarks. */
import fs from 'node:fs';
import os from 'node:os';
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

/** The machine's load averages (1, 5, 15 min) as text, for the rows' notes: proportions matter more than absolute numbers on a shared machine. */
export function loadAverage(): string {
  return os.loadavg().map((n) => n.toFixed(2)).join(' ');
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * A throughput ratio measured honestly (issue 49): `runs` rounds, each the baseline then ours back to back, so a
 * change in the machine's load falls on both; the ratio is the median of the rounds' ratios, with the load average
 * before each round. `measure` returns a rate (higher is better) and a mean latency in ms.
 */
export async function alternating<R extends { rate: number; ms: number }>(baseline: () => Promise<R>, ours: () => Promise<R>, runs = 3): Promise<{ ratio: number; base: R; ours: R; ratios: number[]; loads: string[]; note: string }> {
  const rounds: { base: R; ours: R; ratio: number; load: string }[] = [];
  for (let i = 0; i < runs; i++) {
    const load = loadAverage();
    const b = await baseline();
    const o = await ours();
    rounds.push({ base: b, ours: o, ratio: o.rate / b.rate, load });
  }
  const ratios = rounds.map((r) => r.ratio);
  const mid = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(rounds.length / 2)];
  const note = `median of ${runs} alternating rounds, ratios ${ratios.map((r) => r.toFixed(3)).join(' / ')}; load average (1/5/15 min) before each: ${rounds.map((r) => r.load).join(' | ')}`;
  return { ratio: median(ratios), base: mid.base, ours: mid.ours, ratios, loads: rounds.map((r) => r.load), note };
}

/** Waits until `url` answers at all (any status), for at most `ms`. */
async function answering(url: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      await fetch(url);
      return;
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/**
 * The production server as `npm run serve` runs it (scripts/serve.ts after `next build`: the node:http front, the
 * Chef door, Next), on a scratch database prepared with the demo seed; `populate` may fill it before the server starts.
 */
export async function startServe(port: number, opts: { env?: Record<string, string>; populate?: (dbUrl: string) => Promise<void> } = {}): Promise<{ url: string; dbUrl: string; stop: () => Promise<void> }> {
  if (!fs.existsSync(path.join(ROOT, '.next', 'BUILD_ID'))) {
    const r = spawnSync('npx', ['next', 'build'], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
    if (r.status !== 0) throw new Error('next build failed');
  }
  const dbFile = path.join(ROOT, 'data', 'bench', `serve-${port}.db`);
  fs.mkdirSync(path.dirname(dbFile), { recursive: true });
  for (const f of [dbFile, `${dbFile}-journal`, `${dbFile}-wal`, `${dbFile}-shm`]) fs.rmSync(f, { force: true });
  const dbUrl = `file:${dbFile}`;
  const env = { ...process.env, DATABASE_URL: dbUrl, SEED_DEMO: 'true', NEXT_TELEMETRY_DISABLED: '1', NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', ...opts.env } as NodeJS.ProcessEnv;
  if (spawnSync('npx', ['tsx', 'scripts/prepare.ts'], { cwd: ROOT, stdio: 'ignore', env }).status !== 0) throw new Error('prepare failed');
  if (opts.populate) await opts.populate(dbUrl);
  const child = spawn(process.execPath, ['--max-old-space-size=384', '--import', 'tsx', 'scripts/serve.ts'], { cwd: ROOT, env, stdio: 'ignore' });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = `http://127.0.0.1:${port}`;
  await answering(`${url}/api/health`, 120_000);
  return {
    url,
    dbUrl,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The node:http front's floor (bench/lib/front-floor-server.ts) in its own process. */
export async function startFrontFloor(port: number): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/front-floor-server.ts'], { cwd: ROOT, env: { ...process.env, PORT: String(port), NODE_ENV: 'production' }, stdio: 'ignore' });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = `http://127.0.0.1:${port}`;
  await answering(`${url}/`);
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
