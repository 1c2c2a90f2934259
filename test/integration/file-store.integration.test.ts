/**
 * Issue 46: cookbook files in an S3-compatible store (s3rver, started here), over the Chef routes with real HTTP
 * and real signatures: streamed uploads checked before anything names them, streamed and pre-signed downloads,
 * refused and interrupted uploads leaving nothing, collection racing uploads, two instances uploading the same
 * file at once (PostgreSQL), migration both ways while the console serves, readiness and metrics.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { db } from '@/lib/db/client';
import { databaseProvider } from '@/lib/db/url';
import { contentHashCheck, hashBody, signRequest } from '@/lib/auth/chef-signing';
import { metrics } from '@/lib/ops/metrics';
import { collectFiles, GRACE_MS, storeFile, migrateFiles, collectExpiredUploads, SANDBOX_TTL_MS } from '@/lib/services/cookbooks';
import { DirectorySource, runImport } from '@/lib/services/import';
import * as readyRoute from '@/app/api/ready/route';
import { accessFor } from '../helpers';
import { startChefHarness, type ChefHarness } from '../chef-harness';
import { startS3Server, type S3Server } from '../s3-server';

const ROOT = path.resolve(import.meta.dirname, '../..');
const onPostgres = databaseProvider() === 'postgresql';
let chef: ChefHarness;
let s3: S3Server;
let client: S3Client;

beforeAll(async () => {
  s3 = await startS3Server();
  Object.assign(process.env, s3.env({ FILE_STORE: 's3' }));
  client = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  // Users only, no demo (CI time: the demo's ~190 cookbook files would go into the bucket, and be migrated twice).
  chef = await startChefHarness({ seed: false });
});
afterAll(async () => {
  await chef?.close();
  client?.destroy();
  await s3?.stop();
});

const md5 = (b: Buffer | string) => createHash('md5').update(b).digest('hex');
const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');

/** The keys in the bucket (files and staging uploads). */
async function keys(): Promise<string[]> {
  const r = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket }));
  return (r.Contents ?? []).map((o) => o.Key!).sort();
}
async function objectBytes(key: string): Promise<Buffer | null> {
  try {
    const r = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
    return Buffer.from(await r.Body!.transformToByteArray());
  } catch {
    return null;
  }
}

async function sandbox(files: Buffer[]) {
  const r = await chef.request('POST', 'sandboxes', { as: 'admin', body: { checksums: Object.fromEntries(files.map((f) => [md5(f), null])) } });
  expect(r.status, r.text).toBe(201);
  return r.json as { sandbox_id: string; checksums: Record<string, { url?: string; needs_upload: boolean }> };
}

/** Signed headers for a PUT of `bytes` to `url`, as knife and chef push upload files. */
async function uploadHeaders(url: string, bytes: Buffer, contentMd5?: string): Promise<Record<string, string>> {
  const key = await chef.privateKey('admin');
  const signed = signRequest({ method: 'PUT', path: new URL(url).pathname, body: bytes, userId: 'admin', privateKey: key });
  return { ...signed, 'content-type': 'application/x-binary', 'content-md5': contentMd5 ?? createHash('md5').update(bytes).digest('base64') };
}

async function upload(url: string, bytes: Buffer, opts: { contentMd5?: string; signedBody?: Buffer } = {}) {
  const headers = await uploadHeaders(url, opts.signedBody ?? bytes, opts.contentMd5);
  if (opts.signedBody) headers['content-md5'] = opts.contentMd5 ?? createHash('md5').update(bytes).digest('base64');
  const r = await fetch(url, { method: 'PUT', headers, body: new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.length) });
  return { status: r.status, text: await r.text() };
}

/**
 * An upload whose body is sent in two halves: `half()` resolves once the server has read the first half (the pending
 * StoredFile row exists); then `finish()` sends the rest, or `cut()` closes the connection.
 */
async function splitUpload(url: string, bytes: Buffer) {
  const headers = await uploadHeaders(url, bytes);
  const u = new URL(url);
  let answer!: Promise<number>;
  const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'PUT', headers: { ...headers, 'content-length': String(bytes.length) } });
  answer = new Promise((resolve) => {
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', () => resolve(0));
  });
  req.write(bytes.subarray(0, bytes.length >> 1));
  const checksum = md5(bytes);
  return {
    half: async () => {
      while (!(await db().storedFile.findUnique({ where: { checksum } }))) await new Promise((r) => setImmediate(r));
    },
    finish: () => {
      req.end(bytes.subarray(bytes.length >> 1));
      return answer;
    },
    cut: () => {
      req.destroy();
      return answer;
    },
  };
}

function manifest(name: string, identifier: string, files: Record<string, Buffer>) {
  return {
    name: `${name}-1.0.0`,
    cookbook_name: name,
    identifier,
    version: '1.0.0',
    chef_type: 'cookbook_version',
    frozen: false,
    metadata: { name, version: '1.0.0', dependencies: {} },
    all_files: Object.entries(files).map(([p, content]) => ({ name: p, path: p, checksum: md5(content), specificity: 'default' })),
  };
}

/** Uploads files (streamed) and an artifact naming them; returns its identifier. */
async function artifact(name: string, files: Record<string, Buffer>): Promise<string> {
  const sb = await sandbox(Object.values(files));
  for (const f of Object.values(files)) {
    const c = sb.checksums[md5(f)];
    if (c.needs_upload) expect((await upload(c.url!, f)).status).toBe(204);
  }
  expect((await chef.request('PUT', `sandboxes/${sb.sandbox_id}`, { as: 'admin', body: { is_completed: true } })).status).toBe(200);
  const id = sha1(name + Object.keys(files).join());
  const r = await chef.request('PUT', `cookbook_artifacts/${name}/${id}`, { as: 'admin', body: manifest(name, id, files) });
  expect(r.status, r.text).toBe(201);
  return id;
}

async function fileUrls(name: string, id: string): Promise<Map<string, string>> {
  const r = await chef.request('GET', `cookbook_artifacts/${name}/${id}`, { as: 'client:fs-node' });
  expect(r.status, r.text).toBe(200);
  return new Map((r.json.all_files as { checksum: string; url: string }[]).map((f) => [f.checksum, f.url]));
}

describe('FILE_STORE=s3', () => {
  it('streams an upload into the bucket, and downloads it streamed by the console (the database holds no file bytes)', async () => {
    const big = randomBytes(3 * 1024 * 1024 + 17);
    const small = Buffer.from('log "from s3"\n');
    const id = await artifact('s3cb', { 'files/default/big.bin': big, 'recipes/default.rb': small });
    expect(await db().cookbookFile.count()).toBe(0);
    expect(await db().storedFile.findUnique({ where: { checksum: md5(big) }, select: { store: true, state: true, size: true } })).toEqual({ store: 's3', state: 'stored', size: big.length });
    expect((await objectBytes(md5(big)))!.equals(big)).toBe(true);
    expect((await keys()).filter((k) => k.startsWith('uploads/'))).toEqual([]);
    const urls = await fileUrls('s3cb', id);
    expect(urls.get(md5(big))).toMatch(new RegExp(`^${chef.orgUrl}/file_store/checksums/${md5(big)}\\?expires=`));
    const res = await fetch(urls.get(md5(big))!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(big.length));
    expect(Buffer.from(await res.arrayBuffer()).equals(big)).toBe(true);
    // A signed read of the same file.
    const signed = await chef.request('GET', `file_store/checksums/${md5(small)}`, { as: 'client:fs-node' });
    expect(signed.text).toBe(small.toString());
  });

  it('S3_DIRECT_DOWNLOADS=true: manifests name pre-signed URLs of the bucket, expiring with the console\'s own', async () => {
    const file = Buffer.from('direct download\n');
    const id = await artifact('directcb', { 'recipes/default.rb': file });
    process.env.S3_DIRECT_DOWNLOADS = 'true';
    try {
      const url = new URL((await fileUrls('directcb', id)).get(md5(file))!);
      expect(url.origin).toBe(s3.endpoint);
      expect(url.pathname).toBe(`/${s3.bucket}/${md5(file)}`);
      const consoleExpiry = Number(new URL((await (async () => {
        process.env.S3_DIRECT_DOWNLOADS = 'false';
        return (await fileUrls('directcb', id)).get(md5(file))!;
      })())).searchParams.get('expires'));
      const amzDate = url.searchParams.get('X-Amz-Date')!;
      const signedAt = Date.parse(`${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`) / 1000;
      expect(signedAt + Number(url.searchParams.get('X-Amz-Expires'))).toBe(consoleExpiry);
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(file)).toBe(true);
    } finally {
      delete process.env.S3_DIRECT_DOWNLOADS;
    }
  });

  it('a wrong MD5, a wrong Content-MD5 or a body its signature does not cover is refused, leaving nothing', async () => {
    const good = Buffer.from('the right bytes\n');
    const sb = await sandbox([good]);
    const url = sb.checksums[md5(good)].url!;
    const before = await keys();
    const wrong = await upload(url, Buffer.from('other bytes\n'));
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('not ' + md5(good));
    expect((await upload(url, good, { contentMd5: createHash('md5').update('x').digest('base64') })).status).toBe(400);
    expect((await upload(url, good, { signedBody: Buffer.from('signed other bytes') })).status).toBe(401);
    expect(await db().storedFile.count({ where: { checksum: md5(good) } })).toBe(0);
    const files = (k: string[]) => k.filter((key) => !key.startsWith('uploads/'));
    expect(files(await keys())).toEqual(files(before));
    // A refused body may leave a staging object (the store can finish writing it after the upload gave up): never under
    // the file's name, and swept by the collector after the grace period.
    await collectFiles({ now: new Date(Date.now() + GRACE_MS + 60_000) });
    expect(await keys()).toEqual(files(before));
    const commit = await chef.request('PUT', `sandboxes/${sb.sandbox_id}`, { as: 'admin', body: { is_completed: true } });
    expect(commit.status).toBe(400);
    expect(commit.json.error[0]).toContain(md5(good));
    expect((await upload(url, good)).status).toBe(204);
    expect((await objectBytes(md5(good)))!.equals(good)).toBe(true);
  });

  it('a body that failed its signature check before the upload read it answers 401 (not 503), leaving nothing', async () => {
    // A small body arrives whole and is checked at its end, which may come before storeFile reads it (PostgreSQL's
    // slower claim made this a race): the body's own failure is the answer, whatever the store made of it.
    const bytes = Buffer.from(`checked before the upload began ${randomBytes(4).toString('hex')}\n`);
    const body = Readable.from([bytes]).pipe(contentHashCheck('1.3', hashBody('1.3', 'other bytes')));
    body.on('error', () => undefined); // as the router's `through`
    await finished(body).catch(() => undefined);
    expect(body.errored).toBeTruthy();
    await expect(storeFile(md5(bytes), body, { size: bytes.length })).rejects.toMatchObject({ status: 401 });
    expect(await db().storedFile.findUnique({ where: { checksum: md5(bytes) } })).toBeNull();
    expect(await objectBytes(md5(bytes))).toBeNull();
  });

  it('an interrupted upload leaves nothing a manifest can name; the file is uploaded again', async () => {
    const bytes = randomBytes(256 * 1024);
    const sb = await sandbox([bytes]);
    const url = sb.checksums[md5(bytes)].url!;
    const up = await splitUpload(url, bytes);
    await up.half();
    await up.cut();
    // The upload's handler removes its pending row once the body failed.
    while (await db().storedFile.findUnique({ where: { checksum: md5(bytes) } })) await new Promise((r) => setTimeout(r, 20));
    expect(await objectBytes(md5(bytes))).toBeNull();
    const r = await chef.request('PUT', 'cookbook_artifacts/cutcb/' + sha1('cut'), { as: 'admin', body: manifest('cutcb', sha1('cut'), { 'files/x': bytes }) });
    expect(r.status).toBe(400);
    expect(r.text).toContain("hasn't been uploaded");
    expect((await upload(url, bytes)).status).toBe(204);
    expect((await chef.request('PUT', `sandboxes/${sb.sandbox_id}`, { as: 'admin', body: { is_completed: true } })).status).toBe(200);
  });

  it('the collector never takes an upload in flight, and a file it races with a new reference is either kept or uploaded again', async () => {
    // An upload in flight: collection passes leave it; it finishes stored.
    const bytes = randomBytes(128 * 1024);
    const sb = await sandbox([bytes]);
    const up = await splitUpload(sb.checksums[md5(bytes)].url!, bytes);
    await up.half();
    await collectFiles();
    expect(await db().storedFile.findUnique({ where: { checksum: md5(bytes) }, select: { state: true } })).toEqual({ state: 'pending' });
    expect(await up.finish()).toBe(204);
    expect((await objectBytes(md5(bytes)))!.equals(bytes)).toBe(true);

    // Orphans past the grace period, collected while new sandboxes name them again: each is kept (stored, readable)
    // or collected and asked for again; never named and gone.
    const files = Array.from({ length: 6 }, (_, i) => Buffer.from(`orphan ${i} ${randomBytes(8).toString('hex')}`));
    const id = await artifact('orphancb', Object.fromEntries(files.map((f, i) => [`files/f${i}`, f])));
    const del = await chef.request('DELETE', `cookbook_artifacts/orphancb/${id}`, { as: 'admin' });
    expect(del.status, del.text).toBe(200);
    // A day later the upload sandbox has expired: nothing names the files; they are orphans.
    const expired = new Date(Date.now() + SANDBOX_TTL_MS + 60_000);
    await collectExpiredUploads(expired, 500);
    expect(await db().storedFile.count({ where: { checksum: { in: files.map(md5) }, state: 'orphan' } })).toBe(files.length);
    const later = new Date(expired.getTime() + GRACE_MS + 60_000);
    const [again] = await Promise.all([sandbox(files), collectFiles({ now: later })]);
    for (const f of files) {
      const row = await db().storedFile.findUnique({ where: { checksum: md5(f) }, select: { state: true } });
      if (again.checksums[md5(f)].needs_upload) {
        expect(row).toBeNull();
        expect(await objectBytes(md5(f))).toBeNull();
        expect((await upload(again.checksums[md5(f)].url!, f)).status).toBe(204);
      } else {
        expect(row).toEqual({ state: 'stored' });
        expect((await objectBytes(md5(f)))!.equals(f)).toBe(true);
      }
    }
    expect((await chef.request('PUT', `sandboxes/${again.sandbox_id}`, { as: 'admin', body: { is_completed: true } })).status).toBe(200);
  });

  it('files:migrate moves every file to the database and back, verifying each, while the console serves them', async () => {
    const files = Array.from({ length: 5 }, (_, i) => randomBytes(40_000 + i));
    const id = await artifact('migratecb', Object.fromEntries(files.map((f, i) => [`files/m${i}`, f])));
    const urls = await fileUrls('migratecb', id);
    let serving = true;
    let served = 0;
    const reader = (async () => {
      while (serving) {
        for (const f of files) {
          const res = await fetch(urls.get(md5(f))!);
          expect(res.status).toBe(200);
          expect(Buffer.from(await res.arrayBuffer()).equals(f)).toBe(true);
          served++;
        }
      }
    })();
    try {
      const dry = await migrateFiles({ to: 'db', dryRun: true });
      expect(dry.moved).toBe(await db().storedFile.count({ where: { store: 's3', state: { in: ['stored', 'orphan'] } } }));
      expect(await db().cookbookFile.count()).toBe(0);
      // Interrupted after two files, then resumed.
      const first = await migrateFiles({ to: 'db', limit: 2 });
      expect(first).toMatchObject({ moved: 2, failed: [] });
      expect(first.remaining).toBeGreaterThan(0);
      const rest = await migrateFiles({ to: 'db' });
      expect(rest).toMatchObject({ moved: first.remaining, failed: [], remaining: 0 });
      expect(await db().storedFile.count({ where: { store: 's3', state: { in: ['stored', 'orphan'] } } })).toBe(0);
      expect((await keys()).filter((k) => /^[0-9a-f]{32}$/.test(k))).toEqual([]);
      for (const f of files) expect(Buffer.from((await db().cookbookFile.findUniqueOrThrow({ where: { checksum: md5(f) } })).content).equals(f)).toBe(true);
      const back = await migrateFiles({ to: 's3' });
      expect(back).toMatchObject({ failed: [], remaining: 0 });
      expect(await db().cookbookFile.count()).toBe(0);
      for (const f of files) expect((await objectBytes(md5(f)))!.equals(f)).toBe(true);
      // A file whose bytes were damaged in the source is named and left where it is.
      const bad = randomBytes(1000);
      await artifact('badcb', { 'files/bad': bad });
      await db().storedFile.update({ where: { checksum: md5(bad) }, data: { store: 'db' } });
      await db().cookbookFile.create({ data: { checksum: md5(bad), size: bad.length, content: new Uint8Array(randomBytes(1000)) } });
      const damaged = await migrateFiles({ to: 's3' });
      expect(damaged.failed).toEqual([{ checksum: md5(bad), error: expect.stringContaining('other bytes') }]);
      expect((await objectBytes(md5(bad)))!.equals(bad)).toBe(true); // the good copy uploaded earlier is untouched
    } finally {
      serving = false;
      await reader;
    }
    expect(served).toBeGreaterThan(0);
  });

  it('the importer writes cookbook files through the same store', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-s3-'));
    try {
      const recipe = `log 'imported into s3 ${randomBytes(4).toString('hex')}'\n`;
      const base = path.join(dir, 'cookbook_artifacts', `imported-${sha1('imported')}`);
      fs.mkdirSync(path.join(base, 'recipes'), { recursive: true });
      fs.writeFileSync(path.join(base, 'metadata.rb'), "name 'imported'\nversion '1.0.0'\n");
      fs.writeFileSync(path.join(base, 'recipes', 'default.rb'), recipe);
      const { report } = await runImport(await accessFor('admin@example.com'), new DirectorySource(dir));
      expect(report.imported.map((i) => i.name)).toContain(`imported@${sha1('imported')}`);
      expect(await db().storedFile.findUnique({ where: { checksum: md5(recipe) }, select: { store: true, state: true } })).toEqual({ store: 's3', state: 'stored' });
      expect((await objectBytes(md5(recipe)))!.toString()).toBe(recipe);
      expect(await db().cookbookFile.count({ where: { checksum: md5(recipe) } })).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('/api/ready says when the bucket does not answer; /metrics counts store operations and errors', async () => {
    const ok = await readyRoute.GET();
    expect(ok.status).toBe(200);
    expect((await ok.json()).fileStore).toEqual({ store: 's3', status: 'up' });
    const endpoint = process.env.S3_ENDPOINT;
    const closed = await new Promise<number>((resolve) => {
      const srv = http.createServer().listen(0, '127.0.0.1', () => {
        const port = (srv.address() as { port: number }).port;
        srv.close(() => resolve(port));
      });
    });
    process.env.S3_ENDPOINT = `http://127.0.0.1:${closed}`;
    try {
      const down = await readyRoute.GET();
      expect(down.status).toBe(503);
      const body = await down.json();
      expect(body.status).toBe('not-ready');
      expect(body.fileStore).toMatchObject({ store: 's3', status: 'down', error: expect.stringContaining(`S3 bucket ${s3.bucket} unreachable`) });
    } finally {
      process.env.S3_ENDPOINT = endpoint;
    }
    const text = await metrics().registry.render();
    expect(text).toMatch(/policy_console_file_store_operations_total\{store="s3",operation="put",result="ok"\} [1-9]/);
    expect(text).toMatch(/policy_console_file_store_operations_total\{store="s3",operation="ping",result="error"\} [1-9]/);
    expect(text).toMatch(/policy_console_file_store_bytes_total\{store="s3",direction="in"\} [1-9]/);
  });
});

/** Starts a second console instance (test/fixtures/chef-instance.ts) on this database and bucket. */
async function secondInstance(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/chef-instance.ts'], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const url = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).on('line', (l) => l.startsWith('{"url"') && resolve(JSON.parse(l).url));
    child.on('exit', (code) => reject(new Error(`instance exited ${code}: ${stderr}`)));
  });
  return { url, child };
}

describe.runIf(onPostgres)('two instances on one PostgreSQL database and one bucket', () => {
  it('upload the same file at once: both answer 204, one file is stored, verified, no staging object left', async () => {
    const other = await secondInstance();
    try {
      for (let round = 0; round < 3; round++) {
        const bytes = randomBytes(512 * 1024);
        const sb = await sandbox([bytes]);
        const url = sb.checksums[md5(bytes)].url!;
        const path2 = new URL(url).pathname;
        const [a, b] = await Promise.all([upload(url, bytes), upload(`${other.url}${path2}`, bytes)]);
        expect([a.status, b.status], a.text + b.text).toEqual([204, 204]);
        expect(await db().storedFile.findUnique({ where: { checksum: md5(bytes) }, select: { state: true, store: true } })).toEqual({ state: 'stored', store: 's3' });
        expect((await objectBytes(md5(bytes)))!.equals(bytes)).toBe(true);
        expect((await chef.request('PUT', `sandboxes/${sb.sandbox_id}`, { as: 'admin', body: { is_completed: true } })).status).toBe(200);
      }
      expect((await keys()).filter((k) => k.startsWith('uploads/'))).toEqual([]);
    } finally {
      other.child.kill('SIGKILL');
    }
  });
});
