/**
 * Issue 25: the server's memory while nodes are saved, and so indexed, through
 * the Chef API (not part of CI: a 10,000-node run takes minutes).
 *
 *   npx tsx scripts/search-server-memory.ts [--nodes N] [--concurrency C] [--runs R] [--heap-mb H] [--keep]
 *
 * Migrates a fresh SQLite database in a temp directory, adds an administrator
 * with a key, and starts the console's own server (scripts/serve.ts in
 * production, with the node options of `npm run serve` (scripts/server-command.ts:
 * its heap cap; `--heap-mb H` measures another), on a free port of 127.0.0.1;
 * it needs `next build`'s output in .next). Then saves N nodes (default 10,000) of
 * about 24 KB of Ohai-like attributes each (bench/search.bench.ts's ohaiNode)
 * with signed `POST /organizations/ORG/nodes`, C at a time (default 4), and R
 * times (default 1) saves each again as a chef-client run does (`PUT`, a few
 * Ohai values changed). Prints one JSON line: the server's peak resident set
 * (VmHWM in /proc/PID/status) and its resident set after the saves and after
 * the first save, the node count the server's search then answers, seconds.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { applyMigrations } from '../lib/db/migrate';
import { signRequest } from '../lib/auth/chef-signing';
import { afterRun, ohaiNode } from '../bench/search.bench';
import { serverNodeArgs } from './server-command';

import { numberFlag } from './flags';
const args = process.argv.slice(2);
const num = (flag: string, dflt: number) => numberFlag(args, flag, dflt);
const NODES = num('--nodes', 10_000);
const CONCURRENCY = num('--concurrency', 4);
const RUNS = num('--runs', 1);
const HEAP_MB = num('--heap-mb', 0);
const keep = args.includes('--keep');
if (!fs.existsSync(path.join('.next', 'BUILD_ID'))) {
  console.error('search-server-memory: no production build in .next: run `npx next build` first (the server it measures is `npm run serve`)');
  process.exit(1);
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'search-server-memory-'));
const url = `file:${path.join(root, 'console.db')}`;
await applyMigrations(url);
process.env.DATABASE_URL = url;
const { db } = await import('../lib/db/client');
const { HOME_MEMBERSHIP, ensureHomeOrganization } = await import('../lib/services/organizations');
const { chefOrg } = await import('../lib/config');
const { addUserKey } = await import('../lib/services/keys');
const org = chefOrg();
await ensureHomeOrganization(org);
await db().user.create({ data: { email: 'mem-admin@example.com', name: 'Admin', chefName: 'mem-admin', isAdmin: true, passwordHash: '', orgMemberships: HOME_MEMBERSHIP } });
const { privateKey } = await addUserKey({ kind: 'system', userId: null, email: 'search-server-memory' }, 'mem-admin', { name: 'default' });
await db().$disconnect();

const port = await new Promise<number>((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => {
    const p = (s.address() as net.AddressInfo).port;
    s.close(() => resolve(p));
  });
});
const NODE_ARGS = (process.env.SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
// As `npm run serve` starts it (package.json: its heap cap); --heap-mb replaces the cap, SERVER_NODE_ARGS adds options.
const SERVE_ARGS = serverNodeArgs().filter((a) => !(HEAP_MB && a.startsWith('--max-old-space-size=')));
const server = spawn(process.execPath, [...SERVE_ARGS, ...(HEAP_MB ? [`--max-old-space-size=${HEAP_MB}`] : []), ...NODE_ARGS, '--import', 'tsx', 'scripts/serve.ts'], {
  env: { ...process.env, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: url, AUTH_SECRET: randomBytes(32).toString('base64url'), LOG_LEVEL: 'info' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let out = '';
let listening = false;
await new Promise<void>((resolve, reject) => {
  // Its log goes nowhere once it listens (one line a request).
  server.stdout.on('data', (d: Buffer) => {
    if (listening) return;
    out += d.toString();
    if (out.includes('Policy Console on')) {
      listening = true;
      resolve();
    }
  });
  server.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening:\n${out.slice(-2000)}`)));
});
const status = (field: 'VmHWM' | 'VmRSS') => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${server.pid}/status`, 'utf8'))![1]) / 1024;
const rssStarted = status('VmRSS');

const base = `http://127.0.0.1:${port}`;
async function request(method: string, p: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const text = body === undefined ? '' : JSON.stringify(body);
  const headers = signRequest({ method, path: p.split('?')[0], body: text, userId: 'mem-admin', privateKey, apiVersion: '1' });
  const res = await fetch(base + p, { method, body: body === undefined ? undefined : text, headers: { ...headers, 'content-type': 'application/json', accept: 'application/json' } });
  return { status: res.status, json: await res.json() };
}
async function each(n: number, fn: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    for (let i = next++; i < n; i = next++) await fn(i);
  }));
}
const orgPath = `/organizations/${org}`;
const started = performance.now();
let rssAfterFirst = 0;
await each(NODES, async (i) => {
  const r = await request('POST', `${orgPath}/nodes`, ohaiNode(i));
  if (r.status !== 201) throw new Error(`POST node ${i}: ${r.status} ${JSON.stringify(r.json)}`);
});
const firstSeconds = (performance.now() - started) / 1000;
rssAfterFirst = status('VmRSS');
for (let run = 1; run <= RUNS; run++) {
  await each(NODES, async (i) => {
    const n = afterRun(ohaiNode(i), run);
    const r = await request('PUT', `${orgPath}/nodes/${n.name}`, n);
    if (r.status !== 200) throw new Error(`PUT node ${i}: ${r.status} ${JSON.stringify(r.json)}`);
  });
}
const seconds = (performance.now() - started) / 1000;
const found = await request('GET', `${orgPath}/search/node?q=${encodeURIComponent('policy_group:production AND platform:ubuntu')}&rows=0`);
const result = {
  nodes: NODES,
  concurrency: CONCURRENCY,
  runs: RUNS,
  node_kb: Math.round(JSON.stringify(ohaiNode(1)).length / 1024),
  first_saves_s: Math.round(firstSeconds),
  seconds: Math.round(seconds),
  rss_started_mb: Math.round(rssStarted),
  rss_after_first_saves_mb: Math.round(rssAfterFirst),
  rss_end_mb: Math.round(status('VmRSS')),
  peak_rss_mb: Math.round(status('VmHWM')),
  node_args: [...SERVE_ARGS, ...(HEAP_MB ? [`--max-old-space-size=${HEAP_MB}`] : []), ...NODE_ARGS].join(' '),
  search: found.status === 200 ? (found.json as { total: number }).total : found,
};
server.kill('SIGTERM');
await new Promise((r) => server.once('exit', r));
console.log(JSON.stringify(result));
if (!keep) fs.rmSync(root, { recursive: true, force: true });
else console.error(`kept ${root}`);
