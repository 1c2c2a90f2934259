/**
 * A throwaway PostgreSQL server from the distribution's binaries (Debian's
 * `postgresql` package), for the PostgreSQL test run, multi-process race
 * tests and `npm run db:new-migration` (which diffs against a scratch
 * database). Reusable API:
 *
 *   const server = await startPgServer();          // initdb + pg_ctl start, ~1 s
 *   const url = await createDatabase(server, 't_x', 'policy_template'); // a clone, ~130 ms
 *   await dropDatabase(server, 't_x');
 *   await server.stop();                           // also on process exit
 *
 * The server runs as the `postgres` user when we are root (PostgreSQL refuses
 * root), trusts local connections on 127.0.0.1 and keeps nothing durable
 * (fsync off). Each server lives in $TMPDIR/policy-console-pg/<pid>-<random>;
 * a crashed run's server is stopped and removed by the next start
 * (reapLeakedServers), since pg_ctl daemonizes.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

const ROOT = path.join(os.tmpdir(), 'policy-console-pg');
const BIN_DIRS = ['/usr/local/bin', '/usr/bin', ...listVersions('/usr/lib/postgresql').map((v) => `/usr/lib/postgresql/${v}/bin`)];

function listVersions(dir: string): string[] {
  try {
    return fs.readdirSync(dir).sort((a, b) => Number(b) - Number(a));
  } catch {
    return [];
  }
}

/** The directory holding initdb and pg_ctl: PG_BIN, PATH, /usr/local/bin, or the newest /usr/lib/postgresql/<v>/bin. Null when PostgreSQL is not installed. */
export function findPgBin(): string | null {
  const candidates = [process.env.PG_BIN, ...(process.env.PATH ?? '').split(path.delimiter), ...BIN_DIRS].filter((d): d is string => !!d);
  for (const dir of candidates) {
    if (fs.existsSync(path.join(dir, 'initdb')) && fs.existsSync(path.join(dir, 'pg_ctl'))) return dir;
  }
  return null;
}

export interface PgServer {
  /** The server's directory (data/, log, socket). */
  dir: string;
  port: number;
  /** A URL for `database` on this server (user postgres, no password). */
  url(database?: string): string;
  stop(): Promise<void>;
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a PostgreSQL binary, as the postgres user when we are root. */
function runPg(bin: string, args: string[], opts: { quiet?: boolean } = {}): void {
  const [cmd, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  execFileSync(cmd, argv, { stdio: opts.quiet ? 'ignore' : ['ignore', 'pipe', 'pipe'] });
}

function chownToPostgres(dir: string): void {
  if (!isRoot()) return;
  const pw = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gr = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (pw.status !== 0) throw new Error('running as root, but there is no "postgres" user to run the PostgreSQL server as (install the postgresql package)');
  fs.chownSync(dir, Number(pw.stdout.trim()), Number(gr.stdout.trim()));
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Stops and removes servers whose owning process is gone (a crashed or killed test run). */
export function reapLeakedServers(bin = findPgBin()): number {
  let reaped = 0;
  for (const name of fs.existsSync(ROOT) ? fs.readdirSync(ROOT) : []) {
    const dir = path.join(ROOT, name);
    const owner = Number(name.split('-')[0]);
    if (!Number.isInteger(owner) || owner <= 0 || alive(owner)) continue;
    const data = path.join(dir, 'data');
    if (bin && fs.existsSync(path.join(data, 'postmaster.pid'))) {
      try {
        runPg(path.join(bin, 'pg_ctl'), ['-D', data, 'stop', '-m', 'immediate', '-w'], { quiet: true });
      } catch {
        /* already stopped */
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
    reaped++;
  }
  return reaped;
}

const running = new Set<PgServer>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' handlers must be synchronous: stop what is still running the quick way. A run killed by a signal
  // skips this; the next start reaps its server.
  process.on('exit', () => {
    for (const s of running) stopSync(s);
  });
}

function stopSync(s: PgServer): void {
  running.delete(s);
  const bin = findPgBin();
  try {
    if (bin) runPg(path.join(bin, 'pg_ctl'), ['-D', path.join(s.dir, 'data'), 'stop', '-m', 'immediate', '-w'], { quiet: true });
  } catch {
    /* not running */
  }
  fs.rmSync(s.dir, { recursive: true, force: true });
}

/** Starts a fresh server on a free port; throws when PostgreSQL is not installed. */
export async function startPgServer(): Promise<PgServer> {
  const bin = findPgBin();
  if (!bin) throw new Error('PostgreSQL is not installed (no initdb/pg_ctl on PATH, in /usr/local/bin or /usr/lib/postgresql/*/bin): apt-get install -y postgresql');
  fs.mkdirSync(ROOT, { recursive: true });
  try {
    fs.chmodSync(ROOT, 0o1777);
  } catch {
    /* another user's directory: fine as long as we can write to it */
  }
  reapLeakedServers(bin);
  const dir = fs.mkdtempSync(path.join(ROOT, `${process.pid}-`));
  chownToPostgres(dir);
  const data = path.join(dir, 'data');
  try {
    runPg(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  } catch (e) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${(e as { stderr?: Buffer }).stderr?.toString() ?? e}`);
  }
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const opts = [`-p ${port}`, `-k ${dir}`, '-c listen_addresses=127.0.0.1', '-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off', '-c max_connections=300', '-c TimeZone=UTC'].join(' ');
    try {
      runPg(path.join(bin, 'pg_ctl'), ['-D', data, '-l', path.join(dir, 'log'), '-w', '-t', '30', '-o', opts, 'start']);
      const server: PgServer = {
        dir,
        port,
        url: (database = 'postgres') => `postgresql://postgres@127.0.0.1:${port}/${database}`,
        stop: async () => {
          if (!running.has(server)) return;
          running.delete(server);
          try {
            runPg(path.join(bin, 'pg_ctl'), ['-D', data, 'stop', '-m', 'fast', '-w'], { quiet: true });
          } finally {
            fs.rmSync(dir, { recursive: true, force: true });
          }
        },
      };
      running.add(server);
      installExitHook();
      return server;
    } catch (e) {
      lastError = e; // most likely the port was taken between freePort() and start: try another
    }
  }
  const log = fs.existsSync(path.join(dir, 'log')) ? fs.readFileSync(path.join(dir, 'log'), 'utf8').slice(-2000) : '';
  fs.rmSync(dir, { recursive: true, force: true });
  throw new Error(`pg_ctl start failed: ${(lastError as { stderr?: Buffer }).stderr?.toString() ?? lastError}\n${log}`);
}

/** Runs SQL statements on `url` (outside any transaction). */
export async function pgExec(url: string, ...statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const s of statements) await client.query(s);
  } finally {
    await client.end();
  }
}

const ident = (name: string) => {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`database name must match [a-z_][a-z0-9_]*, got '${name}'`);
  return `"${name}"`;
};

/** Creates database `name` (a copy of `template` when given) and returns its URL. */
export async function createDatabase(server: PgServer | string, name: string, template?: string): Promise<string> {
  const admin = typeof server === 'string' ? server : server.url('postgres');
  const sql = `CREATE DATABASE ${ident(name)}${template ? ` TEMPLATE ${ident(template)}` : ''}`;
  for (let attempt = 0; ; attempt++) {
    try {
      await pgExec(admin, sql);
      break;
    } catch (e) {
      // Two clones of one template at the same instant: "source database … is being accessed by other users".
      if (attempt < 20 && /being accessed by other users/.test((e as Error).message)) {
        await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
        continue;
      }
      throw e;
    }
  }
  const u = new URL(admin);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Drops database `name`, closing its connections. */
export async function dropDatabase(server: PgServer | string, name: string): Promise<void> {
  const admin = typeof server === 'string' ? server : server.url('postgres');
  await pgExec(admin, `DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`);
}
