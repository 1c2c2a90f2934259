/**
 * `npm run test:deployed`'s deployments (issue 40): the production build started exactly as the README tells
 * operators to start it — `npm run serve` (migrate, seed the demo when asked, serve the existing build) with the
 * environment the README's Production section names — and the README's own tools run against it
 * (`npm run token:create`, `npm run chef:user-key`, `npm run chef:validator`):
 *
 *   - sqlite:   one instance on a SQLite file;
 *   - postgres: two instances on one PostgreSQL database (a throwaway server, test/pg-server.ts), started at the
 *               same moment (they migrate and seed under advisory locks), with the same NEXTAUTH_SECRET; the second
 *               serves HTTPS itself (TLS_CERT_FILE / TLS_KEY_FILE, a self-signed certificate for 127.0.0.1).
 *
 * The workers' intervals are set short by environment (ROLLOUT_WORKER_INTERVAL_MS, WEBHOOK_POLL_MS), so what they
 * do is seen in seconds; the tests wait for its results, never for time. Each instance's output goes to a log
 * file; LOG_LEVEL=warn keeps the error lines (every 5xx writes one), which the suite checks at the end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createDatabase, startPgServer, type PgServer } from '../pg-server';
import { selfSignedCert } from '../tls-cert';
import { get } from './http';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export type DeploymentKind = 'sqlite' | 'postgres';

export interface Instance {
  name: string;
  /** e.g. http://127.0.0.1:41234 or https://127.0.0.1:41235 */
  url: string;
  https: boolean;
  logFile: string;
  child: ChildProcess;
}

export interface Deployment {
  kind: DeploymentKind;
  dir: string;
  /** What every instance and every CLI run gets: DATABASE_URL, NEXTAUTH_SECRET, … */
  env: Record<string, string>;
  instances: Instance[];
  /** The certificate the HTTPS instance serves (trust it to reach it), when one does. */
  certFile?: string;
  ca?: Buffer;
  /** Runs one of the README's npm scripts against the deployment's database (`npm run -s <script> -- args`). */
  npm(script: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Every instance's log so far. */
  logs(): string;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Runs a command from the repository root; never throws on a non-zero exit. */
export function runCommand(cmd: string, args: string[], env: Record<string, string | undefined>, timeoutMs = 180_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

/** The environment the README's Production section asks for, plus short worker intervals. */
function baseEnv(databaseUrl: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    SEED_DEMO: 'true',
    NEXTAUTH_SECRET: randomBytes(32).toString('base64url'),
    NODE_ENV: 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    LOG_LEVEL: 'warn',
    ROLLOUT_WORKER_INTERVAL_MS: '400',
    WEBHOOK_POLL_MS: '200',
    WEBHOOK_BACKOFF_BASE_MS: '200',
  };
}

/** Process groups of instances still running: killed when this process exits, however it ends its run (they are detached). */
const running = new Set<number>();
process.on('exit', () => {
  for (const pgid of running) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

function startInstance(name: string, dir: string, env: Record<string, string>, port: number, tls?: { certFile: string; keyFile: string }): Instance {
  const logFile = path.join(dir, `${name}.log`);
  const out = fs.openSync(logFile, 'a');
  const instanceEnv: Record<string, string> = { ...env, PORT: String(port), HOST: '127.0.0.1', ...(tls ? { TLS_CERT_FILE: tls.certFile, TLS_KEY_FILE: tls.keyFile } : {}) };
  // Exactly the README's command, in its own process group (npm → sh → node), so stopping it stops them all.
  const child = spawn('npm', ['run', 'serve'], { cwd: ROOT, env: { ...process.env, ...instanceEnv }, stdio: ['ignore', out, out], detached: true });
  fs.closeSync(out);
  running.add(child.pid!);
  child.once('exit', () => running.delete(child.pid!));
  return { name, url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`, https: !!tls, logFile, child };
}

/** Resolves when `GET /api/ready` answers 200 (migrated, seeded, serving); rejects when the instance exits first. */
async function ready(instance: Instance, ca: Buffer | undefined, limitMs = 300_000): Promise<void> {
  const exited = new Promise<never>((_, reject) =>
    instance.child.once('exit', (code) => reject(new Error(`${instance.name} exited (${code}) before it was ready:\n${tail(instance.logFile)}`))),
  );
  const poll = (async () => {
    const deadline = Date.now() + limitMs;
    for (;;) {
      try {
        if ((await get(`${instance.url}/api/ready`, { ca })).status === 200) return;
      } catch {
        /* not listening yet */
      }
      if (Date.now() > deadline) throw new Error(`${instance.name} was not ready within ${limitMs} ms (a hang guard):\n${tail(instance.logFile)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  await Promise.race([poll, exited]);
}

export function tail(file: string, lines = 60): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

function stopInstance(i: Instance): Promise<void> {
  if (i.child.exitCode !== null || i.child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((r) => i.child.once('exit', () => r()));
  try {
    process.kill(-i.child.pid!, 'SIGTERM');
  } catch {
    /* gone */
  }
  const hard = setTimeout(() => {
    try {
      process.kill(-i.child.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  }, 20_000);
  return exited.finally(() => clearTimeout(hard));
}

/** Starts a deployment the README offers; `stop()` ends its processes and removes its files. */
export async function startDeployment(kind: DeploymentKind): Promise<Deployment> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `deployed-${kind}-`));
  let pg: PgServer | undefined;
  let env: Record<string, string>;
  let instances: Instance[] = [];
  let cert: { certFile: string; keyFile: string; cert: Buffer } | undefined;
  const stop = async () => {
    await Promise.all(instances.map(stopInstance));
    await pg?.stop();
    if (!process.env.DEPLOYED_KEEP) fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (kind === 'sqlite') {
      env = baseEnv(`file:${path.join(dir, 'console.db')}`);
      instances = [startInstance('sqlite', dir, env, await freePort())];
    } else {
      pg = await startPgServer();
      env = baseEnv(await createDatabase(pg, 'console'));
      cert = selfSignedCert(dir);
      const [a, b] = [await freePort(), await freePort()];
      // Both at once, as a process manager starts them: they migrate and seed under advisory locks.
      instances = [startInstance('pg-a', dir, env, a), startInstance('pg-b-https', dir, env, b, cert)];
    }
    await Promise.all(instances.map((i) => ready(i, cert?.cert)));
  } catch (e) {
    await stop();
    throw e;
  }
  return {
    kind,
    dir,
    env,
    instances,
    certFile: cert?.certFile,
    ca: cert?.cert,
    npm: (script, args) => runCommand('npm', ['run', '-s', script, '--', ...args], env),
    logs: () => instances.map((i) => `--- ${i.name}\n${fs.existsSync(i.logFile) ? fs.readFileSync(i.logFile, 'utf8') : ''}`).join('\n'),
    stop,
  };
}
