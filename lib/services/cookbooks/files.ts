/**
 * The cookbook files the console holds (issue 46): one StoredFile row per
 * file (content-addressed by MD5), whatever store keeps its bytes
 * (file-store.ts). The row, not the store, says whether a file exists; the
 * store is only asked for bytes a row vouches for.
 *
 *   (none) ─upload claims─▶ pending ─verified and stored─▶ stored ◀─a new reference─┐
 *                              │                             │                       │
 *                              │ stale: no heartbeat         │ its last reference    │
 *                              │ for the grace period        ▼ went away             │
 *                              │                           orphan ───────────────────┘
 *                              ▼                             │ grace period passed
 *                           deleting ◀───────────────────────┘
 *                              │ the object deleted, then the row
 *                              ▼
 *                            (none)
 *
 * Every move is one conditional UPDATE: on the row's `version` (bumped by
 * every update) and, where a row may have been collected and made again, on
 * its generation (`createdAt`). On PostgreSQL two instances updating one row
 * queue on its row lock and the second re-reads the condition, so exactly one
 * wins; SQLite runs one writer at a time. What this keeps true:
 *
 * 1. A row `stored` or `orphan` has its bytes in its store. An upload marks
 *    its row stored only after the store holds the verified bytes; bytes are
 *    deleted only under a `deleting` row, which nothing moves back: uploads of
 *    that file wait until the row is gone, and then make a new generation.
 * 2. A manifest (an artifact) or an open sandbox names only files whose row
 *    is `stored`: creating either claims its files (`claimFiles`: stored or
 *    orphan → stored, version + 1) in the same transaction, and a file that
 *    could not be claimed is reported not uploaded.
 * 3. A referenced file is never collected. A reference going away
 *    (`releaseFiles`: an artifact deleted, a sandbox expired) reads the
 *    versions first, then looks for other references, then marks the
 *    unreferenced ones orphan only if their version is unchanged: a reference
 *    made meanwhile by another instance claimed the row (version + 1), or,
 *    still uncommitted, holds its row lock until it commits, so the orphan
 *    update fails. The collector moves only an orphan (or a stale pending
 *    upload) older than the grace period to `deleting`, again on its version:
 *    a claim that came first changed the version; a claim that comes after
 *    finds `deleting` and reports the file not uploaded (the client uploads
 *    it again).
 * 4. An upload in flight is never collected: it renews its claim every
 *    HEARTBEAT_MS, far inside GRACE_MS; if its claim is lost anyway (the
 *    process stalled past the grace period) the upload is aborted and fails.
 * 5. A failed or interrupted upload leaves no `stored` row: the S3 store
 *    writes a staging object and copies it to its name only once verified
 *    (file-store-s3.ts); the database store writes the row only once
 *    verified; the pending row is removed (or, if another upload of the same
 *    file shares it, left to that one or to the collector).
 */
import { createHash } from 'node:crypto';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { finished } from 'node:stream/promises';
import { db, type Tx } from '@/lib/db/client';
import { AppError, badRequest, isAppError } from '@/lib/errors';
import { log } from '@/lib/ops/log';
import { maxDocumentBytes } from '@/lib/validation/limits';
import { isUniqueViolation } from '@/lib/services/funnel';
import { configuredStoreKind, directDownloads, type FileStore, type StoreKind } from '@/lib/db/file-store/file-store';
import { storeFor } from '@/lib/db/file-store/stored-files';

/** How long an orphan (or a pending upload that stopped renewing its claim) is kept before it is collected. */
export const GRACE_MS = 60 * 60 * 1000;
/** How often an upload in flight renews its claim. */
export const HEARTBEAT_MS = 30 * 1000;
/** A `deleting` row older than this was left by a collector that stopped: another may finish it (store deletes time out at 60 s). */
export const DELETE_TAKEOVER_MS = 5 * 60 * 1000;
/** How long an upload waits for a collector deleting the same file to finish, before answering 503. */
const WAIT_FOR_DELETE_MS = 10_000;
/** How long a failed upload waits for the rest of its body before answering (BodyCheck.settle). */
const SETTLE_MS = 2_000;

export type FileState = 'pending' | 'stored' | 'orphan' | 'deleting';

/** The store new files go to (FILE_STORE). */
export function currentStore(): FileStore {
  return storeFor(configuredStoreKind());
}

const MD5 = /^[0-9a-f]{32}$/;

const tooLarge = (limit: number) => new AppError('too_large', `Request body is larger than ${limit} bytes (MAX_BODY_BYTES)`, [{ path: '', message: `larger than ${limit} bytes` }]);
const mismatch = (hex: string, checksum: string) => badRequest(`Uploaded content has MD5 ${hex}, not ${checksum}`, [{ path: '', message: 'content does not match its checksum' }]);
const contentMd5Mismatch = () => badRequest('Content-MD5 does not match the uploaded content', [{ path: '', message: 'Content-MD5 mismatch' }]);

/** MD5 and length of what passes through, refusing more than `limit` bytes. */
class Hasher extends Transform {
  private readonly md5 = createHash('md5');
  bytes = 0;
  digest: Buffer | null = null;
  constructor(private readonly limit: number) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback) {
    this.bytes += chunk.length;
    if (this.bytes > this.limit) return cb(tooLarge(this.limit));
    this.md5.update(chunk);
    cb(null, chunk);
  }
  override _flush(cb: TransformCallback) {
    this.digest = this.md5.digest();
    cb();
  }
}

/** Checks one body against its checksum (and Content-MD5 and length, when given) as it is read. */
class BodyCheck {
  private hasher: Hasher | null = null;
  private digest: Buffer | null = null;
  private length = 0;
  constructor(
    private readonly checksum: string,
    private readonly contentMd5: string | null | undefined,
    private readonly size: number | null,
    private readonly limit: number,
  ) {}

  /** What the store reads: the body, hashed on the way. */
  feed(body: Readable | Buffer): Readable | Buffer {
    if (Buffer.isBuffer(body)) {
      if (body.length > this.limit) throw tooLarge(this.limit);
      this.digest = createHash('md5').update(body).digest();
      this.length = body.length;
      return body;
    }
    const h = new Hasher(this.limit);
    this.hasher = h;
    // A listener for the hasher's whole life: its failure is recorded, never an uncaught 'error' (the store may
    // attach its own only later, or not at all once it gave up).
    h.on('error', (e) => this.fail(e));
    // A source that failed already (a small body arrives whole, and its signature's hash is checked at its end,
    // possibly before the upload got here): the hasher fails at once.
    if (body.errored) {
      this.fail(body.errored);
      h.destroy(body.errored);
      return h;
    }
    // A failed source (the client went away, a signature's body hash did not match) fails the hasher, and so the store's read.
    body.on('error', (e) => {
      this.fail(e);
      h.destroy(e);
    });
    body.pipe(h);
    return h;
  }

  /** Why the body could not be read, if it could not (the first error of the source or the hasher). */
  failure: unknown = null;
  /** Called once with that error (the upload aborts the store's write: a store reading a failed stream may wait for more). */
  onFailure: (e: unknown) => void = () => undefined;
  private fail(e: unknown) {
    if (this.failure !== null) return;
    this.failure = e;
    this.onFailure(e);
  }

  /**
   * After the store gave up on a streamed body (its connection cut, say): reads the rest of the body (for at most
   * SETTLE_MS) so that a failure of the body itself, which may arrive only at its end (a body its signature does
   * not cover), is recorded in `failure` before the upload decides what to answer.
   */
  async settle(body: Readable | Buffer): Promise<void> {
    if (Buffer.isBuffer(body) || this.failure !== null) return;
    if (!body.errored && !body.destroyed) {
      const h = this.hasher;
      if (h && !h.destroyed) h.resume();
      else body.resume();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([finished(body).catch(() => undefined), new Promise((r) => (timer = setTimeout(r, SETTLE_MS)))]);
      clearTimeout(timer);
    }
    if (this.failure === null && body.errored) this.fail(body.errored);
  }

  /** Throws unless the whole body was read and is the file it claims to be. */
  async verify(): Promise<void> {
    const h = this.hasher;
    if (h) {
      // The store read every byte it was sent; the end of the stream (and its errors) may still be on the way.
      if (!h.readableEnded) h.resume();
      await finished(h);
      this.digest = h.digest;
      this.length = h.bytes;
    }
    if (!this.digest) throw new Error('the upload ended before its body did');
    const hex = this.digest.toString('hex');
    if (hex !== this.checksum) throw mismatch(hex, this.checksum);
    if (this.contentMd5 && this.contentMd5.trim() !== this.digest.toString('base64')) throw contentMd5Mismatch();
    if (this.size !== null && this.length !== this.size) throw new Error(`the upload sent ${this.length} bytes, not the ${this.size} it announced`);
  }

  /** Reads the body to its end and checks it (a file already held: nothing is stored). */
  async drain(body: Readable | Buffer): Promise<void> {
    const fed = this.feed(body);
    if (!Buffer.isBuffer(fed)) fed.resume();
    await this.verify();
  }

  get bytes(): number {
    return this.length;
  }
}

type Claim = { kind: 'present' } | { kind: 'upload'; generation: Date; version: number };

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The upload's claim on `checksum`: `present` when the file is held already (claimed as referenced again), else a
 * pending row (made, or shared with another upload of the same file in flight).
 */
async function claimUpload(checksum: string, size: number, kind: StoreKind): Promise<Claim> {
  const deadline = Date.now() + WAIT_FOR_DELETE_MS;
  for (;;) {
    const now = new Date();
    const row = await db().storedFile.findUnique({ where: { checksum }, select: { state: true, version: true, createdAt: true, touchedAt: true, store: true } });
    if (!row) {
      try {
        await db().storedFile.create({ data: { checksum, size, store: kind, state: 'pending', version: 0, touchedAt: now, createdAt: now } });
        return { kind: 'upload', generation: now, version: 0 };
      } catch (e) {
        if (isUniqueViolation(e)) continue; // another instance made it first: look again
        throw e;
      }
    }
    const same = { checksum, version: row.version, createdAt: row.createdAt };
    if (row.state === 'stored' || row.state === 'orphan') {
      const { count } = await db().storedFile.updateMany({ where: { ...same, state: row.state }, data: { state: 'stored', touchedAt: now, version: row.version + 1 } });
      if (count) return { kind: 'present' };
      continue;
    }
    if (row.state === 'pending') {
      const { count } = await db().storedFile.updateMany({ where: { ...same, state: 'pending' }, data: { touchedAt: now, version: row.version + 1 } });
      if (count) return { kind: 'upload', generation: row.createdAt, version: row.version + 1 };
      continue;
    }
    // `deleting`: a collector is removing this file. Finish a deletion that was abandoned; otherwise wait for it.
    if (row.touchedAt.getTime() < now.getTime() - DELETE_TAKEOVER_MS) {
      await finishDeletion(checksum, row, now);
      continue;
    }
    if (Date.now() > deadline) throw new AppError('unavailable', `The file ${checksum} is being removed from the file store; upload it again in a moment.`);
    await delay(100);
  }
}

/** Renews an upload's claim every HEARTBEAT_MS; `lost` fires when the row was collected meanwhile. */
function keepClaim(checksum: string, claim: Extract<Claim, { kind: 'upload' }>, lost: () => void): { stop(): void; version(): number } {
  let version = claim.version;
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    (async () => {
      const { count } = await db().storedFile.updateMany({ where: { checksum, createdAt: claim.generation, version, state: 'pending' }, data: { touchedAt: new Date(), version: version + 1 } });
      if (count) {
        version += 1;
        return;
      }
      const row = await db().storedFile.findUnique({ where: { checksum }, select: { state: true, version: true, createdAt: true } });
      if (!row || row.createdAt.getTime() !== claim.generation.getTime() || row.state === 'deleting') lost();
      else if (row.state === 'pending') version = row.version; // another upload of the same file renewed it: renew from there
    })()
      .catch((e) => log('warn', 'file upload: renewing the claim failed', { checksum, error: (e as Error).message }))
      .finally(() => (busy = false));
  }, HEARTBEAT_MS);
  timer.unref();
  return { stop: () => clearInterval(timer), version: () => version };
}

/**
 * Stores one cookbook file from an upload (a sandbox PUT, the importer): its bytes are streamed to the
 * configured store and checked against `checksum` (MD5; and `contentMd5`, base64, when given) before the
 * file can be named by anything. `size`: the bytes announced (Content-Length), null when unknown.
 * 'present' when the file was held already (the body is still read and checked).
 */
export async function storeFile(checksum: string, body: Readable | Buffer, opts: { size?: number | null; contentMd5?: string | null } = {}): Promise<'stored' | 'present'> {
  if (!MD5.test(checksum)) throw badRequest(`Invalid checksum '${checksum}'`, [{ path: '/checksum', message: 'not an MD5 hex digest' }]);
  const limit = maxDocumentBytes();
  const size = Buffer.isBuffer(body) ? body.length : (opts.size ?? null);
  if (size !== null && size > limit) throw tooLarge(limit);
  const store = currentStore();
  const check = new BodyCheck(checksum, opts.contentMd5, size, limit);
  const claim = await claimUpload(checksum, size ?? 0, store.kind);
  if (claim.kind === 'present') {
    await check.drain(body);
    return 'present';
  }
  const abort = new AbortController();
  check.onFailure = (e) => abort.abort(e);
  const renewal = keepClaim(checksum, claim, () => abort.abort(new AppError('unavailable', `The upload of ${checksum} took longer than the file store keeps an unfinished upload; upload it again.`)));
  try {
    try {
      await store.put(checksum, check.feed(body), { size, verify: () => check.verify(), signal: abort.signal });
    } catch (e) {
      if (isAppError(e)) throw e;
      // The store may fail (s3rver cut the connection) before the body's own failure arrived: let the body settle first.
      await check.settle(body);
      if (isAppError(check.failure)) throw check.failure;
      if (abort.signal.aborted) throw abort.signal.reason;
      // A store that checks Content-MD5 refuses a wrong body itself: say so as the console would.
      if ((e as { name?: string }).name === 'BadDigest' || (e as { name?: string }).name === 'InvalidDigest') {
        const refused = await check.verify().then(
          () => null,
          (v: unknown) => v,
        );
        throw isAppError(refused) ? refused : badRequest(`Uploaded content does not have the MD5 ${checksum}`, [{ path: '', message: 'content does not match its checksum' }]);
      }
      log('error', 'file store: storing a file failed', { store: store.kind, checksum, error: (e as Error).message });
      throw new AppError('unavailable', `The file store (${store.kind}) did not take the file ${checksum}; upload it again.`);
    }
    renewal.stop();
    const done = await db().storedFile.updateMany({ where: { checksum, createdAt: claim.generation, state: 'pending' }, data: { state: 'stored', store: store.kind, size: check.bytes, touchedAt: new Date(), version: { increment: 1 } } });
    if (!done.count) {
      const row = await db().storedFile.findUnique({ where: { checksum }, select: { state: true, createdAt: true } });
      // Another upload of the same file finished first: it is stored.
      if (!(row && row.createdAt.getTime() === claim.generation.getTime() && (row.state === 'stored' || row.state === 'orphan'))) {
        throw new AppError('unavailable', `The upload of ${checksum} was collected before it finished; upload it again.`);
      }
    }
    return 'stored';
  } catch (e) {
    renewal.stop();
    // Nothing names a pending row; remove ours unless another upload of the same file shares it (it finishes, or the collector removes it).
    await db()
      .storedFile.deleteMany({ where: { checksum, createdAt: claim.generation, version: renewal.version(), state: 'pending' } })
      .catch(() => undefined);
    throw e;
  }
}

/**
 * Stores a file within `tx` (the demo seed): its bytes into the configured store, its row stored. The seed's
 * transaction is the only writer of these files (they are new).
 */
export async function storeFileInTransaction(tx: Tx, checksum: string, bytes: Buffer, now = new Date()): Promise<void> {
  const store = currentStore();
  const check = new BodyCheck(checksum, null, bytes.length, Infinity);
  await store.put(checksum, check.feed(bytes), { size: bytes.length, verify: () => check.verify(), tx });
  await tx.storedFile.upsert({ where: { checksum }, create: { checksum, size: bytes.length, store: store.kind, state: 'stored', touchedAt: now, createdAt: now }, update: { state: 'stored', store: store.kind, touchedAt: now, version: { increment: 1 } } });
}

/**
 * Claims `checksums` for a reference made in `tx` (a sandbox, a sandbox's commit, an artifact): the files held
 * (stored, or orphan and revived) are returned; any other is not uploaded (pending, being collected, unknown).
 */
export async function claimFiles(tx: Tx, checksums: string[], now = new Date()): Promise<Set<string>> {
  const sums = [...new Set(checksums)];
  if (!sums.length) return new Set();
  const rows = await tx.storedFile.updateManyAndReturn({ where: { checksum: { in: sums }, state: { in: ['stored', 'orphan'] } }, data: { state: 'stored', touchedAt: now, version: { increment: 1 } }, select: { checksum: true } });
  return new Set(rows.map((r) => r.checksum));
}

/**
 * True when an artifact's manifest or an open sandbox (live, not committed: its uploads may be in flight) names the
 * file. A committed sandbox does not hold its files: the artifact PUT that follows it claims them (an orphan too).
 */
async function referenced(tx: Tx, checksum: string, now: Date): Promise<boolean> {
  const artifact = await tx.cookbookArtifact.findFirst({ where: { manifest: { contains: checksum } }, select: { id: true } });
  if (artifact) return true;
  return !!(await tx.sandbox.findFirst({ where: { completed: false, expiresAt: { gte: now }, checksums: { contains: checksum } }, select: { id: true } }));
}

/**
 * After a reference to `checksums` went away in `tx` (an artifact deleted, a sandbox expired): the files nothing
 * else names become orphans, collected after the grace period unless named again. Returns how many.
 */
export async function releaseFiles(tx: Tx, checksums: string[], now = new Date()): Promise<number> {
  const sums = [...new Set(checksums)];
  if (!sums.length) return 0;
  // Versions first, references second: a reference made in between claimed the row, and the update below misses it.
  const rows = await tx.storedFile.findMany({ where: { checksum: { in: sums }, state: 'stored' }, select: { checksum: true, version: true } });
  const orphans: { checksum: string; version: number }[] = [];
  for (const r of rows) if (!(await referenced(tx, r.checksum, now))) orphans.push(r);
  if (!orphans.length) return 0;
  const { count } = await tx.storedFile.updateMany({ where: { state: 'stored', OR: orphans.map((o) => ({ checksum: o.checksum, version: o.version })) }, data: { state: 'orphan', touchedAt: now, version: { increment: 1 } } });
  return count;
}

type DeletingRow = { store: string; version: number; createdAt: Date };

/** Deletes a `deleting` row's bytes, then the row (unless another collector took it over meanwhile). */
async function finishDeletion(checksum: string, row: DeletingRow & { touchedAt?: Date }, now: Date): Promise<boolean> {
  const claimed = await db().storedFile.updateMany({
    where: { checksum, createdAt: row.createdAt, version: row.version, state: 'deleting', touchedAt: { lt: new Date(now.getTime() - DELETE_TAKEOVER_MS) } },
    data: { touchedAt: now, version: row.version + 1 },
  });
  if (!claimed.count) return false;
  return deleteClaimed(checksum, { ...row, version: row.version + 1 });
}

async function deleteClaimed(checksum: string, row: DeletingRow): Promise<boolean> {
  await storeFor(row.store).delete(checksum);
  const { count } = await db().storedFile.deleteMany({ where: { checksum, createdAt: row.createdAt, version: row.version, state: 'deleting' } });
  return count === 1;
}

export interface CollectOptions {
  now?: Date;
  /** How long an orphan or an abandoned upload is kept (GRACE_MS). */
  graceMs?: number;
  /** Files looked at in one pass. */
  limit?: number;
}

/**
 * One collection pass: orphans and abandoned uploads older than the grace period are removed from their store and
 * then forgotten; deletions another collector abandoned are finished; S3 staging objects of uploads that died are
 * swept. Safe on any number of instances at once (each file is taken by one conditional update).
 */
export async function collectFiles(opts: CollectOptions = {}): Promise<{ deleted: number; staging: number }> {
  const now = opts.now ?? new Date();
  const cutoff = new Date(now.getTime() - (opts.graceMs ?? GRACE_MS));
  const takeover = new Date(now.getTime() - DELETE_TAKEOVER_MS);
  const rows = await db().storedFile.findMany({
    where: { OR: [{ state: { in: ['orphan', 'pending'] }, touchedAt: { lt: cutoff } }, { state: 'deleting', touchedAt: { lt: takeover } }] },
    orderBy: { touchedAt: 'asc' },
    take: opts.limit ?? 500,
    select: { checksum: true, state: true, store: true, version: true, createdAt: true },
  });
  let deleted = 0;
  for (const row of rows) {
    try {
      if (row.state === 'deleting') {
        if (await finishDeletion(row.checksum, row, now)) deleted++;
        continue;
      }
      const { count } = await db().storedFile.updateMany({
        where: { checksum: row.checksum, createdAt: row.createdAt, version: row.version, state: row.state, touchedAt: { lt: cutoff } },
        data: { state: 'deleting', touchedAt: now, version: row.version + 1 },
      });
      if (count && (await deleteClaimed(row.checksum, { ...row, version: row.version + 1 }))) deleted++;
    } catch (e) {
      // Left `deleting`: finished by a later pass (or an upload of the same file) after DELETE_TAKEOVER_MS.
      log('warn', 'file store: collecting a file failed', { checksum: row.checksum, store: row.store, error: (e as Error).message });
    }
  }
  let staging = 0;
  if (s3InUse()) {
    try {
      staging = await storeFor('s3').sweepStaging(cutoff);
    } catch (e) {
      log('warn', 'file store: sweeping staging uploads failed', { error: (e as Error).message });
    }
  }
  return { deleted, staging };
}

/** True when S3 is configured: new files go there, or S3_BUCKET is set (files may still be there). */
function s3InUse(): boolean {
  try {
    return configuredStoreKind() === 's3' || !!process.env.S3_BUCKET?.trim();
  } catch {
    return false;
  }
}

/**
 * S3_DIRECT_DOWNLOADS: pre-signed URLs of the bucket for the files of `checksums` kept in S3, valid until
 * `expiresAt` (Unix seconds: the console's own file URLs' expiry). Files in the database are not in the map
 * (the console serves them).
 */
export async function directFileUrls(checksums: string[], expiresAt: number, now = new Date()): Promise<Map<string, string>> {
  if (!checksums.length || !directDownloads()) return new Map();
  const rows = await db().storedFile.findMany({ where: { checksum: { in: [...new Set(checksums)] }, state: 'stored', store: 's3' }, select: { checksum: true } });
  if (!rows.length) return new Map();
  const s3 = storeFor('s3');
  const urls = await Promise.all(rows.map(async (r) => [r.checksum, await s3.presign(r.checksum, expiresAt, now)] as const));
  return new Map(urls.filter((u): u is readonly [string, string] => u[1] !== null));
}

export interface FileStoreReadiness {
  /** Where new files go. */
  store: StoreKind | 'invalid';
  status: 'up' | 'down';
  /** Why not, when down. */
  error?: string;
}

/** /api/ready: whether the configured store (and S3, when files are there) answers. */
export async function fileStoreReadiness(): Promise<FileStoreReadiness> {
  let kind: StoreKind;
  try {
    kind = configuredStoreKind();
  } catch (e) {
    return { store: 'invalid', status: 'down', error: (e as Error).message };
  }
  try {
    // The database's own check covers the database store; S3 is asked whenever it is configured.
    if (kind === 's3' || s3InUse()) await storeFor('s3').ping();
    return { store: kind, status: 'up' };
  } catch (e) {
    const err = e as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
    const what = err.name === 'FileStoreConfigError' ? err.message : `S3 bucket ${process.env.S3_BUCKET} unreachable: ${err.name ?? 'error'}${err.$metadata?.httpStatusCode ? ` (HTTP ${err.$metadata.httpStatusCode})` : ''}${err.message && err.message !== err.name ? `: ${err.message}` : ''}`;
    return { store: kind, status: 'down', error: what };
  }
}

