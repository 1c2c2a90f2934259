/**
 * The database file store (FILE_STORE=db, the default): each file's bytes in
 * a CookbookFile row. A row is written only after the whole body was read and
 * verified, so nothing refused is ever in the table; the database holds the
 * file in memory once while writing it (a bytes column is written whole).
 */
import type { Readable } from 'node:stream';
import { db } from '@/lib/db/client';
import { countFileStoreBytes } from '@/lib/ops/metrics';
import { counted, type FileStore, type PutOptions } from './file-store';

async function readAll(body: Readable, signal?: AbortSignal): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) {
    signal?.throwIfAborted();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export function databaseStore(): FileStore {
  return {
    kind: 'db',
    put: (checksum: string, body: Readable | Buffer, opts: PutOptions) =>
      counted('db', 'put', async () => {
        const bytes = Buffer.isBuffer(body) ? body : await readAll(body, opts.signal);
        await opts.verify();
        opts.signal?.throwIfAborted();
        // Content-addressed: a row already there holds the same bytes.
        await (opts.tx ?? db()).cookbookFile.upsert({ where: { checksum }, create: { checksum, size: bytes.length, content: new Uint8Array(bytes) }, update: {} });
        countFileStoreBytes('db', 'in', bytes.length);
      }),
    get: (checksum: string) =>
      counted('db', 'get', async () => {
        const row = await db().cookbookFile.findUnique({ where: { checksum }, select: { content: true } });
        if (!row) return null;
        const body = Buffer.from(row.content);
        countFileStoreBytes('db', 'out', body.length);
        return { size: body.length, body };
      }),
    delete: (checksum, tx) =>
      counted('db', 'delete', async () => {
        await (tx ?? db()).cookbookFile.deleteMany({ where: { checksum } });
      }),
    presign: async () => null,
    ping: () =>
      counted('db', 'ping', async () => {
        await db().$queryRaw`SELECT 1`;
      }),
    list: async function* () {
      let cursor = '';
      for (;;) {
        const rows = await counted('db', 'list', () => db().cookbookFile.findMany({ where: { checksum: { gt: cursor } }, orderBy: { checksum: 'asc' }, take: 500, select: { checksum: true } }));
        if (!rows.length) return;
        cursor = rows[rows.length - 1].checksum;
        yield rows.map((r) => r.checksum);
      }
    },
    sweepStaging: async () => 0,
  };
}
