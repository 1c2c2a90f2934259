/**
 * Reading cookbook files (issue 46): each from the store its StoredFile row names (lib/services/cookbooks/files.ts
 * writes them). Data access only, so the queries behind the artifact pages and the services share it.
 */
import type { Readable } from 'node:stream';
import { db } from '../client';
import { log } from '@/lib/ops/log';
import { FileStoreConfigError, type FileStore, type StoredObject } from './file-store';
import { databaseStore } from './file-store-db';
import { s3Store } from './file-store-s3';

const MD5 = /^[0-9a-f]{32}$/;

/** The store of a kind. */
export function storeFor(kind: string): FileStore {
  if (kind === 'db') return databaseStore();
  if (kind === 's3') return s3Store();
  throw new FileStoreConfigError(`unknown file store '${kind}'`);
}

/** A stored file's bytes, from the store its row names; null when there is no such stored file. */
export async function openFile(checksum: string): Promise<StoredObject | null> {
  if (!MD5.test(checksum)) return null;
  let last: string | null = null;
  for (let attempt = 0; attempt < 3; attempt++) {
    const row = await db().storedFile.findUnique({ where: { checksum }, select: { state: true, store: true, version: true } });
    if (!row || row.state !== 'stored') return null;
    const found = await storeFor(row.store).get(checksum);
    if (found) return found;
    // Moved to the other store meanwhile (npm run files:migrate)? Read the row again.
    last = row.store;
    const again = await db().storedFile.findUnique({ where: { checksum }, select: { version: true } });
    if (!again || again.version === row.version) break;
  }
  log('error', 'file store: a stored file is missing from its store', { checksum, store: last });
  return null;
}

/** A stored file's whole bytes (exports, the artifact pages' small text files); null when there is none. */
export async function readFile(checksum: string): Promise<Buffer | null> {
  const obj = await openFile(checksum);
  if (!obj) return null;
  if (Buffer.isBuffer(obj.body)) return obj.body;
  const chunks: Buffer[] = [];
  for await (const c of obj.body as Readable) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Sizes of the files held (stored), by checksum. */
export async function fileSizes(checksums: string[]): Promise<Map<string, number>> {
  if (!checksums.length) return new Map();
  const rows = await db().storedFile.findMany({ where: { checksum: { in: checksums }, state: 'stored' }, select: { checksum: true, size: true } });
  return new Map(rows.map((r) => [r.checksum, r.size]));
}
