import fs from 'node:fs';
import http from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import autocannon from 'autocannon';
import { signRequest } from '@/lib/auth/chef-signing';
import { createDb } from '@/lib/db/client';
import { round, type BenchResult } from './lib/harness';
import { alternating, startBare, throughput } from './lib/servers';
import { chefClientRun, policyRead, runSequence, startChef } from './lib/chef-bench';

const ROOT = path.resolve(import.meta.dirname, '..');

async function startBareBytes(port: number, bytes: Buffer) {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes.length });
    res.end(bytes);
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${port}`, stop: () => new Promise<void>((r) => server.close(() => r())) };
}

/** First chef-client runs, each as a new node, 4 at a time for `seconds`: runs per second and mean ms per run. */
const filesPer = new Map<string, number>();

async function firstRuns(url: string, org: string, nodeKey: string, lock: { cookbook_locks: Record<string, { identifier: string }> }, seconds: number, bare = false) {
  let runs = 0;
  let requests = 0;
  let totalMs = 0;
  let refused = 0;
  const deadline = Date.now() + seconds * 1000;
  const send = async (method: string, path: string, body?: string) => {
    requests++;
    const headers = { ...signRequest({ method, path, body: body ?? '', userId: 'bench-node', privateKey: nodeKey }), 'content-type': 'application/json' };
    const r = await fetch(`${url}${bare ? '/' : path}`, { method: bare ? 'GET' : method, headers: bare ? {} : headers, body: bare ? undefined : body });
    const text = await r.text();
    return { status: r.status, text };
  };
  const worker = async (w: number) => {
    for (let i = 0; Date.now() < deadline; i++) {
      const t = performance.now();
      const name = `bench-first-${w}-${i}-${process.hrtime.bigint()}`;
      const node = JSON.stringify({ name, policy_name: 'webapp', policy_group: 'production', automatic: { platform: 'ubuntu' } });
      await send('GET', `${org}/nodes/${name}`);
      if (!bare && (await send('POST', `${org}/nodes`, node)).status >= 400) refused++;
      if (bare) await send('POST', `${org}/nodes`, node);
      await send('GET', `${org}/policy_groups/production/policies/webapp`);
      for (const [cb, l] of Object.entries(lock.cookbook_locks)) {
        const m = await send('GET', `${org}/cookbook_artifacts/${cb}/${l.identifier}`);
        if (!bare && m.status !== 200) throw new Error(`artifact ${cb} answered ${m.status}`);
        // The bare baseline answers the same number of file requests as the real manifests list.
        const checksums = bare ? Array.from({ length: filesPer.get(cb) ?? 0 }, () => 'x') : (JSON.parse(m.text) as { all_files: { checksum: string }[] }).all_files.map((f) => f.checksum);
        if (!bare) filesPer.set(cb, checksums.length);
        for (const c of checksums) await send('GET', `${org}/file_store/checksums/${c}`);
      }
      if ((await send('PUT', `${org}/nodes/${name}`, node)).status >= 400 && !bare) refused++;
      totalMs += performance.now() - t;
      runs++;
    }
  };
  await Promise.all([0, 1, 2, 3].map(worker));
  return { runsPerSecond: runs / seconds, msPerRun: totalMs / Math.max(1, runs), requests: Math.round(requests / Math.max(1, runs)), refused };
}

/**
 * The signed policy read (protocol 1.1) that every chef-client run starts with,
 * against bare node:http serving the same bytes; and a whole no-change
 * chef-client run (node GET, policy GET, node PUT, all signed) in runs/s.
 */
export default async function bench(seconds: number): Promise<BenchResult[]> {
  const dbFile = path.join(ROOT, 'data', 'bench', 'chef-3230.db');
  fs.mkdirSync(path.dirname(dbFile), { recursive: true });
  for (const f of [dbFile, `${dbFile}-journal`, `${dbFile}-wal`, `${dbFile}-shm`]) fs.rmSync(f, { force: true });
  const app = await startChef(`file:${dbFile}`, 3230);
  try {
    const org = app.org;
    const { path: readPath, headers, body } = await policyRead(app);
    const { nodeKey, sequence } = await chefClientRun(app);

    const bare = await startBare(3231, body);
    try {
      // Issue 49: each ratio is the median of 3 rounds, the bare baseline and ours back to back in each.
      const read = await alternating(
        async () => {
          const r = await throughput(`${bare.url}/`, seconds);
          return { ...r, rate: r.rps, ms: r.latencyMs };
        },
        async () => {
          const r = await throughput(`${app.url}${readPath}`, seconds, headers);
          if (r.non2xx) throw new Error(`signed read answered ${r.non2xx} non-2xx responses`);
          return { ...r, rate: r.rps, ms: r.latencyMs };
        },
      );
      const ours = read.ours;
      const base = read.base;
      const run = await alternating(
        async () => {
          const r = await runSequence(bare.url, sequence, seconds, true);
          return { ...r, rate: r.runsPerSecond, ms: r.msPerRun };
        },
        async () => {
          const r = await runSequence(app.url, sequence, seconds);
          if (r.non2xx) throw new Error(`chef-client sequence answered ${r.non2xx} non-2xx responses`);
          return { ...r, rate: r.runsPerSecond, ms: r.msPerRun };
        },
      );
      const runs = run.ours;
      const baseRuns = run.base;
      const ratio = read.ratio;
      const runRatio = run.ratio;

      // A 1 MB cookbook file, downloaded signed (as chef-client does), against bare node:http serving the same bytes.
      const big = randomBytes(1024 * 1024);
      const sum = createHash('md5').update(big).digest('hex');
      const client = createDb(app.dbUrl);
      await client.cookbookFile.create({ data: { checksum: sum, size: big.length, content: new Uint8Array(big) } });
      await client.$disconnect();
      const filePath = `${org}/file_store/checksums/${sum}`;
      const fileHeaders = signRequest({ method: 'GET', path: filePath, userId: 'bench-node', privateKey: nodeKey });
      const bareFile = await startBareBytes(3232, big);
      const fileBase = await autocannon({ url: `${bareFile.url}/`, connections: 8, duration: seconds });
      const fileOurs = await autocannon({ url: `${app.url}${filePath}`, connections: 8, duration: seconds, headers: fileHeaders });
      await bareFile.stop();
      if (fileOurs.non2xx) throw new Error(`download answered ${fileOurs.non2xx} non-2xx responses`);
      const mbps = (r: autocannon.Result) => r.throughput.average / 1e6;

      // A whole first chef-client run: node GET (404), node POST, policy GET, every artifact GET, every file GET, node PUT.
      const lock = JSON.parse(body) as { cookbook_locks: Record<string, { identifier: string }> };
      const first = await firstRuns(app.url, org, nodeKey, lock, seconds);
      const firstBare = await firstRuns(bare.url, org, nodeKey, lock, seconds, true);
      return [
        {
          name: 'signed policy read GET /organizations/:org/policy_groups/:g/policies/:p, protocol 1.1 (32 connections)',
          ours_ms: round(ours.latencyMs),
          baseline: 'bare node:http, same bytes',
          baseline_ms: round(base.latencyMs),
          ratio: round(ratio),
          goal: '>= 0.50 of baseline req/s (issue 49; 0.30 before)',
          met: ratio >= 0.5,
          note: `${Math.round(ours.rps)} vs ${Math.round(base.rps)} req/s over ${seconds}s (the median round); ms columns are mean latency; body ${body.length} bytes; ${read.note}`,
        },
        {
          name: 'no-change chef-client run: node GET, policy GET, node PUT, all signed (8 nodes at once)',
          ours_ms: round(runs.msPerRun),
          baseline: 'bare node:http answering the same three requests',
          baseline_ms: round(baseRuns.msPerRun),
          ratio: round(runRatio),
          goal: '>= 0.25 of baseline runs/s (issue 49; >= 200 runs/s before)',
          met: runRatio >= 0.25,
          note: `${Math.round(runs.runsPerSecond)} runs/s vs ${Math.round(baseRuns.runsPerSecond)} for the bare server (the median round); ms columns are the mean time of one run; ${run.note}`,
        },
        {
          name: 'cookbook file download, 1 MB, signed GET (8 connections)',
          ours_ms: round(fileOurs.latency.average),
          baseline: 'bare node:http serving the same bytes',
          baseline_ms: round(fileBase.latency.average),
          ratio: round(mbps(fileOurs) / mbps(fileBase)),
          goal: 'report only (MB/s)',
          met: true,
          note: `${Math.round(mbps(fileOurs))} vs ${Math.round(mbps(fileBase))} MB/s`,
        },
        {
          name: `first chef-client run: node GET 404, POST, policy GET, ${Object.keys(lock.cookbook_locks).length} artifact GETs, their file GETs, node PUT (4 nodes at once)`,
          ours_ms: round(first.msPerRun),
          baseline: 'the same requests against bare node:http',
          baseline_ms: round(firstBare.msPerRun),
          ratio: round(first.runsPerSecond / firstBare.runsPerSecond),
          goal: 'report only (runs/s)',
          met: true,
          note: `${first.runsPerSecond.toFixed(1)} runs/s (${first.requests} requests per run) vs ${firstBare.runsPerSecond.toFixed(1)} for the bare server${first.refused ? `; node POST/PUT answered 4xx ${first.refused} times (these first runs are not whole)` : ''}`,
        },
      ];
    } finally {
      await bare.stop();
    }
  } finally {
    app.stop();
  }
}
