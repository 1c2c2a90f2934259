import { describe, expect, it } from 'vitest';
import { groupCommit } from './group-commit';

describe('groupCommit', () => {
  it('writes the items that arrive together as one batch, and each caller gets its own outcome', async () => {
    const batches: number[][] = [];
    const write = groupCommit(async (batch: number[]) => {
      batches.push(batch);
      return batch.map((n) => n * 10);
    });
    expect(await Promise.all([1, 2, 3].map((n) => write(n)))).toEqual([10, 20, 30]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('items that arrive while a batch is being written form the next batch (one batch in flight)', async () => {
    const batches: number[][] = [];
    let inFlight = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const write = groupCommit(async (batch: number[]) => {
      inFlight++;
      expect(inFlight).toBe(1);
      batches.push(batch);
      if (batches.length === 1) await gate;
      inFlight--;
      return batch;
    });
    const first = write(1);
    await new Promise((r) => setImmediate(r)); // the first batch has started
    const later = [write(2), write(3)];
    release();
    expect(await Promise.all([first, ...later])).toEqual([1, 2, 3]);
    expect(batches).toEqual([[1], [2, 3]]);
  });

  it('a failed batch is written again item by item, so a bad item fails alone', async () => {
    const batches: string[][] = [];
    const write = groupCommit(async (batch: string[]) => {
      batches.push(batch);
      if (batch.includes('bad')) throw new Error('refused');
      return batch;
    });
    const out = await Promise.allSettled(['a', 'bad', 'b'].map((x) => write(x)));
    expect(out.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(batches).toEqual([['a', 'bad', 'b'], ['a'], ['bad'], ['b']]);
  });

  it('a failure that is not the items’ (split says no) fails the whole batch at once', async () => {
    let calls = 0;
    const write = groupCommit(
      async () => {
        calls++;
        throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
      },
      { split: () => false },
    );
    const out = await Promise.allSettled(['a', 'b'].map((x) => write(x)));
    expect(out.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toBe(1);
  });
});
