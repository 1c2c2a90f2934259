/**
 * Issue 46, the S3 file store (`npm run bench -- file-store`): the Chef routes' server (bench/lib/chef-server.ts) in
 * its own process with FILE_STORE=s3 against s3rver (test/s3-server.ts, in this process). A 100 MB cookbook file is
 * uploaded (sandbox PUT, signed as chef push signs it) and downloaded (signed GET of the file) while the server's
 * resident memory is sampled from /proc: the goal is growth under 32 MB (nothing buffers a whole file). Then the
 * download's throughput through the console against reading the object from the store directly (a pre-signed GET of
 * the bucket, the same HTTP client): goal ≥ 0.8.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { signRequest } from '@/lib/auth/chef-signing';
import { startS3Server } from '../test/s3-server';
import { round, type BenchResult } from './lib/harness';

const ROOT = path.resolve(import.meta.dirname, '..');
const MB = 1024 * 1024;

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

/** The highest RSS of `pid` while `fn` runs (sampled every 5 ms). */
async function peakRss<T>(pid: number, fn: () => Promise<T>): Promise<{ peak: number; value: T }> {
  let peak = rssBytes(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 5);
  try {
    const value = await fn();
    peak = Math.max(peak, rssBytes(pid));
    return { peak, value };
  } finally {
    clearInterval(timer);
  }
}

async function drain(res: Response): Promise<number> {
  let n = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) n += chunk.length;
  return n;
}

/** `tsx <args>` in its own process, awaited without blocking this one. */
function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout }));
  });
}

export default async function bench(): Promise<BenchResult[]> {
  const s3 = await startS3Server();
  const dbFile = path.join(ROOT, 'data', 'bench', 'file-store.db');
  fs.mkdirSync(path.dirname(dbFile), { recursive: true });
  fs.rmSync(dbFile, { force: true });
  const env = { ...process.env, ...s3.env({ FILE_STORE: 's3' }), DATABASE_URL: `file:${dbFile}`, SEED_DEMO: 'true', LOG_LEVEL: 'warn', MAX_BODY_BYTES: String(200 * MB), PORT: '0' };
  // Not spawnSync: the seed writes the demo's files into s3rver, which answers from this process's event loop.
  if ((await run(['scripts/prepare.ts'], env)).code !== 0) throw new Error('prepare failed');
  const key = (await run(['scripts/chef-user-key.ts', 'dev'], env)).stdout;
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/chef-server.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  const client = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      readline.createInterface({ input: child.stdout! }).once('line', (l) => resolve(l.trim()));
      child.once('exit', (code) => reject(new Error(`chef server exited ${code}`)));
    });
    const org = `/organizations/${process.env.CHEF_ORG || 'console'}`;
    const signed = (method: string, p: string, body = '') => signRequest({ method, path: p, body, userId: 'dev', privateKey: key, protocol: '1.3' });

    async function upload(bytes: Buffer): Promise<string> {
      const checksum = createHash('md5').update(bytes).digest('hex');
      const body = JSON.stringify({ checksums: { [checksum]: null } });
      const sb = await fetch(`${url}${org}/sandboxes`, { method: 'POST', headers: { ...signed('POST', `${org}/sandboxes`, body), 'content-type': 'application/json' }, body });
      const json = (await sb.json()) as { checksums: Record<string, { url?: string }> };
      const put = new URL(json.checksums[checksum].url!);
      const headers = { ...signRequest({ method: 'PUT', path: put.pathname, body: bytes, userId: 'dev', privateKey: key, protocol: '1.3' }), 'content-type': 'application/x-binary', 'content-md5': createHash('md5').update(bytes).digest('base64') };
      const r = await fetch(`${url}${put.pathname}`, { method: 'PUT', headers, body: new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.length) });
      if (r.status !== 204) throw new Error(`upload answered ${r.status}: ${await r.text()}`);
      return checksum;
    }
    async function download(checksum: string): Promise<number> {
      const p = `${org}/file_store/checksums/${checksum}`;
      const r = await fetch(`${url}${p}`, { headers: signed('GET', p) });
      if (r.status !== 200) throw new Error(`download answered ${r.status}`);
      return drain(r);
    }
    async function direct(checksum: string): Promise<number> {
      const r = await fetch(await getSignedUrl(client, new GetObjectCommand({ Bucket: s3.bucket, Key: checksum }), { expiresIn: 600 }));
      return drain(r);
    }

    // Warm up (the SDK's client, the routes, the heap): a 2 MB file up and down.
    const warm = await upload(randomBytes(2 * MB));
    await download(warm);
    const big = randomBytes(100 * MB);
    const base = rssBytes(child.pid!);
    const up = await peakRss(child.pid!, () => upload(big));
    const down = await peakRss(child.pid!, () => download(up.value));
    if (down.value !== big.length) throw new Error(`downloaded ${down.value} bytes, not ${big.length}`);
    const growth = Math.max(up.peak, down.peak) - base;

    // Throughput: three downloads each way, the median time.
    const time = async (fn: () => Promise<number>) => {
      const t = performance.now();
      await fn();
      return performance.now() - t;
    };
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const ours: number[] = [];
    const theirs: number[] = [];
    for (let i = 0; i < 3; i++) {
      theirs.push(await time(() => direct(up.value)));
      ours.push(await time(() => download(up.value)));
    }
    const oursMs = median(ours);
    const directMs = median(theirs);
    return [
      {
        name: 'S3 file store: server RSS growth, 100 MB cookbook file uploaded then downloaded (MB, not ms)',
        ours_ms: round(growth / MB, 1),
        baseline: 'goal: 32 MB',
        baseline_ms: 32,
        ratio: round(growth / MB / 32),
        goal: '< 32 MB growth',
        met: growth < 32 * MB,
        note: `RSS ${round(base / MB, 1)} MB before; peak ${round(up.peak / MB, 1)} MB uploading, ${round(down.peak / MB, 1)} MB downloading`,
      },
      {
        name: 'S3 file store: 100 MB download through the console (signed GET, streamed)',
        ours_ms: round(oursMs, 1),
        baseline: 'a pre-signed GET of the object from the store directly',
        baseline_ms: round(directMs, 1),
        ratio: round(directMs / oursMs),
        goal: '≥ 0.8 of direct throughput',
        met: directMs / oursMs >= 0.8,
        note: `${round((100 / oursMs) * 1000, 1)} vs ${round((100 / directMs) * 1000, 1)} MB/s`,
      },
    ];
  } finally {
    client.destroy();
    child.kill('SIGTERM');
    await s3.stop();
  }
}
