/**
 * The S3 file store (FILE_STORE=s3): any S3-compatible bucket (AWS S3, MinIO,
 * Ceph RGW, SeaweedFS, Garage) through the AWS SDK v3. A file is the object
 * `<S3_PREFIX><md5>`.
 *
 * A body is streamed to a staging object `<S3_PREFIX>uploads/<random>` (with
 * Content-MD5, so a store that checks it refuses a wrong body at once); only
 * once the whole body was read and verified (PutOptions.verify) is it copied
 * to its name, inside the store, and the staging object removed. So the name
 * only ever holds verified bytes, whatever the store does with a PUT cut off
 * halfway or a wrong Content-MD5 (some write in place and check nothing), and
 * two uploads of one file at once only ever copy the same bytes there. A body
 * of unknown length (chunked) goes up in 8 MiB parts (a multipart upload).
 * Staging objects of uploads that died are swept by the collector.
 *
 * The client is process state (lib/process-state.ts), made again when the
 * settings change. Checksums are computed by the SDK only where S3 requires
 * them (`WHEN_REQUIRED`): most self-hosted stores do not take the newer
 * trailing checksums, and the console checks every body's MD5 itself.
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { processBox } from '@/lib/process-state';
import { countFileStoreBytes } from '@/lib/ops/metrics';
import { counted, s3Settings, type FileStore, type PutOptions, type S3Settings } from './file-store';

/** The longest a pre-signed URL of S3 may live (SigV4: 7 days). */
const MAX_PRESIGN_SECONDS = 604_800;
/** Part size of a multipart upload (S3's least is 5 MiB). */
const PART_BYTES = 8 * 1024 * 1024;
/** Pre-signed URLs are signed at the start of a 15-minute window, so one manifest read twice names the same URLs. */
const SIGNING_WINDOW_SECONDS = 900;

const clientSlot = processBox<{ key: string; client: S3Client }>('cookbooks.s3.client');

function clientFor(s: S3Settings): S3Client {
  const key = JSON.stringify(s);
  if (clientSlot.current?.key !== key) {
    clientSlot.current?.client.destroy();
    const client = new S3Client({
      region: s.region,
      endpoint: s.endpoint,
      forcePathStyle: s.forcePathStyle,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // Idle socket limits, not a cap on a long transfer.
      requestHandler: { connectionTimeout: 5_000, requestTimeout: 120_000 },
    });
    clientSlot.current = { key, client };
  }
  return clientSlot.current.client;
}

const copySource = (bucket: string, key: string) => `${encodeURIComponent(bucket)}/${key.split('/').map(encodeURIComponent).join('/')}`;

function isMissing(e: unknown): boolean {
  const err = e as { name?: string; $metadata?: { httpStatusCode?: number } };
  return err.name === 'NoSuchKey' || err.name === 'NotFound' || err.$metadata?.httpStatusCode === 404;
}

async function putMultipart(c: S3Client, bucket: string, key: string, body: Readable, signal?: AbortSignal): Promise<void> {
  const { UploadId } = await c.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }), { abortSignal: signal });
  try {
    const parts: { ETag: string | undefined; PartNumber: number }[] = [];
    let held: Buffer[] = [];
    let length = 0;
    const send = async () => {
      const data = Buffer.concat(held, length);
      held = [];
      length = 0;
      const PartNumber = parts.length + 1;
      const r = await c.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber, Body: data, ContentLength: data.length }), { abortSignal: signal });
      parts.push({ ETag: r.ETag, PartNumber });
    };
    for await (const chunk of body) {
      held.push(chunk as Buffer);
      length += (chunk as Buffer).length;
      if (length >= PART_BYTES) await send();
    }
    if (length || !parts.length) await send();
    await c.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId, MultipartUpload: { Parts: parts } }), { abortSignal: signal });
  } catch (e) {
    await c.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId })).catch(() => undefined);
    throw e;
  }
}

export function s3Store(settings: S3Settings = s3Settings()): FileStore {
  const c = clientFor(settings);
  const { bucket, prefix } = settings;
  const keyOf = (checksum: string) => `${prefix}${checksum}`;
  const stagingPrefix = `${prefix}uploads/`;
  return {
    kind: 's3',
    put: (checksum: string, body: Readable | Buffer, opts: PutOptions) =>
      counted('s3', 'put', async () => {
        const staging = `${stagingPrefix}${randomUUID()}`;
        const md5 = Buffer.from(checksum, 'hex').toString('base64');
        try {
          const size = Buffer.isBuffer(body) ? body.length : opts.size;
          if (size === null) await putMultipart(c, bucket, staging, body as Readable, opts.signal);
          else await c.send(new PutObjectCommand({ Bucket: bucket, Key: staging, Body: body, ContentLength: size, ContentMD5: md5, ContentType: 'application/octet-stream' }), { abortSignal: opts.signal });
          await opts.verify();
          opts.signal?.throwIfAborted();
          const copied = await c.send(new CopyObjectCommand({ Bucket: bucket, Key: keyOf(checksum), CopySource: copySource(bucket, staging) }), { abortSignal: opts.signal });
          const etag = copied.CopyObjectResult?.ETag?.replace(/"/g, '');
          // A single-part object's ETag is its MD5 (unless the bucket encrypts with KMS keys): a store that copied other bytes is caught here.
          if (etag && /^[0-9a-f]{32}$/.test(etag) && etag !== checksum) throw new Error(`the S3 store copied ${staging} to ${keyOf(checksum)} with ETag ${etag}, not the file's MD5`);
          countFileStoreBytes('s3', 'in', size ?? 0);
        } finally {
          await c.send(new DeleteObjectCommand({ Bucket: bucket, Key: staging })).catch(() => undefined);
        }
      }),
    get: (checksum: string) =>
      counted('s3', 'get', async () => {
        try {
          const r = await c.send(new GetObjectCommand({ Bucket: bucket, Key: keyOf(checksum) }));
          const size = Number(r.ContentLength ?? 0);
          countFileStoreBytes('s3', 'out', size);
          return { size, body: r.Body as Readable };
        } catch (e) {
          if (isMissing(e)) return null;
          throw e;
        }
      }),
    delete: (checksum: string) =>
      counted('s3', 'delete', async () => {
        // Bounded well below the collector's takeover time (files.ts), so a late delete never meets a new upload.
        await c.send(new DeleteObjectCommand({ Bucket: bucket, Key: keyOf(checksum) }), { abortSignal: AbortSignal.timeout(60_000) });
      }),
    presign: (checksum: string, expiresAt: number, now: Date) =>
      counted('s3', 'presign', async () => {
        // Signed at the start of the current window and valid until `expiresAt` (the console's own file URLs' expiry).
        const signedAt = Math.floor(now.getTime() / 1000 / SIGNING_WINDOW_SECONDS) * SIGNING_WINDOW_SECONDS;
        const expiresIn = Math.min(MAX_PRESIGN_SECONDS, Math.max(1, expiresAt - signedAt));
        return getSignedUrl(c, new GetObjectCommand({ Bucket: bucket, Key: keyOf(checksum) }), { expiresIn, signingDate: new Date(signedAt * 1000) });
      }),
    ping: () =>
      counted('s3', 'ping', async () => {
        await c.send(new HeadBucketCommand({ Bucket: bucket }), { abortSignal: AbortSignal.timeout(3_000) });
      }),
    list: async function* () {
      let token: string | undefined;
      do {
        const page = await counted('s3', 'list', () => c.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token, MaxKeys: 1000 })));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
        // Files only: `<prefix><md5>` (staging objects are under `<prefix>uploads/`).
        const sums = (page.Contents ?? []).map((o) => (o.Key ?? '').slice(prefix.length)).filter((k) => /^[0-9a-f]{32}$/.test(k));
        if (sums.length) yield sums;
      } while (token);
    },
    sweepStaging: (before: Date) =>
      counted('s3', 'list', async () => {
        const page = await c.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: stagingPrefix, MaxKeys: 1000 }));
        let removed = 0;
        for (const o of page.Contents ?? []) {
          if (!o.Key || !o.LastModified || o.LastModified >= before) continue;
          await c.send(new DeleteObjectCommand({ Bucket: bucket, Key: o.Key })).catch(() => undefined);
          removed++;
        }
        return removed;
      }),
  };
}
