import { beforeAll, describe, expect, it } from 'vitest';
import { createDb, db, installDb } from '@/lib/db/client';
import { databaseUrl } from '@/lib/db/url';
import { loadBoard } from '@/lib/db/queries/board';
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
  return { board, statements };
}

describe('stage board', () => {
  it('costs the same number of SQL statements at 13 policies as at 60', async () => {
    const small = await count('viewer@example.com');
    expect(small.board.policies.length).toBe(13);
    await populate(db(), 47, 2, 1);
    const large = await count('admin@example.com');
    expect(large.board.policies.length).toBe(60);
    expect(large.statements).toBe(small.statements);
  });

  it('shows only the stages the viewer may view', async () => {
    const { board } = await count('viewer@example.com');
    expect(board.stages.map((s) => s.name)).toEqual(['dev', 'qa', 'staging', 'production']);
    expect(board.stages.every((s) => !s.canPromote)).toBe(true);
  });
});
