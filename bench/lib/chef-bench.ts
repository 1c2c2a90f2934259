/**
 * The Chef routes' server (bench/lib/chef-server.ts, the handler scripts/serve.ts
 * puts in front of Next) on a seeded scratch database, in its own process, and
 * the requests a chef-client run makes: shared by chef-read.bench.ts (SQLite
 * against bare node:http) and postgres.bench.ts (PostgreSQL against SQLite).
 */
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import autocannon from 'autocannon';
import { signRequest } from '@/lib/auth/chef-signing';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface ChefApp {
  url: string;
  dbUrl: string;
  org: string;
  /** Private keys (PEM) of the demo users 'viewer' and 'admin'. */
  key: string;
  adminKey: string;
  stop(): void;
}

/** Migrates and seeds `dbUrl` (the demo), makes keys for 'viewer' and 'admin', and starts the Chef server on `port`. */
export async function startChef(dbUrl: string, port: number): Promise<ChefApp> {
  const env = { ...process.env, DATABASE_URL: dbUrl, PORT: String(port), SEED_DEMO: 'true', LOG_LEVEL: 'warn' };
  const what = dbUrl.split(':')[0];
  if (spawnSync('npx', ['tsx', 'scripts/prepare.ts'], { cwd: ROOT, stdio: 'ignore', env }).status !== 0) throw new Error(`prepare failed on ${what}`);
  const key = spawnSync('npx', ['tsx', 'scripts/chef-user-key.ts', 'viewer'], { cwd: ROOT, env, encoding: 'utf8' }).stdout;
  const adminKey = spawnSync('npx', ['tsx', 'scripts/chef-user-key.ts', 'admin'], { cwd: ROOT, env, encoding: 'utf8' }).stdout;
  const child = spawn('npx', ['tsx', 'bench/lib/chef-server.ts'], { cwd: ROOT, env, stdio: 'ignore', detached: true });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 120; i++) {
    try {
      await fetch(`${url}/organizations`);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  return {
    url,
    dbUrl,
    org: `/organizations/${process.env.CHEF_ORG || 'console'}`,
    key,
    adminKey,
    stop: () => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        /* already gone */
      }
    },
  };
}

/** The signed policy read every chef-client run starts with (protocol 1.1, as the user 'viewer'), and its answer. */
export async function policyRead(app: ChefApp): Promise<{ path: string; headers: Record<string, string>; body: string }> {
  const readPath = `${app.org}/policy_groups/production/policies/webapp`;
  const headers = signRequest({ method: 'GET', path: readPath, userId: 'viewer', privateKey: app.key, protocol: '1.1' });
  const res = await fetch(`${app.url}${readPath}`, { headers });
  if (!res.ok) throw new Error(`signed read answered ${res.status}: ${await res.text()}`);
  return { path: readPath, headers, body: await res.text() };
}

export type Sequence = { method: 'GET' | 'PUT'; path: string; headers: Record<string, string>; body?: string }[];

/**
 * A node's client registered as chef-client registers it (POST /clients by the
 * admin here, create_key), its node object saved once, and the three signed
 * requests of a no-change chef-client run: node GET, policy GET, node PUT.
 */
export async function chefClientRun(app: ChefApp, name = 'bench-node'): Promise<{ nodeKey: string; sequence: Sequence }> {
  const { path: readPath, body: policy } = await policyRead(app);
  const regBody = JSON.stringify({ name, create_key: true });
  const reg = await fetch(`${app.url}${app.org}/clients`, {
    method: 'POST',
    headers: { ...signRequest({ method: 'POST', path: `${app.org}/clients`, body: regBody, userId: 'admin', privateKey: app.adminKey }), 'content-type': 'application/json' },
    body: regBody,
  });
  if (reg.status !== 201) throw new Error(`client registration answered ${reg.status}: ${await reg.text()}`);
  const nodeKey = (await reg.json()).chef_key.private_key as string;
  const node = JSON.stringify({ name, policy_name: 'webapp', policy_group: 'production', automatic: { platform: 'ubuntu', platform_version: '24.04', policy_revision: JSON.parse(policy).revision_id } });
  const sign = (method: string, p: string, b = '') => ({ ...signRequest({ method, path: p, body: b, userId: name, privateKey: nodeKey }), 'content-type': 'application/json' });
  // Issue 41: a client may not enroll its node into a stage without open enrollment (production has none in the
  // demo); a user with rights on the stage places it, then the node's own client saves it on every run.
  const adminSigned = { ...signRequest({ method: 'POST', path: `${app.org}/nodes`, body: node, userId: 'admin', privateKey: app.adminKey }), 'content-type': 'application/json' };
  const post = await fetch(`${app.url}${app.org}/nodes`, { method: 'POST', headers: adminSigned, body: node });
  if (post.status !== 201) throw new Error(`node create answered ${post.status}: ${await post.text()}`);
  const nodePath = `${app.org}/nodes/${name}`;
  return {
    nodeKey,
    sequence: [
      { method: 'GET', path: nodePath, headers: sign('GET', nodePath) },
      { method: 'GET', path: readPath, headers: sign('GET', readPath) },
      { method: 'PUT', path: nodePath, headers: sign('PUT', nodePath, node), body: node },
    ],
  };
}

/** No-change chef-client runs (the sequence, 8 nodes at once) for `seconds`: runs per second and the mean ms of one run. */
export async function runSequence(url: string, sequence: Sequence, seconds: number, bare = false): Promise<{ runsPerSecond: number; msPerRun: number; non2xx: number }> {
  const requests = bare ? sequence.map((s) => ({ ...s, path: '/' })) : sequence;
  const r = await autocannon({ url, connections: 8, duration: seconds, requests });
  return { runsPerSecond: r.requests.average / sequence.length, msPerRun: r.latency.average * sequence.length, non2xx: r.non2xx };
}
