import fs from 'node:fs';
import path from 'node:path';
import { createDb, installDb } from '@/lib/db/client';
import { applyMigrations } from '@/lib/db/migrate';
import { loadAccess } from '@/lib/db/queries/access';
import { loadBoard } from '@/lib/db/queries/board';
import { round, type BenchResult } from './lib/harness';
import { populate } from './lib/populate';

async function measure(policies: number, stages: number) {
  const file = path.resolve(`data/bench/board-${policies}.db`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.rmSync(file, { force: true });
  const url = `file:${file}`;
  await applyMigrations(url);
  let queries = 0;
  const client = createDb(url, { onQuery: () => queries++ });
  installDb(client, url);
  process.env.DATABASE_URL = url;
  const { userId } = await populate(client, policies, stages);
  const access = (await loadAccess(userId))!;
  for (let i = 0; i < 3; i++) await loadBoard(access);
  const samples: number[] = [];
  let perCall = 0;
  for (let i = 0; i < 9; i++) {
    queries = 0;
    const t = performance.now();
    const board = await loadBoard(access);
    samples.push(performance.now() - t);
    perCall = queries;
    if (board.policies.length !== policies) throw new Error('board lost policies');
  }
  await client.$disconnect();
  samples.sort((a, b) => a - b);
  return { ms: samples[4], queries: perCall };
}

/** Board server time at 300 policies × 6 stages against 25 policies × 6 stages, and the SQL statement count of each. */
export default async function bench(): Promise<BenchResult[]> {
  const small = await measure(25, 6);
  const large = await measure(300, 6);
  const ratio = large.ms / small.ms;
  return [
    {
      name: 'stage board load, 300 policies x 6 stages',
      ours_ms: round(large.ms),
      baseline: 'same board, 25 policies x 6 stages',
      baseline_ms: round(small.ms),
      ratio: round(ratio),
      goal: '<= 12x, constant query count',
      met: ratio <= 12 && large.queries === small.queries,
      note: `${large.queries} SQL statements at 300 policies, ${small.queries} at 25`,
    },
  ];
}
