/**
 * Where cookbook files' bytes live (issue 46): a store holds one object per
 * file, named by the file's MD5 (content-addressed, as Chef names files).
 * Two stores, chosen by FILE_STORE:
 *
 *   db  (default) the CookbookFile table (file-store-db.ts), as before;
 *   s3  any S3-compatible bucket through the AWS SDK v3 (file-store-s3.ts):
 *       S3_BUCKET, S3_PREFIX, S3_ENDPOINT, S3_REGION, S3_FORCE_PATH_STYLE,
 *       credentials from the SDK's chain; S3_DIRECT_DOWNLOADS=true hands
 *       chef-client pre-signed URLs of the bucket itself.
 *
 * A store only keeps bytes. Whether a file exists, and which store has it,
 * is the StoredFile row's to say (lib/services/cookbooks/files.ts): that is what makes uploads,
 * references, collection and migration safe with several instances.
 * FILE_STORE says where new files go; each file is read from the store its
 * row names, so both can be in use while `npm run files:migrate` moves them.
 */
import type { Readable } from 'node:stream';
import type { Tx } from '@/lib/db/client';
import { countFileStore } from '@/lib/ops/metrics';

export type StoreKind = 'db' | 's3';

/** An object as read: its length and its bytes (a stream from S3, a buffer from the database). */
export interface StoredObject {
  size: number;
  body: Readable | Buffer;
}

export interface PutOptions {
  /** The bytes expected (Content-Length); null when unknown (a chunked upload). */
  size: number | null;
  /**
   * Called once the store has read the whole body and before the object can be read under its name:
   * throws to refuse it (a wrong MD5, a short or failed body). Nothing refused is ever visible.
   */
  verify(): Promise<void>;
  /** Aborts the write (the upload's heartbeat lost its claim). */
  signal?: AbortSignal;
  /** The database store writes within this transaction (the demo seed). */
  tx?: Tx;
}

export interface FileStore {
  readonly kind: StoreKind;
  /** Writes the object `checksum` from `body`; resolves once it is stored and verified. */
  put(checksum: string, body: Readable | Buffer, opts: PutOptions): Promise<void>;
  /** The object, or null when the store has none by that name. */
  get(checksum: string): Promise<StoredObject | null>;
  /** Removes the object (nothing to do when there is none). */
  delete(checksum: string, tx?: Tx): Promise<void>;
  /** A URL reading the object without credentials until `expiresAt` (Unix seconds); null when the store has no such URLs (the database). */
  presign(checksum: string, expiresAt: number, now: Date): Promise<string | null>;
  /** Throws when the store does not answer (readiness). */
  ping(): Promise<void>;
  /** The checksums of the objects held, a page at a time (the migration's sweep of leftovers). */
  list(): AsyncIterable<string[]>;
  /** Removes staging objects of uploads that started before `before` and never finished (S3); how many. */
  sweepStaging(before: Date): Promise<number>;
}

/** A configuration mistake: named, so /api/ready and the scripts can say what to fix. */
export class FileStoreConfigError extends Error {
  override name = 'FileStoreConfigError';
}

/** FILE_STORE: where new cookbook files go (`db` unless set). */
export function configuredStoreKind(): StoreKind {
  const v = (process.env.FILE_STORE ?? '').trim().toLowerCase();
  if (!v || v === 'db') return 'db';
  if (v === 's3') return 's3';
  throw new FileStoreConfigError(`FILE_STORE must be 'db' or 's3', not '${process.env.FILE_STORE}'`);
}

export interface S3Settings {
  bucket: string;
  /** Key prefix, '' or ending in '/'. */
  prefix: string;
  endpoint: string | undefined;
  region: string;
  forcePathStyle: boolean;
}

function flag(name: string): boolean {
  const v = (process.env[name] ?? '').trim().toLowerCase();
  if (!v || v === 'false' || v === '0') return false;
  if (v === 'true' || v === '1') return true;
  throw new FileStoreConfigError(`${name} must be 'true' or 'false', not '${process.env[name]}'`);
}

/** S3_* settings; S3_BUCKET is required. S3_REGION defaults to AWS_REGION, then us-east-1 (what most self-hosted stores accept). */
export function s3Settings(): S3Settings {
  const e = process.env;
  const bucket = (e.S3_BUCKET ?? '').trim();
  if (!bucket) throw new FileStoreConfigError('S3_BUCKET is not set: the S3 file store needs a bucket (FILE_STORE=s3, or files already moved to S3)');
  const rawPrefix = (e.S3_PREFIX ?? '').trim().replace(/^\/+/, '');
  const endpoint = (e.S3_ENDPOINT ?? '').trim() || undefined;
  if (endpoint && !/^https?:\/\/[^/\s]+/.test(endpoint)) throw new FileStoreConfigError(`S3_ENDPOINT must be an http(s) URL, not '${endpoint}'`);
  return {
    bucket,
    prefix: rawPrefix && !rawPrefix.endsWith('/') ? `${rawPrefix}/` : rawPrefix,
    endpoint,
    region: (e.S3_REGION ?? '').trim() || (e.AWS_REGION ?? '').trim() || 'us-east-1',
    forcePathStyle: flag('S3_FORCE_PATH_STYLE'),
  };
}

/** S3_DIRECT_DOWNLOADS=true: manifests name files kept in S3 by pre-signed URLs of the bucket (chef-client reads them there). */
export function directDownloads(): boolean {
  return flag('S3_DIRECT_DOWNLOADS');
}

/** `fn`, counted in /metrics as one `operation` of `store` (ok or error). */
export async function counted<T>(store: StoreKind, operation: 'put' | 'get' | 'delete' | 'presign' | 'ping' | 'list', fn: () => Promise<T>): Promise<T> {
  try {
    const out = await fn();
    countFileStore(store, operation, 'ok');
    return out;
  } catch (e) {
    countFileStore(store, operation, 'error');
    throw e;
  }
}
