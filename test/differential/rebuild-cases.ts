/**
 * Issue 48, the differential cases of a dependents rebuild: a base policy and policies that include it from
 * the console (`include_policy "<name>", server: <console>, policy_group: "dev", policy_name: …`), directly or
 * through each other (depth 1–3, diamonds), then base moves. chef-cli's `chef update` (or `chef install` after
 * deleting the lock) of each dependent, in include order, must give the lock and revision id the console's
 * rebuild gives. Hand-written cases (the shapes the issue names) and seeded generated ones.
 */
import { cookbookFiles, num, obj, rubyString, rubyValue, type CookbookSpec } from './model';
import { rng, scalar, tree } from './generate';
import { orderedKeys } from '@/lib/domain';

export interface RebuildPolicy {
  /** The policy name (prefixed per case: the cases share one console). */
  name: string;
  /** Directory under the case's root. */
  dir: string;
  runList: string[];
  named: [string, string[]][];
  /** Path cookbooks (name, path relative to the policy's directory). */
  cookbooks: { name: string; path: string }[];
  /** Server includes from the console: include name, the policy it names, and pinned by revision id (of the case's policy as installed first) instead of policy_group. */
  includes: { name: string; policy: string; pinned?: boolean }[];
  default: Record<string, unknown>;
  override: Record<string, unknown>;
}

export interface RebuildCase {
  id: string;
  seed: number;
  tags: string[];
  cookbooks: CookbookSpec[];
  base: { before: RebuildPolicy; after: RebuildPolicy };
  /** In include order (a policy after those it includes). Other policies that are no dependents may be among them (kept includes). */
  dependents: RebuildPolicy[];
  /** `chef install` after deleting the lock instead of `chef update` for the dependents. */
  fresh: boolean;
  /** The one difference the console documents: a run-list item the Policyfile spells `x` that the moved include now lists too (chef-cli keeps both). */
  documentedDifference?: boolean;
}

/** The Policyfile.rb of a policy, its server includes pointing at `server` (the pinned ones at `pins[policy]`). */
export function rebuildPolicyfile(p: RebuildPolicy, server: string, pins: Record<string, string> = {}): string {
  const lines = [`name ${rubyString(p.name)}`];
  if (p.runList.length) lines.push(`run_list ${p.runList.map(rubyString).join(', ')}`);
  for (const [name, items] of p.named) lines.push(`named_run_list ${rubyString(name)}${items.length ? ', ' + items.map(rubyString).join(', ') : ''}`);
  for (const inc of p.includes) {
    const where = inc.pinned ? `policy_revision_id: ${rubyString(pins[inc.policy] ?? 'unknown')}` : `policy_group: "dev"`;
    lines.push(`include_policy ${rubyString(inc.name)}, server: ${rubyString(server)}, ${where}, policy_name: ${rubyString(inc.policy)}`);
  }
  for (const cb of p.cookbooks) lines.push(`cookbook ${rubyString(cb.name)}, path: ${rubyString(cb.path)}`);
  for (const k of orderedKeys(p.default)) lines.push(`default[${rubyString(k)}] = ${rubyValue(p.default[k])}`);
  for (const k of orderedKeys(p.override)) lines.push(`override[${rubyString(k)}] = ${rubyValue(p.override[k])}`);
  return lines.join('\n') + '\n';
}

/** Every cookbook file of a case, by path relative to the case root. */
export function rebuildCookbookFiles(c: RebuildCase): Record<string, string> {
  const files: Record<string, string> = {};
  for (const cb of c.cookbooks) for (const [f, text] of Object.entries(cookbookFiles(cb))) files[`cookbooks/${cb.dir}/${f}`] = text;
  return files;
}

export function describeRebuildCase(c: RebuildCase, server = '<console>'): string {
  const out = [`case ${c.id} (seed ${c.seed}; ${c.tags.join(', ') || 'plain'}; ${c.fresh ? 'chef install without the lock' : 'chef update'})`];
  out.push(`--- ${c.base.before.dir}/Policyfile.rb (before)\n${rebuildPolicyfile(c.base.before, server)}`);
  out.push(`--- ${c.base.after.dir}/Policyfile.rb (after)\n${rebuildPolicyfile(c.base.after, server)}`);
  for (const p of c.dependents) out.push(`--- ${p.dir}/Policyfile.rb\n${rebuildPolicyfile(p, server)}`);
  for (const cb of c.cookbooks) out.push(`--- cookbooks/${cb.dir}/metadata.rb\n${cookbookFiles(cb)['metadata.rb']}`);
  return out.join('\n');
}

const cb = (name: string, version: string, deps: [string, string][] = [], tag = ''): CookbookSpec => ({ dir: `${name}-${version}${tag}`, name, version, deps, recipes: ['default', 'extra'] });
const at = (c: CookbookSpec) => ({ name: c.name, path: `../cookbooks/${c.dir}` });
const pol = (name: string, o: Partial<RebuildPolicy>): RebuildPolicy => ({ name, dir: o.dir ?? name, runList: [], named: [], cookbooks: [], includes: [], default: obj([]), override: obj([]), ...o });

/** The shapes the issue names, written by hand. `n` makes the names unique in the shared console. */
export function handWrittenCases(): RebuildCase[] {
  const cases: RebuildCase[] = [];
  const make = (id: string, tags: string[], build: (p: string) => Omit<RebuildCase, 'id' | 'seed' | 'tags' | 'fresh'>, fresh = false) => cases.push({ id, seed: 0, tags, fresh, ...build(`${id}-`) });

  // A base that moves: basecb 1.0.0 → 1.1.0, ntp added, an attribute changed, its named run list grown.
  const baseCbs = (p: string) => {
    const ntp1 = cb('ntp', '1.0.0');
    const ntp2 = cb('ntp', '2.0.0');
    const basecb1 = cb('basecb', '1.0.0', [['ntp', '>= 1.0.0']]);
    const basecb2 = cb('basecb', '1.1.0', [['ntp', '>= 1.0.0']]);
    const before = pol(`${p}base`, { dir: 'base', runList: ['recipe[basecb::default]', 'ntp::default'], named: [['deploy', ['basecb::extra']]], cookbooks: [at(basecb1), at(ntp1)], default: obj([['tz', 'UTC'], ['ntp', obj([['servers', ['a.example']]])]]) });
    const after = { ...before, runList: ['recipe[basecb::default]', 'ntp::default', 'ntp::extra'], named: [['deploy', ['basecb::extra', 'ntp::extra']], ['nightly', ['ntp::default']]] as [string, string[]][], cookbooks: [at(basecb2), at(ntp2)], default: obj([['tz', 'UTC'], ['ntp', obj([['servers', ['b.example', 'c.example']]])], ['motd', 'moved']]) };
    return { cookbooks: [ntp1, ntp2, basecb1, basecb2], before, after };
  };
  const own = (p: string, name: string, deps: [string, string][] = []) => cb(`${p}${name}`, '0.1.0', deps);

  make('h-depth1', ['depth 1'], (p) => {
    const b = baseCbs(p);
    const web = own(p, 'web', [['basecb', '>= 1.0.0']]);
    return { cookbooks: [...b.cookbooks, web], base: b, dependents: [pol(`${p}webapp`, { runList: [`recipe[${web.name}::default]`], cookbooks: [at(web)], includes: [{ name: 'base', policy: b.before.name }], default: obj([['web', obj([['port', num('8080')]])]]) })] };
  });
  make('h-depth2', ['depth 2'], (p) => {
    const b = baseCbs(p);
    const mid = own(p, 'mid');
    const top = own(p, 'top');
    return {
      cookbooks: [...b.cookbooks, mid, top],
      base: b,
      dependents: [
        pol(`${p}mid`, { runList: [`${mid.name}::default`], cookbooks: [at(mid)], includes: [{ name: 'base', policy: b.before.name }], default: obj([['mid', true]]) }),
        pol(`${p}top`, { runList: [`${top.name}::default`], cookbooks: [at(top)], includes: [{ name: 'platform', policy: `${p}mid` }], default: obj([['top', num('1.5')]]) }),
      ],
    };
  }, true);
  make('h-depth3', ['depth 3'], (p) => {
    const b = baseCbs(p);
    const [a, c2, c3] = [own(p, 'a'), own(p, 'b'), own(p, 'c')];
    return {
      cookbooks: [...b.cookbooks, a, c2, c3],
      base: b,
      dependents: [
        pol(`${p}a`, { runList: [`${a.name}::default`], cookbooks: [at(a)], includes: [{ name: 'base', policy: b.before.name }] }),
        pol(`${p}b`, { runList: [`${c2.name}::default`], cookbooks: [at(c2)], includes: [{ name: 'a', policy: `${p}a` }] }),
        pol(`${p}c`, { runList: [`${c3.name}::default`], cookbooks: [at(c3)], includes: [{ name: 'b', policy: `${p}b` }], default: obj([['c', obj([['deep', num('1e15')]])]]) }),
      ],
    };
  });
  make('h-diamond', ['diamond'], (p) => {
    const b = baseCbs(p);
    const [l, r, t] = [own(p, 'left'), own(p, 'right'), own(p, 'top')];
    return {
      cookbooks: [...b.cookbooks, l, r, t],
      base: b,
      dependents: [
        pol(`${p}left`, { runList: [`${l.name}::default`], cookbooks: [at(l)], includes: [{ name: 'base', policy: b.before.name }], default: obj([['left', 'L']]) }),
        pol(`${p}right`, { runList: [`recipe[${r.name}::default]`, 'basecb::extra'], cookbooks: [at(r)], includes: [{ name: 'base', policy: b.before.name }], default: obj([['right', 'R']]) }),
        pol(`${p}top`, { runList: [`${t.name}::default`], cookbooks: [at(t)], includes: [{ name: 'left', policy: `${p}left` }, { name: 'right', policy: `${p}right` }] }),
      ],
    };
  }, true);
  make('h-direct-and-deep', ['diamond', 'depth 2'], (p) => {
    const b = baseCbs(p);
    const [m, t] = [own(p, 'mid'), own(p, 'top')];
    return {
      cookbooks: [...b.cookbooks, m, t],
      base: b,
      dependents: [
        pol(`${p}mid`, { runList: [`${m.name}::default`], cookbooks: [at(m)], includes: [{ name: 'base', policy: b.before.name }] }),
        pol(`${p}top`, { runList: [`${t.name}::default`], cookbooks: [at(t)], includes: [{ name: 'base', policy: b.before.name }, { name: 'mid', policy: `${p}mid` }] }),
      ],
    };
  });
  make('h-pin-kept', ['pins a cookbook the include pins'], (p) => {
    const b = baseCbs(p);
    const web = own(p, 'web');
    const myNtp = cb('ntp', '1.0.0', [], '-webapp');
    return {
      cookbooks: [...b.cookbooks, web, myNtp],
      base: b,
      dependents: [pol(`${p}webapp`, { runList: [`${web.name}::default`], cookbooks: [at(web), at(myNtp)], includes: [{ name: 'base', policy: b.before.name }] })],
    };
  });
  make('h-pin-conflict', ['pins a cookbook the include pins', 'conflict'], (p) => {
    const b = baseCbs(p);
    // The moved base's basecb needs ntp 2: the dependent's own ntp 1.0.0 can no longer serve.
    const basecb3 = cb('basecb', '1.2.0', [['ntp', '~> 2.0']]);
    const after = { ...b.after, cookbooks: [at(basecb3), b.after.cookbooks[1]] };
    const web = own(p, 'web');
    const myNtp = cb('ntp', '1.0.0', [], '-webapp');
    const other = own(p, 'other');
    return {
      cookbooks: [...b.cookbooks, basecb3, web, myNtp, other],
      base: { before: b.before, after },
      dependents: [
        pol(`${p}webapp`, { runList: [`${web.name}::default`], cookbooks: [at(web), at(myNtp)], includes: [{ name: 'base', policy: b.before.name }] }),
        pol(`${p}other`, { runList: [`${other.name}::default`], cookbooks: [at(other)], includes: [{ name: 'base', policy: b.before.name }] }),
      ],
    };
  });
  make('h-named', ['named run lists'], (p) => {
    const b = baseCbs(p);
    const web = own(p, 'web');
    return {
      cookbooks: [...b.cookbooks, web],
      base: b,
      dependents: [pol(`${p}webapp`, { runList: [`${web.name}::default`], named: [['deploy', [`${web.name}::extra`, 'basecb::extra']], ['10', [`${web.name}::default`]], ['web', [`${web.name}::extra`]]], cookbooks: [at(web)], includes: [{ name: 'base', policy: b.before.name }] })],
    };
  }, true);
  make('h-spelled-twice', ['run list spelled twice'], (p) => {
    const b = baseCbs(p);
    const web = own(p, 'web');
    // `basecb` is recipe[basecb] to chef-cli, not the include's recipe[basecb::default]: its lock lists it twice, and keeps doing so.
    return { cookbooks: [...b.cookbooks, web], base: b, dependents: [pol(`${p}webapp`, { runList: ['basecb', `${web.name}::default`], cookbooks: [at(web)], includes: [{ name: 'base', policy: b.before.name }] })] };
  });
  make('h-attribute-conflict', ['conflict', 'attributes'], (p) => {
    const b = baseCbs(p);
    const web = own(p, 'web');
    const after = { ...b.after, default: obj([['tz', 'UTC'], ['motd', 'moved'], ['web_port', num('80')]]) };
    return { cookbooks: [...b.cookbooks, web], base: { before: b.before, after }, dependents: [pol(`${p}webapp`, { runList: [`${web.name}::default`], cookbooks: [at(web)], includes: [{ name: 'base', policy: b.before.name }], default: obj([['web_port', num('8080')]]) })] };
  });
  make('h-other-include-kept', ['two includes, one moves'], (p) => {
    const b = baseCbs(p);
    const logcb = own(p, 'logcb');
    const web = own(p, 'web');
    return {
      cookbooks: [...b.cookbooks, logcb, web],
      base: b,
      dependents: [
        pol(`${p}logging`, { runList: [`${logcb.name}::default`], cookbooks: [at(logcb)], default: obj([['log', obj([['level', 'info']])]]) }),
        pol(`${p}webapp`, { runList: [`${web.name}::default`], cookbooks: [at(web)], includes: [{ name: 'logging', policy: `${p}logging` }, { name: 'base', policy: b.before.name }] }),
      ],
    };
  });
  make('h-pinned', ['pinned by revision id'], (p) => {
    const b = baseCbs(p);
    const web = own(p, 'web');
    return { cookbooks: [...b.cookbooks, web], base: b, dependents: [pol(`${p}webapp`, { runList: [`${web.name}::default`], cookbooks: [at(web)], includes: [{ name: 'base', policy: b.before.name, pinned: true }] })] };
  });
  // The console's one documented difference: the Policyfile spells `ntp`, the moved base now lists recipe[ntp::extra]…
  // chef-cli keeps both spellings of an item; the console lists a run-list item once (normalised first, as compose does).
  make('h-documented-difference', ['documented difference: normalise before de-duplicating'], (p) => {
    const b = baseCbs(p);
    const web = own(p, 'web');
    const before = { ...b.before, runList: ['recipe[basecb::default]'] };
    const after = { ...b.after, runList: ['recipe[basecb::default]', 'ntp::default'] };
    return { cookbooks: [...b.cookbooks, web], base: { before, after }, dependents: [pol(`${p}webapp`, { runList: [`${web.name}::default`, 'ntp'], cookbooks: [at(web)], includes: [{ name: 'base', policy: b.before.name }] })] };
  });
  cases.find((c) => c.id === 'h-documented-difference')!.documentedDifference = true;
  return cases;
}

/**
 * A seeded include graph: base with 1–3 cookbooks (versions bumped, one added or dropped when it moves), its
 * attributes and named run lists changed; 1–4 dependents, each including base and/or earlier dependents
 * (depth up to 3, diamonds), with cookbooks and attributes of their own; sometimes a dependent's own pin of a
 * base cookbook, sometimes a leaf whose attribute the moved base sets otherwise (a conflict).
 */
export function generateRebuildCase(seed: number, index: number): RebuildCase {
  const r = rng(seed);
  const p = `g${index}-`;
  const tags: string[] = [];
  const cookbooks: CookbookSpec[] = [];
  const add = (c: CookbookSpec) => (cookbooks.some((x) => x.dir === c.dir) || cookbooks.push(c), c);
  const names = r.sample(['basecb', 'ntp', 'users', 'apt'], r.int(1, 3));
  const before: CookbookSpec[] = [];
  for (const n of names) before.push(add(cb(n, `1.${r.int(0, 3)}.0`, before.length && r.chance(0.5) ? [[r.pick(before).name, '>= 1.0.0']] : [])));
  const after: CookbookSpec[] = before.map((c) => (r.chance(0.6) ? add({ ...c, dir: `${c.name}-2.${r.int(0, 2)}.0`, version: `2.${c.version.split('.')[1]}.0` }) : c));
  if (r.chance(0.4)) after.push(add(cb('extra', '1.0.0')));
  const items = (cbs: CookbookSpec[]) => cbs.map((c) => r.pick([`recipe[${c.name}::default]`, `${c.name}::default`, `${c.name}::extra`]));
  const baseRun = items(before);
  const baseAttrs = (): Record<string, unknown> => obj([[`b`, tree(r, 1, r.int(1, 3))], ...(r.chance(0.5) ? ([[`b2`, scalar(r)]] as [string, unknown][]) : [])]);
  const b1 = pol(`${p}base`, { dir: 'base', runList: baseRun, named: r.chance(0.5) ? [['deploy', items(before.slice(0, 1))]] : [], cookbooks: before.map(at), default: baseAttrs(), override: r.chance(0.3) ? obj([['o', scalar(r)]]) : obj([]) });
  const b2 = { ...b1, runList: [...baseRun, ...(after.length > before.length ? [`recipe[${after[after.length - 1].name}::default]`] : [])], named: r.chance(0.5) ? [['deploy', items(after.slice(0, 1))], ['nightly', items(after.slice(-1))]] as [string, string[]][] : b1.named, cookbooks: after.map(at), default: r.chance(0.8) ? baseAttrs() : b1.default };

  const deps: RebuildPolicy[] = [];
  const reaches = new Set<string>([b1.name]);
  const nDeps = r.int(1, 4);
  const depth = new Map<string, number>([[b1.name, 0]]);
  for (let i = 0; i < nDeps; i++) {
    const name = `${p}d${i}`;
    const own = add(cb(`${p}c${i}`, '0.1.0', r.chance(0.5) ? [[r.pick(before).name, '>= 0.0.0']] : []));
    const candidates = [b1.name, ...deps.map((d) => d.name)].filter((x) => (depth.get(x) ?? 0) < 3);
    const includes = r.sample(candidates, r.int(1, Math.min(2, candidates.length)));
    if (includes.length > 1) tags.push('diamond');
    const d = Math.max(...includes.map((x) => depth.get(x)!)) + 1;
    if (d > 1) tags.push(`depth ${d}`);
    depth.set(name, d);
    const cookbookRefs = [at(own)];
    if (r.chance(0.15)) {
      // Its own version of a base cookbook (chef-cli: the Policyfile's wins while every constraint holds).
      const pinned = r.pick(before);
      cookbookRefs.push(at(add({ ...pinned, dir: `${pinned.dir}-${p}d${i}` })));
      tags.push('own pin');
    }
    const run = [`${own.name}::default`, ...(r.chance(0.3) ? [`recipe[${before[0].name}::default]`] : [])];
    deps.push(pol(name, { runList: run, named: r.chance(0.3) ? [[r.pick(['deploy', `${p}own`]), [`${own.name}::extra`]]] : [], cookbooks: cookbookRefs, includes: includes.map((x) => ({ name: x === b1.name ? 'base' : x.slice(p.length), policy: x })), default: obj([[`d${i}`, tree(r, 1, r.int(0, 3))]]) }));
    if (includes.some((x) => reaches.has(x))) reaches.add(name);
  }
  // A leaf (no dependent of its own) that sets what the moved base now sets otherwise: a conflict.
  const leaves = deps.filter((d) => !deps.some((o) => o.includes.some((i) => i.policy === d.name)));
  if (r.chance(0.2) && leaves.length) {
    const leaf = r.pick(leaves);
    leaf.default = obj([...orderedKeys(leaf.default).map((k) => [k, leaf.default[k]] as [string, unknown]), ['clash', 'mine']]);
    b2.default = obj([...orderedKeys(b2.default).map((k) => [k, b2.default[k]] as [string, unknown]), ['clash', 'base']]);
    tags.push('conflict');
  }
  return { id: `g${index}`, seed, tags: [...new Set(tags)], cookbooks, base: { before: b1, after: b2 }, dependents: deps, fresh: r.chance(0.5) };
}

export { rebuildPolicyfile as policyfileOf };
