/**
 * `npm run files:migrate -- --to s3|db [--dry-run]` (issue 46): moves every
 * cookbook file's bytes to one store, while the console keeps serving.
 *
 * Per file (a StoredFile row `stored` or `orphan` in the other store): the
 * bytes are streamed from the source into the target, their MD5 checked on
 * the way (the target refuses other bytes, as an upload's are refused), read
 * back from the target and checked again; then the row is moved to the target
 * by one conditional update (still in the source, not being collected,
 * version + 1, so a reader that read the old row looks again: files.ts
 * openFile), and only then are the source's bytes removed. Each file is done
 * on its own: an interrupted run is resumed by running it again (a file
 * copied but not switched is copied again, content-addressed; bytes left in
 * the source after the switch are removed by the next run's sweep).
 * Uploads go to FILE_STORE: set it to the target first, on every instance.
 */
import { createHash } from 'node:crypto';
import { PassThrough, type Readable } from 'node:stream';
import { db } from '@/lib/db/client';
import { log } from '@/lib/ops/log';
import type { FileStore, StoreKind } from '@/lib/db/file-store/file-store';
import { storeFor } from '@/lib/db/file-store/stored-files';

export interface MigrateOptions {
  to: StoreKind;
  dryRun?: boolean;
  /** Files moved at most (a test stops a run halfway with it). */
  limit?: number;
  /** Files copied at once (default 4). */
  concurrency?: number;
  /** Progress, one line per file or step. */
  onProgress?: (line: string) => void;
}

export interface MigrateReport {
  to: StoreKind;
  dryRun: boolean;
  /** Files (and their bytes) to move (dry run) or moved. */
  moved: number;
  bytes: number;
  /** Files already in the target. */
  already: number;
  /** Files whose bytes were missing or wrong in the source or the target (left where they were, named). */
  failed: { checksum: string; error: string }[];
  /** Leftover bytes in the source of files the target holds, removed. */
  swept: number;
  /** Files still in the other store after this run (uploads that finished there meanwhile, a `limit`). */
  remaining: number;
}

async function md5Of(body: Readable | Buffer): Promise<{ hex: string; bytes: number }> {
  const h = createHash('md5');
  if (Buffer.isBuffer(body)) return { hex: h.update(body).digest('hex'), bytes: body.length };
  let bytes = 0;
  for await (const c of body) {
    h.update(c as Buffer);
    bytes += (c as Buffer).length;
  }
  return { hex: h.digest('hex'), bytes };
}

/** Copies one file from `source` to `target`, checking its MD5 on the way in and reading it back. */
async function copyVerified(checksum: string, size: number, source: FileStore, target: FileStore): Promise<void> {
  const obj = await source.get(checksum);
  if (!obj) throw new Error(`not in the ${source.kind} store`);
  const md5 = createHash('md5');
  let bytes = 0;
  let body: Readable | Buffer = obj.body;
  if (!Buffer.isBuffer(body)) {
    const src = body;
    const tap = new PassThrough();
    src.on('data', (c: Buffer) => {
      md5.update(c);
      bytes += c.length;
    });
    src.once('error', (e) => tap.destroy(e));
    body = src.pipe(tap);
  } else {
    md5.update(body);
    bytes = body.length;
  }
  let sourceHex = '';
  await target.put(checksum, body, {
    size: obj.size,
    verify: async () => {
      sourceHex = md5.digest('hex');
      if (sourceHex !== checksum || bytes !== obj.size) throw new Error(`the ${source.kind} store holds other bytes (MD5 ${sourceHex}, ${bytes} bytes)`);
    },
  });
  const back = await target.get(checksum);
  if (!back) throw new Error(`not readable from the ${target.kind} store after writing it`);
  const check = await md5Of(back.body);
  if (check.hex !== checksum || check.bytes !== size) throw new Error(`the ${target.kind} store gave back other bytes (MD5 ${check.hex}, ${check.bytes} bytes)`);
}

/** Bytes of files the target holds left in the other store by an interrupted run: removed. */
async function sweepLeftovers(from: FileStore, to: StoreKind): Promise<number> {
  let swept = 0;
  for await (const checksums of from.list()) {
    const inTarget = await db().storedFile.findMany({ where: { checksum: { in: checksums }, store: to }, select: { checksum: true } });
    for (const r of inTarget) await from.delete(r.checksum);
    swept += inTarget.length;
  }
  return swept;
}

export async function migrateFiles(opts: MigrateOptions): Promise<MigrateReport> {
  const to = opts.to;
  const from: StoreKind = to === 's3' ? 'db' : 's3';
  const say = opts.onProgress ?? (() => undefined);
  const report: MigrateReport = { to, dryRun: !!opts.dryRun, moved: 0, bytes: 0, already: 0, failed: [], swept: 0, remaining: 0 };
  const target = storeFor(to);
  const source = storeFor(from);
  await target.ping();
  report.already = await db().storedFile.count({ where: { store: to, state: { in: ['stored', 'orphan'] } } });
  let cursor = '';
  const limit = opts.limit ?? Infinity;
  while (report.moved < limit) {
    const rows = await db().storedFile.findMany({
      where: { store: from, state: { in: ['stored', 'orphan'] }, checksum: { gt: cursor } },
      orderBy: { checksum: 'asc' },
      take: 100,
      select: { checksum: true, size: true, createdAt: true },
    });
    if (!rows.length) break;
    cursor = rows[rows.length - 1].checksum;
    const batch = rows.slice(0, Math.max(0, Math.min(rows.length, limit - report.moved)));
    if (opts.dryRun) {
      for (const row of batch) {
        report.moved++;
        report.bytes += row.size;
      }
      continue;
    }
    let next = 0;
    const worker = async () => {
      while (next < batch.length) {
        const row = batch[next++];
        try {
          await copyVerified(row.checksum, row.size, source, target);
          // Moved only if still in the source and not being collected: a reader that read the old row looks again.
          const { count } = await db().storedFile.updateMany({
            where: { checksum: row.checksum, createdAt: row.createdAt, store: from, state: { in: ['stored', 'orphan'] } },
            data: { store: to, version: { increment: 1 } },
          });
          if (!count) {
            say(`${row.checksum}: collected or moved meanwhile; skipped`);
            continue;
          }
          await source.delete(row.checksum).catch((e) => log('warn', 'files:migrate: removing the source bytes failed (the next run removes them)', { checksum: row.checksum, error: (e as Error).message }));
          report.moved++;
          report.bytes += row.size;
          say(`${row.checksum}: ${row.size} bytes moved to ${to}, MD5 verified`);
        } catch (e) {
          report.failed.push({ checksum: row.checksum, error: (e as Error).message });
          say(`${row.checksum}: NOT moved: ${(e as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 4) }, worker));
  }
  if (!opts.dryRun) report.swept = await sweepLeftovers(source, to);
  report.remaining = await db().storedFile.count({ where: { store: from, state: { in: ['stored', 'orphan'] } } });
  return report;
}
