/**
 * Group commit (issue 26, data collector ingest): writes that arrive together
 * (in the same turn of the event loop, or while the previous batch is being
 * written) are handed to `write` as one batch — one transaction — and each
 * caller's promise settles only after that batch is committed, with its own
 * outcome. At most one batch is in flight per queue, so a burst of N
 * messages costs a few transactions, not N.
 *
 * When a whole batch fails (the database refused the transaction), its items
 * are written again one by one, so an item that cannot be written fails alone
 * and the others still commit (each at most once: a failed transaction
 * changed nothing) — unless `split` says the failure is not the items' (the
 * database busy or unreachable: every item gets that error at once, rather
 * than each waiting for it again).
 */
export interface GroupCommit<I, R> {
  (item: I): Promise<R>;
}

export function groupCommit<I, R>(write: (batch: I[]) => Promise<R[]>, opts: { maxBatch?: number; split?: (e: unknown) => boolean } = {}): GroupCommit<I, R> {
  const maxBatch = opts.maxBatch ?? 256;
  const split = opts.split ?? (() => true);
  type Entry = { item: I; resolve: (r: R) => void; reject: (e: unknown) => void };
  let queue: Entry[] = [];
  let flushing = false;

  const settle = async (batch: Entry[]) => {
    try {
      const out = await write(batch.map((e) => e.item));
      batch.forEach((e, i) => e.resolve(out[i]));
    } catch (err) {
      if (batch.length === 1 || !split(err)) return batch.forEach((e) => e.reject(err));
      for (const e of batch) {
        try {
          e.resolve((await write([e.item]))[0]);
        } catch (one) {
          e.reject(one);
        }
      }
    }
  };

  const flush = async () => {
    flushing = true;
    try {
      while (queue.length) {
        const batch = queue.slice(0, maxBatch);
        queue = queue.slice(batch.length);
        await settle(batch);
      }
    } finally {
      flushing = false;
    }
  };

  return (item: I) =>
    new Promise<R>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      // After the requests already read in this turn of the event loop have joined (setImmediate runs after I/O callbacks).
      if (!flushing && queue.length === 1) setImmediate(() => void (flushing || flush()));
    });
}
