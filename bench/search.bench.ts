/**
 * Chef search at scale (issue 25), on SQLite and on PostgreSQL in the same run:
 * - 10,000 nodes (SEARCH_BENCH_NODES to change) with about 30 KB of Ohai-like
 *   automatic attributes each, written as nodes are: the Node row and its index
 *   rows (lib/db/queries/search-index.ts, the writer every node save
 *   uses, in its bulk form indexNewNodes) in one transaction per 50 nodes; the
 *   peak RSS of the process while indexing is reported (goal < 500 MB): each
 *   database is measured in a child process with the heap cap `npm run import`
 *   runs with (HEAP_CAP_MB);
 * - the index query (lib/db/queries/search.ts searchIndex: the total and the
 *   first 1000 names, as Chef's default page) for
 *   `policy_group:production AND platform:ubuntu` and for a wildcard query,
 *   median of 15 (goal <= 50 ms);
 * - saving one node with its index against saving it without (body parsed,
 *   stored node read, row updated, in one transaction; then the index rows or
 *   not), for a chef-client save (a few Ohai values changed: the index writes
 *   only the chunks that changed, lib/db/queries/search.ts) and for a first
 *   save (every chunk new to the node): goal <= 2x for the chef-client save.
 *   SEARCH_BENCH_DBS=sqlite runs one database only.
 * The generated nodes share what machines of one image share (packages,
 * kernel modules, CPU flags: a few variants) and differ in the rest
 * (addresses, filesystems, memory, DMI serials), so the index stores each
 * shared part once; rows per node before and after sharing are reported.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PrismaClient } from '@/lib/db/generated/client';
import { createDb, type Tx } from '@/lib/db/client';
import { applyMigrations } from '@/lib/db/migrate';
import { searchIndex } from '@/lib/db/queries/search';
import { parseSearchQuery } from '@/lib/domain/search/parse';
import { flattenForIndex, nodeSearchDocument } from '@/lib/domain/search/expand';
import { indexNewNodes, indexNode } from '@/lib/db/queries/search-index';
import { createDatabase, startPgServer, type PgServer } from '@/test/pg-server';
import { rng as prng } from './lib/generate';
import { round, type BenchResult } from './lib/harness';

const ROOT = path.resolve(import.meta.dirname, '..');
const NODES = Number(process.env.SEARCH_BENCH_NODES ?? 10_000);
const BATCH = 50;

const PLATFORMS = [
  ['ubuntu', 'debian', '22.04', '5.15.0-91-generic'],
  ['ubuntu', 'debian', '20.04', '5.4.0-169-generic'],
  ['debian', 'debian', '12', '6.1.0-17-amd64'],
  ['centos', 'rhel', '8.5', '4.18.0-348.el8.x86_64'],
  ['amazon', 'amazon', '2023', '6.1.61-85.amzn2023.x86_64'],
] as const;
const GROUPS = ['production', 'staging', 'dev'];
const FLAGS = 'fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ss ht syscall nx pdpe1gb rdtscp lm constant_tsc rep_good nopl xtopology cpuid tsc_known_freq pni pclmulqdq ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic movbe popcnt aes xsave avx f16c rdrand hypervisor lahf_lm abm 3dnowprefetch invpcid_single ssbd ibrs ibpb stibp fsgsbase bmi1 avx2 smep bmi2 erms invpcid avx512f avx512dq rdseed adx smap clflushopt clwb avx512cd avx512bw avx512vl xsaveopt xsavec xgetbv1 xsaves arat pku ospke md_clear arch_capabilities'.split(' ');
const MODULES = Array.from({ length: 70 }, (_, i) => ['nf_conntrack', 'xt_tcpudp', 'overlay', 'br_netfilter', 'ip_tables', 'x_tables', 'ext4', 'mbcache', 'jbd2', 'virtio_net', 'virtio_blk', 'crc32c_intel'][i % 12] + (i >= 12 ? `_${i}` : ''));
const PACKAGES = Array.from({ length: 230 }, (_, i) => `${['lib', 'python3-', 'ruby-', 'perl-', ''][i % 5]}${['ssl', 'curl', 'yaml', 'xml2', 'zstd', 'systemd', 'apt', 'gpg', 'tar', 'sed', 'gzip', 'bash'][i % 12]}${i}`);

/** About 30 KB of automatic attributes, most values shared by similar machines, a few per node. */
export function ohaiNode(i: number): Record<string, unknown> & { name: string } {
  const r = prng(i + 1);
  const [platform, family, version, kernel] = PLATFORMS[i % PLATFORMS.length];
  const name = `node-${String(i).padStart(5, '0')}.example.com`;
  const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  const packages: Record<string, unknown> = {};
  for (const [k, p] of PACKAGES.entries()) packages[p] = { version: `${1 + (k % 7)}.${(k + (i % 3)) % 10}.${k % 4}-${i % 2 ? 'ubuntu1' : 'deb12u1'}`, arch: k % 9 ? 'amd64' : 'all' };
  const modules: Record<string, unknown> = {};
  for (const [k, m] of MODULES.entries()) modules[m] = { size: String(16384 + k * 4096), refcount: String(k % 4), version: k % 5 ? '' : '1.0' };
  const filesystem: Record<string, unknown> = {};
  for (let k = 0; k < 12; k++) {
    filesystem[`/dev/vda${k}`] = { kb_size: String(1000000 * (k + 1)), kb_used: String(Math.floor(r() * 1000000)), percent_used: `${Math.floor(r() * 100)}%`, mount: k ? `/mnt/data${k}` : '/', fs_type: k % 3 ? 'ext4' : 'xfs', mount_options: ['rw', 'relatime'], uuid: `${i.toString(16)}-${k}-4a5b-9c1d-${(i * 7919).toString(16)}` };
  }
  const cpus: Record<string, unknown> = {};
  for (let k = 0; k < 4; k++) cpus[String(k)] = { vendor_id: 'GenuineIntel', family: '6', model: '85', model_name: 'Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz', stepping: '7', mhz: '2499.998', cache_size: '36608 KB', flags: FLAGS };
  return {
    name,
    chef_environment: '_default',
    json_class: 'Chef::Node',
    chef_type: 'node',
    policy_name: ['webapp', 'database', 'cache', 'worker'][i % 4],
    policy_group: GROUPS[i % 3],
    run_list: [],
    normal: { tags: i % 10 ? [] : ['canary'] },
    default: {},
    override: {},
    automatic: {
      platform,
      platform_family: family,
      platform_version: version,
      os: 'linux',
      os_version: kernel,
      hostname: name.split('.')[0],
      fqdn: name,
      domain: 'example.com',
      ipaddress: ip,
      macaddress: `02:00:${((i >> 8) & 255).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}:00:01`,
      uptime_seconds: Math.floor(r() * 1e7),
      kernel: { name: 'Linux', release: kernel, version: '#101-Ubuntu SMP', machine: 'x86_64', processor: 'x86_64', os: 'GNU/Linux', modules },
      cpu: { ...cpus, total: 4, real: 1, cores: 2 },
      memory: { total: '16303588kB', free: `${Math.floor(r() * 1e7)}kB`, available: `${Math.floor(r() * 1e7)}kB`, swap: { total: '0kB', free: '0kB' } },
      network: {
        default_interface: 'eth0',
        default_gateway: '10.0.0.1',
        interfaces: {
          lo: { mtu: '65536', flags: ['LOOPBACK', 'UP'], encapsulation: 'Loopback', addresses: { '127.0.0.1': { family: 'inet', prefixlen: '8', scope: 'Node' } }, state: 'unknown' },
          eth0: { type: 'eth', number: '0', mtu: '9001', flags: ['BROADCAST', 'MULTICAST', 'UP'], encapsulation: 'Ethernet', addresses: { [ip]: { family: 'inet', prefixlen: '16', netmask: '255.255.0.0', broadcast: '10.0.255.255', scope: 'Global' } }, state: 'up', routes: [{ destination: 'default', family: 'inet', via: '10.0.0.1' }] },
        },
      },
      filesystem: { by_device: filesystem },
      packages,
      languages: { ruby: { platform: 'x86_64-linux', version: '3.1.4', release_date: '2023-03-30' }, python: { version: '3.10.12' }, perl: { version: '5.34.0' } },
      dmi: { system: { manufacturer: 'Amazon EC2', product_name: 'm5.xlarge', serial_number: `ec2${(i * 104729).toString(16)}`, uuid: `ec2${i}-0000-1111` }, bios: { vendor: 'Amazon EC2', version: '1.0' } },
      chef_packages: { chef: { version: '18.4.64', chef_root: '/opt/chef/embedded/lib/ruby/gems/3.1.0/gems/chef-18.4.64/lib' }, ohai: { version: '18.1.18' } },
      recipes: ['base::default', `${['webapp', 'database', 'cache', 'worker'][i % 4]}::default`],
      roles: [],
      ohai_time: 1764000000 + i,
    },
  };
}

async function time(fn: () => Promise<unknown>, runs: number, warmup = 3): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

function nodeFacts(node: Record<string, unknown>, body: string) {
  return { platform: String((node.automatic as { platform: string }).platform), reportedGroup: String(node.policy_group), reportedPolicy: String(node.policy_name), chefDocument: body };
}

/**
 * A node save as the Chef route does it, without authorization and audit: the
 * body parsed, the stored node looked up, the row updated, and (`index`) its
 * index rows written, in one transaction.
 */
async function saveNode(client: PrismaClient, body: string, index: boolean) {
  const node = JSON.parse(body) as Record<string, unknown> & { name: string };
  await client.$transaction(async (tx) => {
    const existing = await tx.node.findUnique({ where: { name: node.name }, select: { id: true } });
    if (existing) await tx.node.update({ where: { name: node.name }, data: nodeFacts(node, body) });
    else await tx.node.create({ data: { name: node.name, ...nodeFacts(node, body) } });
    if (index) await indexNode(tx, node);
  });
}

/** What a chef-client run changes in a node it saves again. */
export function afterRun(node: ReturnType<typeof ohaiNode>, run: number) {
  const auto = node.automatic as Record<string, unknown> & { memory: Record<string, unknown> };
  return { ...node, automatic: { ...auto, uptime_seconds: 1e7 + run, ohai_time: 1765000000 + run, memory: { ...auto.memory, free: `${run}kB`, available: `${run * 2}kB` } } };
}

interface Measured {
  loadSeconds: number;
  peakRssMb: number;
  rssBeforeMb: number;
  rowsPerNode: number;
  chunks: number;
  flatRowsPerNode: number;
  bytesPerNode: number;
  queries: { q: string; ms: number; total: number }[];
  save: { withMs: number; withoutMs: number; firstWithMs: number; firstWithoutMs: number };
}

async function measure(url: string): Promise<Measured> {
  await applyMigrations(url);
  const client = createDb(url) as PrismaClient;
  try {
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const t0 = performance.now();
    // Bulk: 50 nodes a transaction, their Node rows and their index rows (the index writer's bulk form).
    for (let b = 0; b < NODES; b += BATCH) {
      const nodes = Array.from({ length: Math.min(NODES, b + BATCH) - b }, (_, k) => ohaiNode(b + k));
      await client.$transaction(
        async (tx) => {
          await tx.node.createMany({ data: nodes.map((n) => ({ name: n.name, ...nodeFacts(n, JSON.stringify(n)) })) });
          await indexNewNodes(tx, nodes);
        },
        { timeout: 120_000, maxWait: 60_000 },
      );
      peak = Math.max(peak, process.memoryUsage().rss);
    }
    const loadSeconds = (performance.now() - t0) / 1000;
    // PostgreSQL's autovacuum vacuums and analyzes tables this size soon after a bulk load (inserts trigger it since
    // PostgreSQL 13): without statistics its planner guesses one row per LIKE and picks nested loops (1.9 s instead
    // of 1 ms for a wildcard AND at 300 nodes), and until a vacuum marks the pages all-visible every index-only scan
    // of the index's covering indexes reads the table as well.
    if (url.startsWith('postgres')) await client.$executeRawUnsafe('VACUUM ANALYZE');
    const rows = await client.searchEntry.count();
    const chunks = await client.searchChunk.count();

    const queries = [];
    for (const q of ['policy_group:production AND platform:ubuntu', 'fqdn:node-001*', 'kernel_release:5.15* AND tags:canary', 'name:*']) {
      let total = 0;
      const parsed = parseSearchQuery(q);
      const ms = await time(async () => {
        total = (await searchIndex('node', parsed, { kind: 'all' }, { start: 0, rows: 1000 }, client)).total;
      }, 15);
      queries.push({ q, ms, total });
    }

    // chef-client saves: nodes 0-99 with their index, 100-199 without (so that the index of the first set stays
    // exact and each of its saves writes only the difference), alternating so that a loaded machine slows both alike.
    const withSamples: number[] = [];
    const withoutSamples: number[] = [];
    for (let run = 1; run <= 60; run++) {
      for (const [index, into, base] of [
        [true, withSamples, 0],
        [false, withoutSamples, 100],
      ] as const) {
        const body = JSON.stringify(afterRun(ohaiNode(base + (run % 100)), run));
        const t = performance.now();
        await saveNode(client, body, index);
        into.push(performance.now() - t);
      }
    }
    // First saves of new nodes (every row is new).
    let n = NODES;
    const firstWith: number[] = [];
    const firstWithout: number[] = [];
    for (let i = 0; i < 20; i++) {
      for (const [index, into] of [
        [true, firstWith],
        [false, firstWithout],
      ] as const) {
        const body = JSON.stringify(ohaiNode(n++));
        const t = performance.now();
        await saveNode(client, body, index);
        into.push(performance.now() - t);
      }
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    return {
      loadSeconds,
      peakRssMb: peak / 1024 / 1024,
      rssBeforeMb: rssBefore / 1024 / 1024,
      rowsPerNode: rows / NODES,
      chunks,
      flatRowsPerNode: flattenForIndex(nodeSearchDocument(ohaiNode(1))).length,
      bytesPerNode: JSON.stringify(ohaiNode(1).automatic).length,
      queries,
      save: { withMs: med(withSamples.slice(10)), withoutMs: med(withoutSamples.slice(10)), firstWithMs: med(firstWith.slice(3)), firstWithoutMs: med(firstWithout.slice(3)) },
    };
  } finally {
    await client.$disconnect();
  }
}

function rows(db: string, m: Measured): BenchResult[] {
  const out: BenchResult[] = [];
  const [pgUbuntu, wildcard] = m.queries;
  for (const q of [pgUbuntu, wildcard]) {
    out.push({
      name: `search ${NODES} nodes, ${db}: ${q.q}`,
      ours_ms: round(q.ms),
      baseline: '50 ms (the issue’s target)',
      baseline_ms: 50,
      ratio: round(q.ms / 50),
      goal: '<= 1 (median <= 50 ms)',
      met: q.ms <= 50,
      note: `${q.total} found; total and the first 1000 names; median of 15`,
    });
  }
  const ratio = m.save.withMs / m.save.withoutMs;
  out.push({
    name: `chef-client node save with its index, ${db} (${NODES} nodes indexed)`,
    ours_ms: round(m.save.withMs),
    baseline: 'the same save without the index',
    baseline_ms: round(m.save.withoutMs),
    ratio: round(ratio),
    goal: '<= 2x',
    met: ratio <= 2,
    note: `first save of a new node: ${round(m.save.firstWithMs)} ms with its index vs ${round(m.save.firstWithoutMs)} ms without (${round(m.save.firstWithMs / m.save.firstWithoutMs)}x); other queries: ${m.queries
      .slice(2)
      .map((q) => `${q.q} ${round(q.ms)} ms (${q.total})`)
      .join(', ')}`,
  });
  out.push({
    name: `indexing ${NODES} nodes (~${Math.round(m.bytesPerNode / 1024)} KB automatic attributes each), ${db}: peak RSS`,
    ours_ms: round(m.peakRssMb, 1),
    baseline: '500 MB',
    baseline_ms: 500,
    ratio: round(m.peakRssMb / 500),
    goal: '< 500 MB (ms columns are MB)',
    met: m.peakRssMb < 500,
    note: `a process of its own with the importer's heap cap (--max-old-space-size=${HEAP_CAP_MB}); RSS ${round(m.rssBeforeMb, 1)} MB before indexing; loaded in ${round(m.loadSeconds, 1)} s (${BATCH} nodes a transaction), ${round(m.rowsPerNode, 1)} index rows stored per node (${m.chunks} chunks; ${m.flatRowsPerNode} rows per node before chunks share them)`,
  });
  return out;
}

/**
 * The heap cap of a bulk load: `npm run import` runs with it (package.json) and so does each database's
 * measurement here, in a process of its own. Without it V8 lets a 4 GB heap fill with garbage before it
 * collects: indexing keeps nothing per node (the live heap after a full collection is the same ~70 MB after
 * 1,000 and after 3,000 nodes), yet the process's RSS passed 500 MB.
 */
const HEAP_CAP_MB = 192;
const RESULT = 'SEARCH_BENCH_RESULT ';

/** Runs measure() for one database in a child process (node --max-old-space-size=HEAP_CAP_MB), so that its RSS is its own. */
function measureInChild(db: 'sqlite' | 'postgresql'): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_CAP_MB}`, '--import', 'tsx', fileURLToPath(import.meta.url), '--child', db], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith(RESULT));
      if (code !== 0 || !line) reject(new Error(`search bench (${db}) exited with ${code}: ${out.slice(-2000)}`));
      else resolve(JSON.parse(line.slice(RESULT.length)) as Measured);
    });
  });
}

async function child(db: string): Promise<Measured> {
  if (db === 'sqlite') {
    const dir = path.join(ROOT, 'data', 'bench');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'search.db');
    const clean = () => {
      for (const f of [file, `${file}-journal`, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
    };
    clean();
    try {
      return await measure(`file:${file}`);
    } finally {
      clean();
    }
  }
  let pg: PgServer | null = null;
  try {
    pg = await startPgServer();
    return await measure(await createDatabase(pg, 'bench_search'));
  } finally {
    await pg?.stop();
  }
}

if (process.argv[2] === '--child' && process.argv[1] === fileURLToPath(import.meta.url)) {
  const m = await child(process.argv[3]);
  process.stdout.write(`${RESULT}${JSON.stringify(m)}\n`);
  process.exit(0);
}

export default async function bench(): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  const dbs = (process.env.SEARCH_BENCH_DBS ?? 'sqlite,postgresql').split(',');
  if (dbs.includes('sqlite')) out.push(...rows('SQLite', await measureInChild('sqlite')));
  if (dbs.includes('postgresql')) out.push(...rows('PostgreSQL', await measureInChild('postgresql')));
  return out;
}
