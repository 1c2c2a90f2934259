/**
 * CPU profiles of the production server (scripts/serve.ts after `next build`, NODE_ENV=production, default
 * logging to a discarded stdout) under the benchmarks' own loads, one server process per load:
 *   npx tsx bench/profile.ts [seconds=10] [outdir=data/bench/profiles] [signed-read|chef-run|api-read ...]
 * Writes <outdir>/<load>.cpuprofile and prints bench/profile-summary.ts's table for each, with the load average.
 * Not part of `npm test` or `npm run bench`; run under `flock /tmp/heavy.lock` on a shared machine.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import autocannon from 'autocannon';
import { createDb } from '@/lib/db/client';
import { createApiToken } from '@/lib/services/users';
import { chefClientRun, policyRead, runSequence, type ChefApp } from './lib/chef-bench';
import { categories, summarise } from './profile-summary';

const ROOT = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const seconds = Number(args.find((a) => /^\d+$/.test(a)) ?? 10);
const outDir = path.resolve(ROOT, args.find((a) => a.includes('/')) ?? 'data/bench/profiles');
const LOADS = ['signed-read', 'chef-run', 'api-read'] as const;
const wanted = LOADS.filter((l) => !args.some((a) => (LOADS as readonly string[]).includes(a)) || args.includes(l));
if (!fs.existsSync(path.join(ROOT, '.next', 'BUILD_ID'))) throw new Error('run `next build` first');
fs.mkdirSync(outDir, { recursive: true });

const loadavg = () => os.loadavg().map((n) => n.toFixed(2)).join(' ');

async function serve(load: string, port: number) {
  const dbFile = path.join(ROOT, 'data', 'bench', `profile-${load}.db`);
  for (const f of [dbFile, `${dbFile}-journal`, `${dbFile}-wal`, `${dbFile}-shm`]) fs.rmSync(f, { force: true });
  const env = { ...process.env, DATABASE_URL: `file:${dbFile}`, SEED_DEMO: 'true', NEXT_TELEMETRY_DISABLED: '1', NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1' } as NodeJS.ProcessEnv;
  if (spawnSync('npx', ['tsx', 'scripts/prepare.ts'], { cwd: ROOT, stdio: 'ignore', env }).status !== 0) throw new Error('prepare failed');
  const key = spawnSync('npx', ['tsx', 'scripts/chef-user-key.ts', 'viewer'], { cwd: ROOT, env, encoding: 'utf8' }).stdout;
  const adminKey = spawnSync('npx', ['tsx', 'scripts/chef-user-key.ts', 'admin'], { cwd: ROOT, env, encoding: 'utf8' }).stdout;
  // One directory per load: every thread of the process (tsx's module-hooks worker too) writes its own profile there.
  const dir = path.join(outDir, load);
  fs.rmSync(dir, { recursive: true, force: true });
  const child = spawn(process.execPath, ['--max-old-space-size=384', '--cpu-prof', `--cpu-prof-dir=${dir}`, '--import', 'tsx', 'scripts/serve.ts'], { cwd: ROOT, env, stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 240; i++) {
    try {
      if ((await fetch(`${url}/api/health`)).ok) break;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const app: ChefApp = { url, dbUrl: `file:${dbFile}`, org: `/organizations/${process.env.CHEF_ORG || 'console'}`, key, adminKey, stop: () => child.kill('SIGTERM') };
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return { app, exited };
}

for (const [i, load] of wanted.entries()) {
  const { app, exited } = await serve(load, 3240 + i);
  let note = '';
  try {
    if (load === 'signed-read') {
      const { path: p, headers } = await policyRead(app);
      await autocannon({ url: `${app.url}${p}`, connections: 32, duration: 2, headers }); // warm-up
      const r = await autocannon({ url: `${app.url}${p}`, connections: 32, duration: seconds, headers });
      note = `${Math.round(r.requests.average)} req/s, non-2xx ${r.non2xx}`;
    } else if (load === 'chef-run') {
      const { sequence } = await chefClientRun(app);
      await runSequence(app.url, sequence, 2);
      const r = await runSequence(app.url, sequence, seconds);
      note = `${Math.round(r.runsPerSecond)} runs/s, non-2xx ${r.non2xx}`;
    } else {
      const client = createDb(app.dbUrl);
      const { token } = await createApiToken(null, { userEmail: 'viewer@example.com', name: 'profile' }, client);
      await client.$disconnect();
      const u = `${app.url}/api/v1/policy_groups/production/policies/webapp`;
      const headers = { authorization: `Bearer ${token}` };
      await autocannon({ url: u, connections: 32, duration: 2, headers });
      const r = await autocannon({ url: u, connections: 32, duration: seconds, headers });
      note = `${Math.round(r.requests.average)} req/s, non-2xx ${r.non2xx}`;
    }
  } finally {
    app.stop();
    await exited;
  }
  // The server's main thread: thread id 0 in node's file name (CPU.<date>.<time>.<pid>.<tid>.<seq>.cpuprofile); of
  // several processes' (a child Next forks inherits the flags), the largest.
  const dir = path.join(outDir, load);
  const main = fs
    .readdirSync(dir)
    .filter((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f))
    .sort((a, b) => fs.statSync(path.join(dir, b)).size - fs.statSync(path.join(dir, a)).size);
  if (!main.length) throw new Error(`no main-thread profile in ${dir}: ${fs.readdirSync(dir).join(', ')}`);
  console.log(`(${dir}: ${fs.readdirSync(dir).join(', ')})`);
  const file = path.join(outDir, `${load}.cpuprofile`);
  fs.copyFileSync(path.join(dir, main[0]), file);
  console.log(`\n=== ${load}: ${note}; load average ${loadavg()} (after); ${file}`);
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  console.log(summarise(profile, 25));
  console.log('\nbusy self time by kind of work (% of busy samples)\n' + categories(profile));
}
process.exit(0);
