/**
 * PostgreSQL next to SQLite, same run, same code: the stage board load (300
 * policies x 6 stages, in process) and the signed node read path (the Chef
 * route every chef-client run starts with, over HTTP in its own process).
 * Starts its own throwaway PostgreSQL server (test/pg-server.ts); needs the
 * `postgresql` package installed. Ratios are PostgreSQL / SQLite for times
 * and PostgreSQL's share of SQLite's requests per second for throughput.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createDb, installDb } from '@/lib/db/client';
import { applyMigrations } from '@/lib/db/migrate';
import { loadAccess } from '@/lib/db/queries/access';
import { loadBoard } from '@/lib/db/queries/board';
import { createDatabase, startPgServer, type PgServer } from '@/test/pg-server';
import { round, type BenchResult } from './lib/harness';
import { populate } from './lib/populate';
import { throughput } from './lib/servers';
import { chefClientRun, policyRead, runSequence, startChef } from './lib/chef-bench';

const ROOT = path.resolve(import.meta.dirname, '..');

async function boardMs(url: string): Promise<{ ms: number; queries: number }> {
  await applyMigrations(url);
  let queries = 0;
  const client = createDb(url, { onQuery: () => queries++ });
  const previous = process.env.DATABASE_URL;
  installDb(client, url);
  process.env.DATABASE_URL = url;
  try {
    const { userId } = await populate(client, 300, 6);
    const access = (await loadAccess(userId))!;
    for (let i = 0; i < 3; i++) await loadBoard(access);
    const samples: number[] = [];
    for (let i = 0; i < 9; i++) {
      queries = 0;
      const t = performance.now();
      const board = await loadBoard(access);
      samples.push(performance.now() - t);
      if (board.policies.length !== 300) throw new Error('board lost policies');
    }
    samples.sort((a, b) => a - b);
    return { ms: samples[4], queries };
  } finally {
    await client.$disconnect();
    if (previous === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = previous;
  }
}

/**
 * The Chef server (bench/lib/chef-server.ts) on a seeded database: requests per
 * second of the signed policy read, and no-change chef-client runs per second.
 */
async function chefPaths(dbUrl: string, port: number, seconds: number) {
  const app = await startChef(dbUrl, port);
  try {
    const read = await policyRead(app);
    const { sequence } = await chefClientRun(app);
    await throughput(`${app.url}${read.path}`, 2, read.headers); // warm-up
    const r = await throughput(`${app.url}${read.path}`, seconds, read.headers);
    if (r.non2xx) throw new Error(`signed read answered ${r.non2xx} non-2xx responses`);
    await runSequence(app.url, sequence, 2); // warm-up
    const runs = await runSequence(app.url, sequence, seconds);
    if (runs.non2xx) throw new Error(`chef-client sequence answered ${runs.non2xx} non-2xx responses`);
    return { rps: r.rps, latencyMs: r.latencyMs, bytes: read.body.length, runs };
  } finally {
    app.stop();
  }
}

export default async function bench(seconds: number): Promise<BenchResult[]> {
  const dir = path.join(ROOT, 'data', 'bench');
  fs.mkdirSync(dir, { recursive: true });
  const sqlite = (name: string) => {
    const file = path.join(dir, `${name}.db`);
    for (const f of [file, `${file}-journal`, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
    return `file:${file}`;
  };
  let pg: PgServer | null = null;
  try {
    pg = await startPgServer();
    const boardSqlite = await boardMs(sqlite('pg-compare-board'));
    const boardPg = await boardMs(await createDatabase(pg, 'bench_board'));
    const readSqlite = await chefPaths(sqlite('pg-compare-chef'), 3240, seconds);
    const readPg = await chefPaths(await createDatabase(pg, 'bench_chef'), 3241, seconds);
    const readRatio = readPg.rps / readSqlite.rps;
    const runRatio = readPg.runs.runsPerSecond / readSqlite.runs.runsPerSecond;
    return [
      {
        name: 'stage board load, 300 policies x 6 stages, PostgreSQL',
        ours_ms: round(boardPg.ms),
        baseline: 'the same board on SQLite, same run',
        baseline_ms: round(boardSqlite.ms),
        ratio: round(boardPg.ms / boardSqlite.ms),
        goal: 'report only',
        met: true,
        note: `${boardPg.queries} SQL statements on PostgreSQL, ${boardSqlite.queries} on SQLite`,
      },
      {
        name: 'signed policy read GET /organizations/:org/policy_groups/:g/policies/:p, protocol 1.1, PostgreSQL (32 connections)',
        ours_ms: round(readPg.latencyMs),
        baseline: 'the same read on SQLite, same run',
        baseline_ms: round(readSqlite.latencyMs),
        ratio: round(readRatio),
        goal: 'report only (share of SQLite req/s)',
        met: true,
        note: `${Math.round(readPg.rps)} vs ${Math.round(readSqlite.rps)} req/s over ${seconds}s; ms columns are mean latency; body ${readPg.bytes} bytes`,
      },
      {
        name: 'no-change chef-client run: node GET, policy GET, node PUT, all signed, PostgreSQL (8 nodes at once)',
        ours_ms: round(readPg.runs.msPerRun),
        baseline: 'the same runs on SQLite, same run',
        baseline_ms: round(readSqlite.runs.msPerRun),
        ratio: round(runRatio),
        goal: '>= 0.5 of SQLite runs/s',
        met: runRatio >= 0.5,
        note: `${Math.round(readPg.runs.runsPerSecond)} vs ${Math.round(readSqlite.runs.runsPerSecond)} runs/s over ${seconds}s; ms columns are the mean time of one run`,
      },
    ];
  } finally {
    await pg?.stop();
  }
}
