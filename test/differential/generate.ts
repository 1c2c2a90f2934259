/**
 * Seeded generators of Policyfiles and include_policy setups. The same seed always gives the same
 * case; a failure prints the seed and the case's files (describeCase).
 */
import { num, obj, type CookbookSpec, type DiffCase, type PolicySpec } from './model';

/** mulberry32: small, fast, good enough for test inputs. */
export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)];
  const chance = (p: number) => next() < p;
  const sample = <T>(xs: readonly T[], n: number): T[] => {
    const pool = [...xs];
    const out: T[] = [];
    while (out.length < n && pool.length) out.push(pool.splice(Math.floor(next() * pool.length), 1)[0]);
    return out;
  };
  return { next, int, pick, chance, sample };
}
type Rng = ReturnType<typeof rng>;

// ---- attribute values ----

const FLOATS = [
  '100000000000000.5', '12345678901234.25', '2.384185791015625e-07', '999999999999999.5', '0.5', '1.5', '2.5', '-2.5',
  '1.0e+15', '1e15', '1000000000000000.0', '1.0', '-0.0', '0.0', '0.1', '1.2', '3.14159265358979', '1.7976931348623157e+308',
  '5e-324', '1.0e-320', '2.2250738585072014e-308', '1.0e-05', '0.0001', '123456789012345.5', '1234567890123456.0',
  '9007199254740993.0', '1.0e+100', '-1.0e-100', '6.02214076e+23', '0.30000000000000004',
];
const INTS = ['0', '1', '-1', '7', '42', '9007199254740993', '-9007199254740993', '1000000000000000000000000000000', '999999999999999999999999999999', '-1000000000000000000000000000000', '1000000000000000', '18446744073709551616'];
const STRINGS = ['', 'plain', 'a "quoted" word', 'back\\slash', 'tab\there', 'new\nline', 'carriage\rreturn', 'nul-ish \u0001 \u001f', 'é', 'ключ', '日本語', '😀 emoji', 'mixed "\\\n\t é 😀', '#{not_interpolated}', "it's", '\u2028 line sep', '</script>', '{"json":1}', '1', '1.0'];
const KEYS = ['a', 'b', 'z', 'A', 'Z', '1', '10', '2', '_', 'a b', 'ключ', 'é', '😀', 'x.y', 'a-b', 'B', 'aa', 'ab'];

export function scalar(r: Rng): unknown {
  const k = r.int(0, 9);
  if (k <= 2) return num(r.pick(FLOATS));
  if (k <= 4) return num(r.pick(INTS));
  if (k <= 7) return r.pick(STRINGS);
  if (k === 8) return r.pick([true, false]);
  return null;
}

function array(r: Rng, depth: number): unknown[] {
  const n = r.int(0, 4);
  const out: unknown[] = [];
  for (let i = 0; i < n; i++) out.push(r.chance(0.15) && depth < 2 ? value(r, depth + 1) : scalar(r));
  if (out.length && r.chance(0.4)) out.push(out[r.int(0, out.length - 1)]); // duplicates
  return out;
}

function value(r: Rng, depth: number): unknown {
  const k = r.int(0, 9);
  if (k <= 4 || depth >= 3) return scalar(r);
  if (k <= 6) return array(r, depth);
  return tree(r, depth + 1, r.int(0, 3));
}

export function tree(r: Rng, depth: number, n: number): Record<string, unknown> {
  const keys = r.sample(KEYS, n);
  return obj(keys.map((k) => [k, value(r, depth)]));
}

// ---- cookbooks and run lists ----

const CB_NAMES = ['base', 'web', 'db', 'app', 'ntp', 'users', 'cache', 'mon'];
const NAMED = ['1', '10', '2', '0', 'b', 'a', 'z9', 'x.y', '_u', 'deploy'];

function runItem(r: Rng, cb: string): string {
  const recipe = r.pick(['default', 'default', 'extra']);
  const forms = recipe === 'default' ? [cb, `${cb}::default`, `recipe[${cb}]`, `recipe[${cb}::default]`, `${cb}@1.0.0`, `recipe[${cb}@2.1]`, `role[${cb}]`] : [`${cb}::extra`, `recipe[${cb}::extra]`];
  return r.pick(forms);
}

function runList(r: Rng, cbs: string[], max: number): string[] {
  if (!cbs.length) return [];
  // chef-cli refuses an empty run_list ("Invalid run_list. run_list cannot be empty"); the console allows one.
  const n = r.int(1, Math.max(1, max));
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(runItem(r, r.pick(cbs)));
  return out;
}

function namedLists(r: Rng, cbs: string[]): [string, string[]][] {
  if (!cbs.length) return [];
  return r.sample(NAMED, r.int(0, 3)).map((name) => [name, runList(r, cbs, 3)]);
}

function version(r: Rng): string {
  return `${r.int(0, 3)}.${r.int(0, 3)}.${r.int(0, 3)}`;
}

/** A constraint `version` meets (mostly) or misses (when `miss`). */
function constraintFor(r: Rng, v: string, miss = false): string {
  const [a, b, c] = v.split('.').map(Number);
  if (miss) return r.pick([`> ${v}`, `< ${v}`, `~> ${a + 1}.0`, `= ${a}.${b}.${c + 1}`]);
  return r.pick([`>= 0.0.0`, `~> ${a}.${b}`, `>= ${v}`, `= ${v}`, `~> ${a}.${b}.${c}`, `< ${a + 1}.0.0`, `>= ${a}.0`]);
}

/** Cookbooks with distinct names, dependencies only on earlier ones (a DAG), constraints they meet. */
function cookbookSet(r: Rng, names: string[], prefix: string): CookbookSpec[] {
  const out: CookbookSpec[] = [];
  for (const name of names) {
    const v = version(r);
    const deps = r.sample(out, r.int(0, Math.min(2, out.length))).map((d) => [d.name, constraintFor(r, d.version)] as [string, string]);
    out.push({ dir: `${prefix}${name}-${v}`, name, version: v, deps, recipes: ['default', 'extra'] });
  }
  return out;
}

/** Every cookbook `roots` depend on, transitively (a Policyfile must declare them all: path sources only). */
function closure(all: CookbookSpec[], roots: CookbookSpec[]): CookbookSpec[] {
  const seen = new Map<string, CookbookSpec>();
  const visit = (cb: CookbookSpec) => {
    if (seen.has(cb.name)) return;
    seen.set(cb.name, cb);
    for (const [d] of cb.deps) {
      const dep = all.find((x) => x.name === d);
      if (dep) visit(dep);
    }
  };
  roots.forEach(visit);
  return [...seen.values()];
}

const relTo = (fromDir: string, cbDir: string) => {
  const depth = fromDir === '.' ? 0 : fromDir.split('/').length;
  return `${'../'.repeat(depth)}cookbooks/${cbDir}`;
};

/** One Policyfile with path cookbooks, run lists, named run lists and awkward attributes. */
export function generatePolicy(seed: number, index: number): DiffCase {
  const r = rng(seed);
  const cbs = cookbookSet(r, r.sample(CB_NAMES, r.int(1, 4)), '');
  const used = closure(cbs, r.sample(cbs, r.int(1, cbs.length)));
  const names = used.map((c) => c.name);
  const policy: PolicySpec = {
    name: `pol${index}`,
    dir: '.',
    runList: runList(r, names, 5),
    named: namedLists(r, names),
    cookbooks: r.sample(used, used.length).map((c) => ({ name: c.name, path: relTo('.', c.dir), ...(r.chance(0.3) ? { constraint: constraintFor(r, c.version) } : {}) })),
    includes: [],
    default: tree(r, 0, r.int(0, 6)),
    override: tree(r, 0, r.int(0, 3)),
  };
  return { id: `policy-${seed}`, seed, kind: 'policy', tags: [], cookbooks: cbs, policies: [policy] };
}

/**
 * An include_policy setup: 1–3 included locks (in directories at different depths, so the same
 * cookbook is reached through different relative paths), overlapping cookbooks, attributes drawn
 * from a small shared key space (agreeing or conflicting), and sometimes a clash: another version
 * of a shared cookbook, the parent's own version of an included cookbook, a dependency the merged
 * versions cannot meet, a run list naming a cookbook nothing locks.
 */
export function generateIncludeSetup(seed: number, index: number): DiffCase {
  const r = rng(seed);
  const tags: string[] = [];
  const universe = cookbookSet(r, r.sample(CB_NAMES, r.int(2, 5)), '');
  const cookbooks = [...universe];
  const parentDir = r.pick(['.', '.', 'app']);
  const incDirs = r.sample(['inc_a', 'sub/inc_b', 'x/y/inc_c', 'inc_d'], 3);
  const nIncludes = r.int(1, 3);

  // Shared attribute material: includes and parent pick from the same leaves so they agree often.
  const sharedLeaves: [string, unknown][] = r.sample(KEYS, 4).map((k) => [k, value(r, 1)]);
  const attrs = (tag: string): Record<string, unknown> => {
    const entries: [string, unknown][] = [];
    for (const [k, v] of sharedLeaves) {
      if (!r.chance(0.5)) continue;
      const roll = r.next();
      if (roll < 0.86) entries.push([k, v]); // agree
      else if (roll < 0.91) entries.push([k, value(r, 1)]); // likely conflict
      else if (roll < 0.96) entries.push([k, obj([])]); // an empty object against a leaf
      else entries.push([k, obj([[r.pick(KEYS), scalar(r)]])]); // an object against a leaf
    }
    // Keys of this source alone (suffixed), so that most conflicts come from the shared leaves above.
    for (const [k, v] of Object.entries(tree(r, 1, r.int(0, 2)))) entries.push([`${k}${tag}`, v]);
    return obj(entries);
  };
  const nearTwins = (v: unknown): unknown => {
    // 1 vs 1.0, 0.0 vs -0.0, arrays with duplicates: equal for Ruby's ==, different for eql?.
    if (r.chance(0.5)) return v;
    return r.pick([num('1'), num('1.0'), num('0.0'), num('-0.0'), [num('1'), num('1'), num('2')], [num('1.0')], [num('1')]]);
  };

  const policies: PolicySpec[] = [];
  const includeRefs: { name: string; path: string; dir: string }[] = [];
  for (let i = 0; i < nIncludes; i++) {
    const dir = incDirs[i];
    let own = closure(universe, r.sample(universe, r.int(1, Math.min(3, universe.length))));
    const leaves = own.filter((c) => !own.some((o) => o.deps.some(([d]) => d === c.name)));
    if (r.chance(0.12) && leaves.length) {
      // Another version of a cookbook another include may lock: "Multiple versions".
      const victim = r.pick(leaves);
      const v2 = `${Number(victim.version.split('.')[0]) + 1}.0.0`;
      const twin: CookbookSpec = { ...victim, dir: `${victim.name}-${v2}`, version: v2 };
      if (!cookbooks.some((c) => c.dir === twin.dir)) cookbooks.push(twin);
      own = own.map((c) => (c === victim ? twin : c));
      tags.push('other-version');
    }
    if (i > 0 && r.chance(0.1)) {
      // The same cookbook and version from another directory, maybe with other dependencies (a fork):
      // "Conflicting sources" or "Conflicting dependencies" against an earlier include.
      const prevNames = policies[0].cookbooks.map((c) => c.name);
      const forkOf = cookbooks.find((c) => prevNames.includes(c.name) && policies[0].cookbooks.some((p) => p.path.endsWith(`cookbooks/${c.dir}`)));
      if (forkOf && !forkOf.deps.length) {
        // Sometimes the fork depends on a cookbook that depends back on it: chef-cli refuses the cycle.
        const fork: CookbookSpec = { ...forkOf, dir: `${forkOf.dir}-fork${i}`, deps: r.chance(0.5) ? [] : [[r.pick(universe.filter((u) => u.name !== forkOf.name)).name, '>= 0.0.0']] };
        if (fork.deps.length && !own.some((c) => c.name === fork.deps[0][0])) own = closure(universe, [...own, universe.find((u) => u.name === fork.deps[0][0])!]);
        cookbooks.push(fork);
        own = [...own.filter((c) => c.name !== fork.name), fork];
        tags.push('fork');
      }
    }
    const names = own.map((c) => c.name);
    const def = attrs(`_${i}`);
    if (r.chance(0.3)) def['twin'] = nearTwins(num('1'));
    policies.push({
      name: `inc${index}_${i}`,
      dir,
      runList: runList(r, names, 3),
      named: namedLists(r, names),
      cookbooks: own.map((c) => ({ name: c.name, path: relTo(dir, c.dir) })),
      includes: [],
      default: def,
      override: r.chance(0.3) ? attrs(`_${i}`) : obj([]),
    });
    if (i > 0 && r.chance(0.2)) {
      // Nested: this include includes the first one (its lock then carries the first one's cookbooks, pinned).
      policies[i].includes = [{ name: 'nested', path: relPath(dir, `${incDirs[0]}/Policyfile.lock.json`), dir: incDirs[0] }];
      tags.push('nested-include');
    }
    includeRefs.push({ name: r.pick([`inc${i}`, `i_${i}`, `${i}`]), path: relPath(parentDir, `${dir}/Policyfile.lock.json`), dir });
  }

  // The parent: its own cookbooks (maybe overlapping the includes'), its run lists, attributes.
  const includedNames = [...new Set(policies.flatMap((p) => p.cookbooks.map((c) => c.name)))];
  const pool = universe.filter((c) => r.chance(0.4));
  let own = pool.length ? closure(universe, pool) : [];
  if (r.chance(0.15) && includedNames.length) {
    // The parent's own version of an included cookbook: chef-cli lets the parent's win.
    const name = r.pick(includedNames);
    const base = universe.find((c) => c.name === name)!;
    const v2 = `${Number(base.version.split('.')[0])}.${Number(base.version.split('.')[1]) + 1}.0`;
    const mine: CookbookSpec = { ...base, dir: `${name}-${v2}-parent`, version: v2 };
    cookbooks.push(mine);
    own = [...own.filter((c) => c.name !== name), mine];
    tags.push('parent-version');
  }
  if (r.chance(0.15) && includedNames.length) {
    // A parent cookbook depending on an included cookbook with a constraint its version misses.
    const targetName = r.pick(includedNames);
    const target = universe.find((c) => c.name === targetName)!;
    const clash: CookbookSpec = { dir: 'clash-1.0.0', name: 'clash', version: '1.0.0', deps: [[target.name, constraintFor(r, target.version, r.chance(0.6))]], recipes: ['default', 'extra'] };
    cookbooks.push(clash);
    own = [...own, clash];
    tags.push('dependency-clash');
  }
  const ownNames = own.map((c) => c.name);
  const runnable = [...new Set([...ownNames, ...(r.chance(0.7) || !ownNames.length ? includedNames : [])])];
  if (r.chance(0.05)) {
    runnable.push('ghost');
    tags.push('missing-cookbook');
  }
  const parentAttrs = attrs('_p');
  if (r.chance(0.3)) parentAttrs['twin'] = nearTwins(num('1.0'));
  policies.push({
    name: `parent${index}`,
    dir: parentDir,
    runList: runList(r, runnable, 4),
    named: namedLists(r, runnable),
    cookbooks: own.map((c) => ({ name: c.name, path: relTo(parentDir, c.dir) })),
    includes: includeRefs,
    default: parentAttrs,
    override: r.chance(0.3) ? attrs('_p') : obj([]),
  });
  // A ghost cookbook has no directory: chef-cli cannot find it, the console finds it unlocked.
  return { id: `include-${seed}`, seed, kind: 'include', tags, cookbooks, policies };
}

/** `to` (relative to the root) as seen from directory `fromDir` (relative to the root). */
function relPath(fromDir: string, to: string): string {
  if (fromDir === '.') return to;
  return '../'.repeat(fromDir.split('/').length) + to;
}
