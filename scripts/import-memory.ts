/**
 * Issue 27: the importer's memory, measured (not part of CI: a large run takes minutes).
 *
 *   npx tsx scripts/import-memory.ts [--nodes N] [--files-mb M] [--file-kb K] [--concurrency C] [--heap-mb H] [--no-large] [--keep]
 *
 * Generates a `knife download` tree in a fresh temp directory: N nodes (default
 * 5000; each a ~3 kB document with automatic attributes), cookbook artifacts
 * holding about M MB of files (default 300) of K kB each (default 256, random
 * bytes, each file unique), plus four files just under the console's file limit
 * (MAX_BODY_BYTES, 8 MiB by default: the largest a transfer may hold) and one
 * file over it (reported as skipped, never read; --no-large leaves these out). Then migrates a fresh SQLite
 * database next to it, adds an administrator, and runs the real importer
 * as `npm run import` runs it (its environment and `--max-old-space-size=H` read from package.json; `--heap-mb` overrides H: the heap cap keeps V8 from growing the heap before it collects)
 * as a child process whose peak resident set (getrusage's ru_maxrss) a preload
 * records on exit. Prints one JSON line: {nodes, files, file_mb, seconds,
 * peak_rss_mb, exit}. The temp directory is removed unless --keep.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { applyMigrations } from '../lib/db/migrate';
import { maxDocumentBytes } from '../lib/validation/limits';

import { numberFlag } from './flags';
const args = process.argv.slice(2);
const num = (flag: string, dflt: number) => numberFlag(args, flag, dflt);
const NODES = num('--nodes', 5000);
const FILES_MB = num('--files-mb', 300);
const FILE_KB = num('--file-kb', 256);
const CONCURRENCY = num('--concurrency', 4);
/**
 * How `npm run import` runs the importer, read from package.json so that this
 * measures what users run: its environment (glibc malloc settings: at most two
 * arenas, and buffers of 128 kB or more always mapped apart, so a freed
 * cookbook file goes back to the system instead of staying in a fragmented
 * heap: 392 MB instead of 486 MB at 50,000 nodes and 5 GB) and V8's heap cap.
 */
function importScript(): { env: Record<string, string>; heapMb: number } {
  const script = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts.import;
  const m = /^((?:[A-Z_]+=\S+\s+)*)node --max-old-space-size=(\d+) --import tsx scripts\/import\.ts$/.exec(script);
  if (!m) throw new Error(`package.json's import script is not in the form this measurement reads: ${script}`);
  const env = Object.fromEntries(m[1].trim().split(/\s+/).filter(Boolean).map((a) => a.split('=', 2) as [string, string]));
  return { env, heapMb: Number(m[2]) };
}
const IMPORT = importScript();
const HEAP_MB = num('--heap-mb', IMPORT.heapMb);
const keep = args.includes('--keep');
const LARGE = !args.includes('--no-large');

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'import-memory-'));
const tree = path.join(root, 'tree');
const write = (rel: string, data: string | Buffer) => {
  const p = path.join(tree, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, data);
};

// Nodes: documents the size of a real chef-client's (automatic attributes dominate).
for (let i = 0; i < NODES; i++) {
  const name = `mem-node-${String(i).padStart(6, '0')}`;
  const automatic = { fqdn: `${name}.example.com`, platform: 'ubuntu', platform_version: '22.04', ipaddress: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, packages: Object.fromEntries(Array.from({ length: 40 }, (_, k) => [`pkg-${k}`, { version: `1.${k}.${i % 10}`, arch: 'amd64' }])) };
  write(`nodes/${name}.json`, JSON.stringify({ name, chef_type: 'node', json_class: 'Chef::Node', chef_environment: '_default', policy_name: 'web', policy_group: 'dev', normal: { rack: i % 40 }, automatic }));
}

// Cookbook artifacts: 50 files per artifact, FILE_KB each, until FILES_MB; then the large files.
const perFile = FILE_KB * 1024;
const count = Math.ceil((FILES_MB * 1024 * 1024) / perFile);
let artifacts = 0;
const artifactDir = (n: number) => `cookbook_artifacts/mem-cb-${n}-${randomBytes(20).toString('hex')}`;
let dir = '';
for (let f = 0; f < count; f++) {
  if (f % 50 === 0) {
    dir = artifactDir(artifacts++);
    write(`${dir}/metadata.rb`, `name 'mem-cb-${artifacts - 1}'\nversion '1.0.${artifacts - 1}'\n`);
  }
  write(`${dir}/files/default/blob-${f}.bin`, randomBytes(perFile));
}
const limit = maxDocumentBytes();
if (LARGE) {
  dir = artifactDir(artifacts++);
  write(`${dir}/metadata.rb`, `name 'mem-cb-big'\nversion '1.0.0'\n`);
  for (let k = 0; k < 4; k++) write(`${dir}/files/default/large-${k}.bin`, randomBytes(limit - 1024 * k));
  dir = artifactDir(artifacts++);
  write(`${dir}/metadata.rb`, `name 'mem-cb-too-big'\nversion '1.0.0'\n`);
  write(`${dir}/files/default/too-large.bin`, Buffer.alloc(limit + 1, 1));
}
const fileBytes = count * perFile + (LARGE ? 5 * limit + 1 : 0);

const dbFile = path.join(root, 'console.db');
const url = `file:${dbFile}`;
await applyMigrations(url);
process.env.DATABASE_URL = url;
const { db } = await import('../lib/db/client');
const { HOME_MEMBERSHIP } = await import('../lib/services/organizations');
await db().user.create({ data: { email: 'mem-admin@example.com', name: 'Admin', chefName: 'mem-admin', isAdmin: true, passwordHash: '', orgMemberships: HOME_MEMBERSHIP } });
await db().$disconnect();

// The preload: the child's own peak resident set, written when it exits.
const rssFile = path.join(root, 'max-rss');
const preload = path.join(root, 'max-rss.mjs');
fs.writeFileSync(preload, `import fs from 'node:fs';\nprocess.on('exit', () => fs.writeFileSync(${JSON.stringify(rssFile)}, String(process.resourceUsage().maxRSS)));\n`);
const started = process.hrtime.bigint();
const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_MB}`, '--import', 'tsx', '--import', preload, 'scripts/import.ts', '--dir', tree, '--concurrency', String(CONCURRENCY), '--json'], {
  env: { ...process.env, ...IMPORT.env, DATABASE_URL: url },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let out = '';
child.stdout.on('data', (c) => (out += c));
const exit = await new Promise<number | null>((r) => child.once('exit', r));
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
const report = out ? (JSON.parse(out) as { imported: unknown[]; skipped: { name: string; detail: string }[] }) : null;
console.log(
  JSON.stringify({
    nodes: NODES,
    concurrency: CONCURRENCY,
    heap_mb: HEAP_MB,
    artifacts,
    files: count + (LARGE ? 5 : 0),
    file_mb: Math.round(fileBytes / 1048576),
    seconds: Math.round(seconds),
    peak_rss_mb: Math.round(Number(fs.readFileSync(rssFile, 'utf8')) / 1024),
    exit,
    imported: report?.imported.length,
    skipped: report?.skipped.map((s) => `${s.name}: ${s.detail}`),
  }),
);
if (!keep) fs.rmSync(root, { recursive: true, force: true });
else console.error(`kept ${root}`);
