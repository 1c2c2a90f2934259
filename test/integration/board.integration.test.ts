import { beforeAll, describe, expect, it } from 'vitest';
import { createDb, db, installDb } from '@/lib/db/client';
import { databaseUrl } from '@/lib/db/url';
import { loadBoard } from '@/lib/db/queries/board';
import { rolloutHealth } from '@/lib/services/runs';
import { accessFor, seed } from '@/test/helpers';
import { populate } from '@/bench/lib/populate';

let statements = 0;

beforeAll(async () => {
  await db().$disconnect();
  installDb(createDb(databaseUrl(), { onQuery: () => statements++ }));
  await seed();
});

async function count(email: string) {
  const access = await accessFor(email);
  statements = 0;
  const board = await loadBoard(access);
  const boardStatements = statements;
  statements = 0;
  const health = await rolloutHealth(access);
  return { board, statements: boardStatements, health, healthStatements: statements };
}

describe('stage board', () => {
  // The board page reads the board and the rollout health. 13 → 213 policies: from a few dozen pointers and nodes to
  // more than a thousand of each (past the size at which Prisma splits a relation's IN list into more statements).
  it('costs the same number of SQL statements at 13 policies as at 213, with more than a thousand pointers and nodes', async () => {
    const small = await count('viewer@example.com');
    expect(small.board.policies.length).toBe(13);
    await populate(db(), 200, 6, 1);
    const large = await count('admin@example.com');
    expect(large.board.policies.length).toBe(213);
    expect(Object.keys(large.health).length).toBeGreaterThan(1200);
    expect(await db().node.count()).toBeGreaterThan(1200);
    expect(large.statements).toBe(small.statements);
    expect(large.healthStatements).toBe(small.healthStatements);
  });

  it('shows only the stages the viewer may view', async () => {
    const { board } = await count('viewer@example.com');
    expect(board.stages.map((s) => s.name)).toEqual(['dev', 'qa', 'staging', 'production']);
    expect(board.stages.every((s) => !s.canPromote)).toBe(true);
  });
});
