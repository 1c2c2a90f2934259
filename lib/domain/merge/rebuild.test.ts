import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  asFetchedFromServer,
  carriedPaths,
  computeRevisionId,
  includeFor,
  mergePolicy,
  olderDependentCounts,
  ownPart,
  rebuildDependent,
  rebuildOrder,
  stageDependents,
  type CookbookLockEntry,
  type IncludedPolicy,
  type ParentPolicy,
  type PolicyLock,
  type RevisionIncludes,
} from '@/lib/domain';

const SERVER = 'http://127.0.0.1:34295/organizations/console';
const id = (s: string) => s.repeat(40).slice(0, 40);
const pathCb = (name: string, version: string, ident: string, dir = `../cookbooks/${name}`): CookbookLockEntry => ({ version, identifier: ident, source: dir, cache_key: null, scm_info: null, source_options: { path: dir } });

/** A lock as chef-cli builds it from a Policyfile of path cookbooks (no includes). */
function leaf(name: string, o: { run: string[]; cookbooks: Record<string, [string, string]>; deps?: Record<string, [string, string][]>; attrs?: Record<string, unknown>; named?: Record<string, string[]> }): PolicyLock {
  const parent: ParentPolicy = {
    name,
    run_list: o.run,
    ...(o.named ? { named_run_lists: o.named } : {}),
    cookbook_locks: Object.fromEntries(Object.entries(o.cookbooks).map(([n, [v, i]]) => [n, pathCb(n, v, i)])),
    default_attributes: o.attrs ?? {},
    override_attributes: {},
    solution_dependencies: { Policyfile: Object.keys(o.cookbooks).sort().map((n) => [n, '>= 0.0.0']), dependencies: Object.fromEntries(Object.entries(o.cookbooks).map(([n, [v]]) => [`${n} (${v})`, o.deps?.[n] ?? []])) },
  };
  const r = mergePolicy(parent, []);
  if (!r.ok) throw new Error(r.conflicts[0].message);
  const { included_policy_locks: _none, ...lock } = r.lock;
  return lock as PolicyLock;
}

const serverRef = (name: string, lock: PolicyLock, group = 'dev') => ({ name, source_options: { server: SERVER, policy_group: group, policy_name: name, policy_revision_id: lock.revision_id } });

/** A dependent as chef-cli builds it: its Policyfile's own part merged with server-fetched includes. */
function dependent(parent: ParentPolicy, includes: { name: string; lock: PolicyLock }[]): PolicyLock {
  const r = mergePolicy(parent, includes.map((i) => includeFor(serverRef(i.name, i.lock), i.lock)));
  if (!r.ok) throw new Error(r.conflicts[0].message);
  return r.lock;
}

const base1 = leaf('base', { run: ['recipe[basecb::default]'], cookbooks: { basecb: ['1.0.0', id('a')] }, attrs: { ntp: { servers: ['a'] }, tz: 'UTC' } });
const base2 = leaf('base', { run: ['recipe[basecb::default]', 'recipe[ntp::default]'], cookbooks: { basecb: ['1.1.0', id('b')], ntp: ['3.0.0', id('c')] }, attrs: { ntp: { servers: ['b'] }, tz: 'UTC' } });
const webParent: ParentPolicy = {
  name: 'webapp',
  run_list: ['recipe[web::default]'],
  named_run_lists: { deploy: ['recipe[web::deploy]'] },
  cookbook_locks: { web: pathCb('web', '0.1.0', id('d')) },
  default_attributes: { w: 2, ntp: { pool: true } },
  override_attributes: {},
  solution_dependencies: { Policyfile: [['web', '>= 0.0.0']], dependencies: { 'web (0.1.0)': [['basecb', '>= 1.0.0']] } },
};

describe('asFetchedFromServer: a server include as chef-cli writes its cookbooks', () => {
  it('gives the CachedCookbook entry chef-cli 5.6.24 wrote for basecb 1.1.0 fetched from the console', () => {
    const lock = leaf('base', { run: ['recipe[basecb::default]'], cookbooks: { basecb: ['1.1.0', '419d37d990992463b24b7fff38a0945164000f4c'] } });
    expect(asFetchedFromServer(lock, SERVER).cookbook_locks.basecb).toEqual({
      version: '1.1.0',
      identifier: '419d37d990992463b24b7fff38a0945164000f4c',
      dotted_decimal_identifier: '18468736685087012.28062060034078880.163077290987340',
      cache_key: 'basecb-419d37d990992463b24b7fff38a0945164000f4c',
      origin: SERVER,
      source_options: { chef_server_artifact: SERVER, identifier: '419d37d990992463b24b7fff38a0945164000f4c' },
    });
  });

  it('leaves an include of the console itself (compose: server "policy-console") as stored', () => {
    const inc = includeFor({ name: 'base', source_options: { server: 'policy-console', policy_name: 'base', policy_group: 'dev' } }, base1);
    expect(inc.lock).toBe(base1);
  });
});

describe('ownPart: a chef-cli lock taken apart', () => {
  it('finds the Policyfile’s own run lists, cookbooks, constraints and attributes', () => {
    const web = dependent(webParent, [{ name: 'base', lock: base1 }]);
    const r = ownPart(web, [includeFor(serverRef('base', base1), base1)]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.own.parent.run_list).toEqual(['recipe[web::default]']);
    expect(r.own.parent.named_run_lists).toEqual({ deploy: ['recipe[web::deploy]'] });
    expect(Object.keys(r.own.parent.cookbook_locks!)).toEqual(['web']);
    expect(r.own.parent.default_attributes).toEqual({ w: 2, ntp: { pool: true } });
    expect(r.own.parent.solution_dependencies).toEqual({ Policyfile: [['web', '>= 0.0.0']], dependencies: { 'web (0.1.0)': [['basecb', '>= 1.0.0']] } });
  });

  it('refuses a lock whose run list does not begin with its includes’ items', () => {
    const web = dependent(webParent, [{ name: 'base', lock: base1 }]);
    const r = ownPart({ ...web, run_list: [...web.run_list].reverse() }, [includeFor(serverRef('base', base1), base1)]);
    expect(r.ok).toBe(false);
  });
});

describe('rebuildDependent: the include re-resolved, nothing else re-solved', () => {
  const carried = [includeFor(serverRef('base', base1), base1)];
  const next = [includeFor(serverRef('base', base2), base2)];

  it('equals the merge of the Policyfile’s own part with the moved include (what chef update computes)', () => {
    const web = dependent(webParent, [{ name: 'base', lock: base1 }]);
    const r = rebuildDependent({ lock: web, carried, next });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const direct = dependent(webParent, [{ name: 'base', lock: base2 }]);
    expect(r.lock).toEqual(direct);
    expect(r.lock.revision_id).toBe(computeRevisionId(direct));
    expect(r.lock.included_policy_locks).toEqual([{ name: 'base', revision_id: base2.revision_id, source_options: next[0].source_options }]);
    expect(r.diff.cookbooks.map((c) => `${c.name}:${c.kind}`).sort()).toEqual(['basecb:upgraded', 'ntp:added']);
    expect(r.provenance.cookbooks.get('ntp')).toBe('base');
    expect(r.unchanged).toBe(false);
  });

  it('takes apart a diamond whose includes set the same array (chef-cli unions them: [x, x] | [x, x] is [x]) and rebuilds it', () => {
    const b1 = leaf('base', { run: ['recipe[basecb::default]'], cookbooks: { basecb: ['1.0.0', id('a')] }, attrs: { b: { list: [7, 7] } } });
    const b2 = leaf('base', { run: ['recipe[basecb::default]'], cookbooks: { basecb: ['1.1.0', id('b')] }, attrs: { c: 1 } });
    const midParent: ParentPolicy = { ...webParent, name: 'mid', named_run_lists: undefined, default_attributes: {} };
    const mid1 = dependent(midParent, [{ name: 'base', lock: b1 }]);
    const mid2 = dependent(midParent, [{ name: 'base', lock: b2 }]);
    const topParent: ParentPolicy = { name: 'top', run_list: ['recipe[top::default]'], cookbook_locks: { top: pathCb('top', '0.1.0', id('t')) }, default_attributes: {}, override_attributes: {}, solution_dependencies: { Policyfile: [['top', '>= 0.0.0']], dependencies: { 'top (0.1.0)': [] } } };
    const top1 = dependent(topParent, [{ name: 'base', lock: b1 }, { name: 'mid', lock: mid1 }]);
    expect((top1.default_attributes as any).b.list).toEqual([7]);
    const r = rebuildDependent({ lock: top1, carried: [includeFor(serverRef('base', b1), b1), includeFor(serverRef('mid', mid1), mid1)], next: [includeFor(serverRef('base', b2), b2), includeFor(serverRef('mid', mid2), mid2)] });
    if (!r.ok) throw new Error(JSON.stringify(r));
    expect(r.lock).toEqual(dependent(topParent, [{ name: 'base', lock: b2 }, { name: 'mid', lock: mid2 }]));
  });

  it('is unchanged when the include did not move', () => {
    const web = dependent(webParent, [{ name: 'base', lock: base1 }]);
    const r = rebuildDependent({ lock: web, carried, next: [null] });
    expect(r.ok && r.unchanged).toBe(true);
  });

  it('keeps run-list items chef-cli lists twice (the Policyfile spelled `basecb`, the include `recipe[basecb::default]`)', () => {
    const parent = { ...webParent, run_list: ['recipe[web::default]'] };
    const web = dependent(parent, [{ name: 'base', lock: base1 }]);
    const chefLike = { ...web, run_list: [...web.run_list, 'recipe[basecb::default]'] };
    chefLike.revision_id = computeRevisionId(chefLike);
    const r = rebuildDependent({ lock: chefLike, carried, next });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.lock.run_list).toEqual(['recipe[basecb::default]', 'recipe[ntp::default]', 'recipe[web::default]', 'recipe[basecb::default]']);
    expect(r.lock.revision_id).toBe(computeRevisionId(r.lock));
  });

  it('keeps the dependent’s own pin of a cookbook the include also pins (chef-cli: the Policyfile’s wins), with a warning', () => {
    const parent: ParentPolicy = { ...webParent, cookbook_locks: { ...webParent.cookbook_locks, ntp: pathCb('ntp', '2.0.0', id('e')) }, solution_dependencies: { Policyfile: [['ntp', '>= 0.0.0'], ['web', '>= 0.0.0']], dependencies: { 'ntp (2.0.0)': [], 'web (0.1.0)': [['basecb', '>= 1.0.0']] } } };
    const web = dependent(parent, [{ name: 'base', lock: base1 }]);
    const r = rebuildDependent({ lock: web, carried, next });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.lock.cookbook_locks.ntp.version).toBe('2.0.0');
    expect(r.warnings.map((w) => w.kind)).toEqual(['parent_cookbook_wins']);
  });

  it('lists a conflict (its own pin against the include’s constraint) and builds nothing', () => {
    const strict = leaf('base', { run: ['recipe[basecb::default]'], cookbooks: { basecb: ['2.0.0', id('f')] }, deps: { basecb: [] } });
    const parentPin = { ...webParent, solution_dependencies: { Policyfile: [['web', '>= 0.0.0']], dependencies: { 'web (0.1.0)': [['basecb', '~> 1.0']] } } } as ParentPolicy;
    const web2 = dependent(parentPin, [{ name: 'base', lock: base1 }]);
    const r = rebuildDependent({ lock: web2, carried, next: [includeFor(serverRef('base', strict), strict)] });
    expect(r.ok).toBe(false);
    if (r.ok || r.kind !== 'conflict') throw new Error('expected a conflict');
    expect(r.conflicts.map((c) => c.kind)).toEqual(['unsatisfied_constraint']);
    expect(r.conflicts[0].message).toMatch(/basecb ~> 1\.0/);
  });

  it('lists a conflict when the dependent pins a cookbook the moved include needs in another version', () => {
    const parent: ParentPolicy = { ...webParent, cookbook_locks: { ...webParent.cookbook_locks, ntp: pathCb('ntp', '2.0.0', id('e')) }, solution_dependencies: { Policyfile: [['ntp', '>= 0.0.0'], ['web', '>= 0.0.0']], dependencies: { 'ntp (2.0.0)': [], 'web (0.1.0)': [['basecb', '>= 1.0.0']] } } };
    const web = dependent(parent, [{ name: 'base', lock: base1 }]);
    const needs3 = leaf('base', { run: ['recipe[basecb::default]'], cookbooks: { basecb: ['1.2.0', id('g')], ntp: ['3.0.0', id('c')] }, deps: { basecb: [['ntp', '~> 3.0']] } });
    const r = rebuildDependent({ lock: web, carried, next: [includeFor(serverRef('base', needs3), needs3)] });
    if (r.ok || r.kind !== 'conflict') throw new Error('expected a conflict');
    expect(r.conflicts.map((c) => [c.kind, c.cookbook, c.sources])).toEqual([['unsatisfied_constraint', 'ntp', ['basecb 1.2.0 (from base)', 'webapp']]]);
  });

  it('lists an attribute the dependent sets that the moved include now sets otherwise', () => {
    const parent = { ...webParent, default_attributes: { w: 2, tz: 'UTC+1' } };
    const web = dependent(parent, [{ name: 'base', lock: leaf('base', { run: ['recipe[basecb::default]'], cookbooks: { basecb: ['1.0.0', id('a')] } }) }]);
    const noTz = leaf('base', { run: ['recipe[basecb::default]'], cookbooks: { basecb: ['1.0.0', id('a')] } });
    const r = rebuildDependent({ lock: web, carried: [includeFor(serverRef('base', noTz), noTz)], next });
    expect(r.ok).toBe(false);
    if (r.ok || r.kind !== 'conflict') throw new Error('expected a conflict');
    expect(r.conflicts.map((c) => c.path)).toEqual(['[tz]']);
  });

  it('uses the own part the console kept (a composed revision) instead of taking the lock apart', () => {
    const composedParent: ParentPolicy = { ...webParent, run_list: ['web'] };
    const inc = (l: PolicyLock): IncludedPolicy => ({ name: 'base', source_options: { server: 'policy-console', policy_name: 'base', policy_group: 'dev', policy_revision_id: l.revision_id }, lock: l });
    const m = mergePolicy(composedParent, [inc(base1)]);
    if (!m.ok) throw new Error('merge');
    const r = rebuildDependent({ lock: m.lock, own: composedParent, carried: [inc(base1)], next: [inc(base2)] });
    expect(r.ok).toBe(true);
    const direct = mergePolicy(composedParent, [inc(base2)]);
    if (!r.ok || !direct.ok) throw new Error('merge');
    expect(r.lock).toEqual(direct.lock);
  });

  it('refuses to take apart a lock that its own part and includes do not give back', () => {
    const web = dependent(webParent, [{ name: 'base', lock: base1 }]);
    const r = rebuildDependent({ lock: web, carried: [includeFor(serverRef('base', base2), base2)], next });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.kind).toBe('unreadable');
  });

  it('property: taking apart and rebuilding equals composing the own part with the new include, for parents that do not repeat the include', () => {
    const names = ['web', 'db', 'app', 'cache'];
    const arb = fc.record({
      cookbooks: fc.subarray(names, { minLength: 1 }),
      attrs: fc.dictionary(fc.constantFrom('p', 'q', 'r'), fc.oneof(fc.integer(), fc.string({ maxLength: 3 }))),
      named: fc.boolean(),
    });
    fc.assert(
      fc.property(arb, ({ cookbooks, attrs, named }) => {
        const parent: ParentPolicy = {
          name: 'dep',
          run_list: cookbooks.map((c) => `recipe[${c}::default]`),
          ...(named ? { named_run_lists: { '10': [`recipe[${cookbooks[0]}::x]`], deploy: ['recipe[basecb::default]'] } } : {}),
          cookbook_locks: Object.fromEntries(cookbooks.map((c) => [c, pathCb(c, '1.0.0', id(c[0]))])),
          default_attributes: attrs,
          override_attributes: {},
          solution_dependencies: { Policyfile: cookbooks.map((c) => [c, '>= 0.0.0'] as [string, string]).sort(), dependencies: Object.fromEntries(cookbooks.map((c) => [`${c} (1.0.0)`, []])) },
        };
        const before = dependent(parent, [{ name: 'base', lock: base1 }]);
        const r = rebuildDependent({ lock: before, carried, next });
        const direct = dependent(parent, [{ name: 'base', lock: base2 }]);
        return r.ok && r.lock.revision_id === direct.revision_id && JSON.stringify(r.lock) === JSON.stringify(direct);
      }),
      { numRuns: 100 },
    );
  });
});

describe('dependents at depth', () => {
  const ref = (policy: string, rev: string, group = 'dev') => ({ name: policy, revision_id: rev, source_options: { server: SERVER, policy_group: group, policy_name: policy, policy_revision_id: rev } });
  const node = (policy: string, revisionId: string, includes: ReturnType<typeof ref>[] = []): RevisionIncludes => ({ policy, revisionId, includes });
  const stored = [node('base', 'b1'), node('base', 'b2'), node('mid', 'm1', [ref('base', 'b1')]), node('mid', 'm2', [ref('base', 'b2')]), node('left', 'l1', [ref('base', 'b1')]), node('right', 'r1', [ref('base', 'b2')])];
  const lookup = (p: string, r: string) => stored.find((n) => n.policy === p && n.revisionId === r);

  it('follows included_policy_locks through stored revisions, a diamond giving one path per side', () => {
    const top = node('top', 't1', [ref('left', 'l1'), ref('right', 'r1')]);
    const paths = carriedPaths(top, 'base', lookup);
    expect(paths.map((p) => [p.via, p.revision_id])).toEqual([
      [['left'], 'b1'],
      [['right'], 'b2'],
    ]);
  });

  it('lists a stage’s dependents with the revision each carries and whether it is the stage’s', () => {
    const stage = new Map([
      ['base', node('base', 'b2')],
      ['mid', node('mid', 'm1', [ref('base', 'b1')])],
      ['top', node('top', 't1', [ref('mid', 'm1')])],
      ['fresh', node('fresh', 'f1', [ref('base', 'b2')])],
      ['other', node('other', 'o1')],
    ]);
    const deps = stageDependents(stage, 'base', 'b2', lookup);
    expect(deps.map((d) => [d.policy, d.depth, d.current, d.carries.map((c) => `${c.revision_id} via ${c.via.join('>') || '-'}`)])).toEqual([
      ['fresh', 1, true, ['b2 via -']],
      ['mid', 1, false, ['b1 via -']],
      ['top', 2, false, ['b1 via mid']],
    ]);
    expect(olderDependentCounts(stage, lookup).get('base')).toBe(2);
  });

  it('stops at a loop in stored locks and orders a rebuild (a loop is set apart)', () => {
    const loopA = node('a', 'a1', [ref('b', 'b1'), ref('base', 'b1')]);
    const loopB = node('b', 'b1', [ref('a', 'a1')]);
    const look = (p: string, r: string) => (p === 'a' ? loopA : p === 'b' && r === 'b1' ? loopB : lookup(p, r));
    expect(carriedPaths(loopB, 'base', look).map((p) => p.via)).toEqual([['a']]);
    const stage = new Map([
      ['a', loopA],
      ['b', loopB],
    ]);
    expect(olderDependentCounts(stage, look).get('a')).toBeUndefined();
    expect(rebuildOrder(new Map([['top', node('top', 't1', [ref('mid', 'm1')])], ['mid', node('mid', 'm1', [ref('base', 'b1')])], ['a', loopA], ['b', loopB]]))).toEqual({ order: ['mid', 'top'], cycle: ['a', 'b'] });
  });
});
