/**
 * Reads a V8 .cpuprofile (node --cpu-prof) and prints the top self-time functions and a per-module rollup,
 * so the numbers in a profiling note can be reproduced:
 *   npx tsx bench/profile-summary.ts <file.cpuprofile> [--top 30]
 * and, last, busy self time by kind of work (signature verification, lookups, JSON, logging, the front, Next…).
 * Self time is the sample count of a frame (not of its callees) times the sampling interval. Modules are
 * named by the script's path, folded to a package (node_modules/<pkg>), a project folder (lib/chef, …),
 * node's internals (node:*) or V8's own frames ((garbage collector), (program), (idle)).
 */
import fs from 'node:fs';

interface Frame { functionName: string; url: string; lineNumber: number }
interface Node { id: number; callFrame: Frame; hitCount?: number; children?: number[] }
interface Profile { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

export function moduleOf(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  if (url.startsWith('node:')) return url.replace(/^node:(internal\/)?/, 'node:').split('/').slice(0, 2).join('/');
  const u = url.replace(/^file:\/\//, '');
  const nm = u.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = u.slice(nm + 'node_modules/'.length).split('/');
    const pkg = rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
    // Next's compiled server bundles: name the chunk's kind, not the package alone.
    if (pkg === 'next') return `next/${rest.slice(1, 4).join('/')}`.replace(/\/[^/]*\.js$/, '');
    return pkg;
  }
  const dotNext = u.indexOf('/.next/');
  if (dotNext >= 0) return '.next (app bundle)';
  const m = /\/(lib\/[^/]+|scripts|bench|app|components)\//.exec(u);
  return m ? m[1] : u.split('/').slice(-2).join('/');
}

/** A frame's file, short: the path inside the project or the package (node_modules/<pkg>/…), or node's module. */
function fileOf(url: string): string {
  if (!url) return '';
  const u = url.replace(/^file:\/\//, '');
  const nm = u.lastIndexOf('node_modules/');
  if (nm >= 0) return u.slice(nm + 'node_modules/'.length).split('/').slice(0, 2).join('/') + '/…/' + u.split('/').pop();
  const m = /\/((?:lib|scripts|bench|app|components)\/.*)$/.exec(u);
  return m ? m[1] : u;
}

export function summarise(p: Profile, top = 30): string {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const counts = new Map<number, number>();
  for (const s of p.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
  const total = p.samples.length;
  const ms = (p.endTime - p.startTime) / 1000;
  const perSample = ms / Math.max(1, total);
  const fns = new Map<string, number>();
  const mods = new Map<string, number>();
  for (const [id, c] of counts) {
    const f = byId.get(id)!.callFrame;
    const mod = moduleOf(f.url, f.functionName);
    const key = `${f.functionName || '(anonymous)'}  ${fileOf(f.url) || mod}${f.url ? `:${f.lineNumber + 1}` : ''}`;
    fns.set(key, (fns.get(key) ?? 0) + c);
    mods.set(mod, (mods.get(mod) ?? 0) + c);
  }
  const busy = total - (mods.get('(idle)') ?? 0);
  const pct = (c: number) => ((100 * c) / total).toFixed(1).padStart(5);
  const pctBusy = (c: number, k = '') => (k.startsWith('(idle)') ? '    -' : ((100 * c) / Math.max(1, busy)).toFixed(1).padStart(5));
  const out: string[] = [];
  out.push(`${total} samples over ${(ms / 1000).toFixed(1)} s (${perSample.toFixed(3)} ms each); busy (not idle): ${((100 * busy) / Math.max(1, total)).toFixed(1)}% of samples`);
  out.push('', `top ${top} self-time functions   (% of all samples | % of busy samples)`);
  for (const [k, c] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, top)) out.push(`${pct(c)}% ${pctBusy(c, k)}%  ${k}`);
  out.push('', 'self time by module   (% of all samples | % of busy samples)');
  for (const [k, c] of [...mods].sort((a, b) => b[1] - a[1]).slice(0, top)) out.push(`${pct(c)}% ${pctBusy(c, k)}%  ${k}`);
  return out.join('\n');
}

/** The rollup the issue asks for (where each microsecond goes): a frame's kind of work, from its file and name. */
export function categoryOf(f: Frame): string {
  const u = f.url || '';
  const fn = f.functionName;
  if (fn === '(idle)') return 'idle';
  if (fn === '(garbage collector)') return 'garbage collector';
  if (/crypto\/cipher|crypto\/hash|chef\/signing|chef\/authn/.test(u)) return 'signature verification (RSA, SHA-1, signed headers, authn)';
  if (/chef-read-path|db\/url|db\/client|better-sqlite3/.test(u)) return 'SQLite statements and the read-path memo (keys, pointer, document)';
  if (/@prisma|wasm/.test(u)) return 'Prisma';
  if (/lib\/ops\/log/.test(u) || fn === 'writeBuffer') return 'logging';
  if (/lib\/ops|lib\/api\/early-guard/.test(u)) return 'the front (lib/ops: request id, context, metrics)';
  if (/async_hooks/.test(u)) return 'AsyncLocalStorage (promise hooks)';
  if (/lib\/chef/.test(u)) return 'Chef router and resources';
  if (/lib\/(services|domain|auth|db)/.test(u)) return 'services, domain, auth, queries';
  if (/\.next\/|node_modules\/next|undici|webstreams|abort_controller/.test(u)) return 'Next (and its Request/stream adapters)';
  if (/modules\/|tsx|source_map|bootstrap|cjs-module-lexer/.test(u) || ['readFileUtf8', 'readFileSync', 'internalModuleStat', 'fstat', 'openFileHandle', 'close', 'read'].includes(fn)) return 'start-up (module loading: the profile starts with the process)';
  if (/_http_|net|stream|events|buffer|timers/.test(u) || ['writev', 'writeUtf8String', 'writeLatin1String'].includes(fn)) return 'node:http and the socket';
  return 'other (native, microtasks, program)';
}

/** Busy self time by category (`categoryOf`), % of busy samples. */
export function categories(p: Profile): string {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const totals = new Map<string, number>();
  let busy = 0;
  for (const s of p.samples) {
    const k = categoryOf(byId.get(s)!.callFrame);
    totals.set(k, (totals.get(k) ?? 0) + 1);
    if (k !== 'idle') busy++;
  }
  return [...totals]
    .filter(([k]) => k !== 'idle')
    .sort((a, b) => b[1] - a[1])
    .map(([k, c]) => `${((100 * c) / Math.max(1, busy)).toFixed(1).padStart(5)}%  ${k}`)
    .join('\n');
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('profile-summary.ts')) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: tsx bench/profile-summary.ts <file.cpuprofile> [--top N]');
    process.exit(2);
  }
  const t = process.argv.indexOf('--top');
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  console.log(summarise(profile, t > 0 ? Number(process.argv[t + 1]) : 30));
  console.log('\nbusy self time by kind of work (% of busy samples)\n' + categories(profile));
}
