/**
 * Issue 26's two speed targets:
 *
 * 1. Data collector ingest on SQLite: chef-client runs (run_start then
 *    run_converge, signed by each node's own client, bodies shaped like the
 *    ones chef-client 18 sent in test/fixtures/data-collector, 1 in 10 a
 *    failure) while the same instance serves signed policy reads; goal
 *    ≥ 500 runs/s, with the ratio to a bare node:http server that reads the
 *    same bodies and answers the same bytes (same client, same signed bodies).
 * 2. The board's rollout health query (rolloutHealth) at 10,000 nodes × 30
 *    days of runs against 100 nodes × 30 days: the same number of SQL
 *    statements, and the timings.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { signRequest } from '@/lib/auth/chef-signing';
import { createDb, installDb } from '@/lib/db/client';
import { applyMigrations } from '@/lib/db/migrate';
import { loadAccess } from '@/lib/db/queries/access';
import { rolloutHealth } from '@/lib/services/runs';
import { HOME_MEMBERSHIP } from '@/lib/services/organizations';
import { round, type BenchResult } from './lib/harness';
import { policyRead, startChef, type ChefApp } from './lib/chef-bench';

const ROOT = path.resolve(import.meta.dirname, '..');
const PORT = Number(process.env.BENCH_ROLLOUT_PORT ?? 42810);
const NODES = 16;
const CONCURRENCY = 16;

const fixture = (name: string) =>
  fs
    .readFileSync(path.join(ROOT, 'test/fixtures/data-collector', name), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

interface Msg {
  path: string;
  body: string;
  headers: Record<string, string>;
}

/** Pre-signed runs (signing is the client's cost, not the server's: it is done before the clock starts). */
function buildRuns(app: ChefApp, clients: { name: string; key: string }[], revision: string, count: number): Msg[][] {
  const [okStart, okConverge] = fixture('chef-18.4.64-success.jsonl');
  const [, failConverge] = fixture('chef-18.4.64-failure.jsonl');
  const path = `${app.org}/data-collector`;
  const t0 = Date.now() - 3600_000;
  const runs: Msg[][] = [];
  for (let i = 0; i < count; i++) {
    const c = clients[i % clients.length];
    const runId = randomUUID();
    const start = new Date(t0 + i * 10).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const end = new Date(t0 + i * 10 + 5000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const tmpl = i % 10 === 9 ? failConverge : okConverge;
    const node = structuredClone(tmpl.node) as { name: string; automatic: Record<string, unknown>; policy_name?: string; policy_group?: string };
    node.name = c.name;
    node.automatic = { ...node.automatic, name: c.name, policy_revision: revision, policy_name: 'webapp', policy_group: 'production' };
    node.policy_name = 'webapp';
    node.policy_group = 'production';
    const bodies = [
      { ...okStart, node_name: c.name, run_id: runId, id: runId, start_time: start },
      { ...tmpl, node_name: c.name, run_id: runId, id: runId, start_time: start, end_time: end, policy_name: 'webapp', policy_group: 'production', node },
    ].map((b) => JSON.stringify(b));
    runs.push(bodies.map((body) => ({ path, body, headers: { ...signRequest({ method: 'POST', path, body, userId: c.name, privateKey: c.key }), 'content-type': 'application/json' } })));
  }
  return runs;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function post(base: string, m: Msg, bare: boolean): Promise<number> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, method: 'POST', path: bare ? '/' : m.path, headers: { ...m.headers, 'content-length': Buffer.byteLength(m.body) }, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(m.body);
  });
}

/** Sends every run (its run_start then its run_converge), CONCURRENCY at a time: runs per second and mean ms per run. */
async function ingest(base: string, runs: Msg[][], bare = false): Promise<{ runsPerSecond: number; msPerRun: number; non2xx: number }> {
  let next = 0;
  let non2xx = 0;
  let totalMs = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < runs.length; i = next++) {
        const s = performance.now();
        for (const m of runs[i]) {
          const status = await post(base, m, bare);
          if (status < 200 || status >= 300) non2xx++;
        }
        totalMs += performance.now() - s;
      }
    }),
  );
  const seconds = (performance.now() - t) / 1000;
  return { runsPerSecond: runs.length / seconds, msPerRun: totalMs / runs.length, non2xx };
}

/** A bare node:http server that reads each body whole and answers the bytes the console answers. */
async function startBareReader(port: number, answer: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      Buffer.concat(chunks);
      res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
      res.end(answer);
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${port}`, stop: () => new Promise((r) => server.close(() => r())) };
}

async function ingestBench(seconds: number): Promise<BenchResult[]> {
  const dbFile = path.join(ROOT, 'data', 'bench', `rollout-${PORT}.db`);
  fs.mkdirSync(path.dirname(dbFile), { recursive: true });
  for (const f of [dbFile, `${dbFile}-journal`, `${dbFile}-wal`, `${dbFile}-shm`]) fs.rmSync(f, { force: true });
  const app = await startChef(`file:${dbFile}`, PORT);
  try {
    const read = await policyRead(app);
    const revision = (JSON.parse(read.body) as { revision_id: string }).revision_id;
    const clients: { name: string; key: string }[] = [];
    for (let i = 0; i < NODES; i++) {
      const name = `bench-dc-${i}`;
      const regBody = JSON.stringify({ name, create_key: true });
      const reg = await fetch(`${app.url}${app.org}/clients`, {
        method: 'POST',
        headers: { ...signRequest({ method: 'POST', path: `${app.org}/clients`, body: regBody, userId: 'admin', privateKey: app.adminKey }), 'content-type': 'application/json' },
        body: regBody,
      });
      if (reg.status !== 201) throw new Error(`client registration answered ${reg.status}: ${await reg.text()}`);
      clients.push({ name, key: ((await reg.json()) as { chef_key: { private_key: string } }).chef_key.private_key });
    }
    // Enough runs for about `seconds` at the goal, at least 1,000.
    const count = Math.max(1000, Math.round(seconds * 500));
    const warm = buildRuns(app, clients, revision, 200);
    const runs = buildRuns(app, clients, revision, count);
    const baseRuns = buildRuns(app, clients, revision, count);
    const first = await fetch(`${app.url}${warm[0][0].path}`, { method: 'POST', headers: warm[0][0].headers, body: warm[0][0].body });
    if (first.status !== 201) throw new Error(`data collector answered ${first.status}: ${await first.text()}`);
    const answer = await first.text();
    await ingest(app.url, [[warm[0][1]], ...warm.slice(1)]);

    // The same instance serves signed policy reads (2 connections) while the runs come in.
    let readsDone!: (r: autocannon.Result) => void;
    const readsResult = new Promise<autocannon.Result>((r) => (readsDone = r));
    const reads = autocannon({ url: `${app.url}${read.path}`, connections: 2, duration: 3600, headers: read.headers }, (err, r) => {
      if (err) throw err;
      readsDone(r);
    });
    const ours = await ingest(app.url, runs);
    reads.stop();
    const readResult = await readsResult;
    if (ours.non2xx) throw new Error(`data collector answered ${ours.non2xx} non-2xx responses`);
    if (readResult.non2xx) throw new Error(`policy reads answered ${readResult.non2xx} non-2xx responses during ingest`);
    const stored = createDb(app.dbUrl);
    const rows = await stored.runReport.count({ where: { nodeName: { startsWith: 'bench-dc-' }, status: { in: ['success', 'failure'] } } });
    await stored.$disconnect();
    if (rows !== count + warm.length) throw new Error(`expected ${count + warm.length} finished runs stored, found ${rows}`);

    const bare = await startBareReader(PORT + 1, answer);
    let base;
    try {
      base = await ingest(bare.url, baseRuns, true);
    } finally {
      await bare.stop();
    }
    const ratio = ours.runsPerSecond / base.runsPerSecond;
    console.error(`  ingest: ${Math.round(ours.runsPerSecond)} runs/s vs bare ${Math.round(base.runsPerSecond)}`);
    const readSeconds = readResult.duration || 1;
    return [
      {
        name: `data collector ingest: chef-client runs (run_start + run_converge, signed, 1 in 10 failing), ${CONCURRENCY} at once, policy reads served meanwhile (SQLite)`,
        ours_ms: round(ours.msPerRun),
        baseline: 'bare node:http reading the same bodies',
        baseline_ms: round(base.msPerRun),
        ratio: round(ratio),
        goal: '>= 500 runs/s (SQLite)',
        met: ours.runsPerSecond >= 500,
        note: `${Math.round(ours.runsPerSecond)} runs/s (${Math.round(ours.runsPerSecond * 2)} messages/s) vs ${Math.round(base.runsPerSecond)} for the bare server over ${count} runs; ${Math.round(readResult.requests.total / readSeconds)} signed policy reads/s served meanwhile; ms columns are the mean time of one run (two messages)`,
      },
    ];
  } finally {
    app.stop();
  }
}

const DAY = 86_400_000;

/** Bulk load for the benchmark (SQLite): multi-row INSERTs, DateTime as the text Prisma writes (Prisma's createMany took minutes for 300,000 rows). */
async function insertRows(client: ReturnType<typeof createDb>, table: string, rows: object[]): Promise<void> {
  if (!rows.length) return;
  const cols = Object.keys(rows[0]);
  const per = Math.floor(30_000 / cols.length);
  for (let i = 0; i < rows.length; i += per) {
    const chunk = rows.slice(i, i + per) as Record<string, unknown>[];
    const params = chunk.flatMap((r) => cols.map((c) => (r[c] instanceof Date ? (r[c] as Date).toISOString().replace(/Z$/, '+00:00') : (r[c] ?? null))));
    await client.$executeRawUnsafe(`INSERT INTO "${table}" (${cols.map((c) => `"${c}"`).join(', ')}) VALUES ${chunk.map(() => `(${cols.map(() => '?').join(', ')})`).join(', ')}`, ...params);
  }
}

/** 10,000 nodes × 30 days of runs (one a day each) or fewer, in one stage of one policy per 500 nodes across 4 stages. */
async function healthAt(nodes: number, days: number) {
  const file = path.resolve(`data/bench/rollout-health-${nodes}-${PORT}.db`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  for (const f of [file, `${file}-journal`, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
  const url = `file:${file}`;
  await applyMigrations(url);
  let queries = 0;
  const client = createDb(url, { onQuery: () => queries++ });
  installDb(client, url);
  process.env.DATABASE_URL = url; // the prepared read path (loadAccess) opens its own connection from it
  const user = await client.user.create({ data: { email: 'bench@example.com', name: 'Bench', passwordHash: 'x', isAdmin: true, orgMemberships: HOME_MEMBERSHIP } });
  const stages = ['dev', 'qa', 'staging', 'production'];
  const groups: { id: string; name: string }[] = [];
  for (const [i, s] of stages.entries()) groups.push(await client.policyGroup.create({ data: { name: s, position: i } }));
  const policies = 5;
  const revs: { policyId: string; pk: string; revisionId: string; name: string }[] = [];
  for (let p = 0; p < policies; p++) {
    const policy = await client.policy.create({ data: { name: `app-${p}` } });
    const revisionId = `${p}`.padStart(2, '0').repeat(32);
    const rev = await client.policyRevision.create({ data: { policyId: policy.id, revisionId, document: '{}', contentHash: revisionId, computedRevisionId: revisionId, cookbookCount: 0, cookbookDigest: '{}' } });
    revs.push({ policyId: policy.id, pk: rev.id, revisionId, name: policy.name });
    await client.groupPolicy.createMany({ data: groups.map((g) => ({ groupId: g.id, policyId: policy.id, revisionPk: rev.id })) });
  }
  const now = new Date();
  const nodeRows = [];
  const states = [];
  for (let n = 0; n < nodes; n++) {
    const g = groups[n % groups.length];
    const r = revs[Math.floor(n / groups.length) % revs.length];
    const name = `node-${String(n).padStart(5, '0')}`;
    const end = new Date(now.getTime() - (n % 7) * 60_000);
    const failed = n % 10 === 3;
    nodeRows.push({ name, groupId: g.id, policyId: r.policyId, revisionApplied: r.revisionId, lastCheckIn: failed ? new Date(now.getTime() - DAY) : end });
    if (n % 50 !== 7) states.push({ nodeName: name, groupName: g.name, policyName: r.name, revisionId: r.revisionId, status: failed ? 'failure' : 'success', runId: `${name}-last`, endTime: end, failedResource: failed ? `execute[step-${n % 3}]` : null, failedCookbook: failed ? `cb-${n % 2}` : null, receivedAt: end, firstSuccessAt: failed ? null : end });
  }
  await insertRows(client, 'Node', nodeRows.map((n) => ({ id: randomUUID(), createdAt: now, ...n })));
  await insertRows(client, 'NodeRunState', states);
  let runs = 0;
  for (let d = 0; d < days; d++) {
    const batch = nodeRows.map((n, i) => {
      const start = new Date(now.getTime() - d * DAY - (i % 7) * 60_000 - 30_000);
      const failed = (i + d) % 10 === 3;
      return {
        runId: `${n.name}-${d}`,
        nodeName: n.name,
        groupName: groups[i % groups.length].name,
        policyName: revs[Math.floor(i / groups.length) % revs.length].name,
        revisionId: n.revisionApplied,
        status: failed ? 'failure' : 'success',
        startTime: start,
        endTime: new Date(start.getTime() + 30_000),
        durationMs: 30_000,
        totalResources: 40,
        updatedResources: failed ? 1 : 0,
        failedResources: failed ? 1 : 0,
        failedResource: failed ? `execute[step-${i % 3}]` : null,
        failedCookbook: failed ? `cb-${i % 2}` : null,
        receivedAt: start,
      };
    });
    await insertRows(client, 'RunReport', batch.map((r) => ({ id: randomUUID(), ...r })));
    runs += batch.length;
  }
  const access = (await loadAccess(user.id))!;
  for (let i = 0; i < 3; i++) await rolloutHealth(access, now);
  const samples: number[] = [];
  let perCall = 0;
  let cells = 0;
  for (let i = 0; i < 7; i++) {
    queries = 0;
    const t = performance.now();
    const h = await rolloutHealth(access, now);
    samples.push(performance.now() - t);
    perCall = queries;
    cells = Object.keys(h).length;
    const counted = Object.values(h).reduce((s, c) => s + c.nodes, 0);
    if (counted !== nodes) throw new Error(`health counted ${counted} nodes of ${nodes}`);
  }
  await client.$disconnect();
  for (const f of [file, `${file}-journal`, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
  samples.sort((a, b) => a - b);
  console.error(`  health at ${nodes} nodes: ${Math.round(samples[3])} ms, ${perCall} statements, ${runs} runs`);
  return { ms: samples[3], queries: perCall, runs, cells };
}

async function healthBench(): Promise<BenchResult[]> {
  const small = await healthAt(100, 30);
  const large = await healthAt(10_000, 30);
  return [
    {
      name: 'rollout health on the board (rolloutHealth), 10,000 nodes x 30 days of runs',
      ours_ms: round(large.ms),
      baseline: 'same query, 100 nodes x 30 days',
      baseline_ms: round(small.ms),
      ratio: round(large.ms / small.ms),
      goal: 'constant SQL statement count',
      met: large.queries === small.queries,
      note: `${large.queries} SQL statements at 10,000 nodes (${large.runs} run reports, ${large.cells} stage x policy cells), ${small.queries} at 100 nodes (${small.runs} run reports); ms columns are the median server time`,
    },
  ];
}

export default async function bench(seconds: number): Promise<BenchResult[]> {
  return [...(await ingestBench(seconds)), ...(await healthBench())];
}
