import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalLockText, diffLocks, diffSequence, type PolicyLock } from '@/lib/domain';

const lock = (over: Partial<PolicyLock> = {}): PolicyLock => ({
  name: 'app',
  revision_id: 'r1',
  run_list: ['recipe[base::default]', 'recipe[nginx::default]', 'recipe[app::default]'],
  cookbook_locks: {
    base: { version: '2.1.0', identifier: 'b1', source_options: { path: 'cookbooks/base' } },
    nginx: { version: '11.5.0', identifier: 'n1' },
    app: { version: '1.4.0', identifier: 'a1' },
  },
  default_attributes: { nginx: { workers: 4, gzip: true }, app: { release: '1' } },
  override_attributes: {},
  ...over,
});

describe('diffLocks: cookbooks', () => {
  const base = lock();
  const cases: [string, PolicyLock, object][] = [
    ['added', lock({ cookbook_locks: { ...base.cookbook_locks, ntp: { version: '3.7.0', identifier: 't1' } } }), { name: 'ntp', kind: 'added', to: { version: '3.7.0', identifier: 't1' } }],
    ['removed', lock({ cookbook_locks: { base: base.cookbook_locks.base, nginx: base.cookbook_locks.nginx } }), { name: 'app', kind: 'removed' }],
    ['major upgrade', lock({ cookbook_locks: { ...base.cookbook_locks, nginx: { version: '12.0.0', identifier: 'n2' } } }), { name: 'nginx', kind: 'upgraded', level: 'major' }],
    ['minor upgrade', lock({ cookbook_locks: { ...base.cookbook_locks, nginx: { version: '11.6.0', identifier: 'n2' } } }), { name: 'nginx', kind: 'upgraded', level: 'minor' }],
    ['patch upgrade', lock({ cookbook_locks: { ...base.cookbook_locks, nginx: { version: '11.5.1', identifier: 'n2' } } }), { name: 'nginx', kind: 'upgraded', level: 'patch' }],
    ['numeric, not lexical, versions', lock({ cookbook_locks: { ...base.cookbook_locks, nginx: { version: '11.10.0', identifier: 'n2' } } }), { name: 'nginx', kind: 'upgraded', level: 'minor' }],
    ['downgrade', lock({ cookbook_locks: { ...base.cookbook_locks, app: { version: '1.3.9', identifier: 'a0' } } }), { name: 'app', kind: 'downgraded', level: 'minor' }],
    ['content changed without a version bump', lock({ cookbook_locks: { ...base.cookbook_locks, app: { version: '1.4.0', identifier: 'a2' } } }), { name: 'app', kind: 'content_changed' }],
    [
      'source only',
      lock({ cookbook_locks: { ...base.cookbook_locks, base: { version: '2.1.0', identifier: 'b1', source_options: { path: 'vendor/base' } } } }),
      { name: 'base', kind: 'source_changed', sourceFields: ['source_options'] },
    ],
  ];
  it.each(cases)('%s', (_label, to, expected) => {
    const d = diffLocks(base, to);
    expect(d.cookbooks).toHaveLength(1);
    expect(d.cookbooks[0]).toMatchObject(expected);
    expect(d.identical).toBe(false);
  });

  it('counts every class in the summary', () => {
    const to = lock({
      cookbook_locks: {
        base: { version: '3.0.0', identifier: 'b3', source_options: { path: 'cookbooks/base' } },
        nginx: { version: '11.5.0', identifier: 'n9' },
        ntp: { version: '1.0.0', identifier: 't' },
      },
    });
    const s = diffLocks(base, to).summary.cookbooks;
    expect(s).toMatchObject({ added: 1, removed: 1, upgraded: 1, downgraded: 0, content_changed: 1, source_changed: 0, major: 1, unchanged: 0 });
  });
});

describe('diffLocks: run lists', () => {
  it('finds added, removed and moved items by LCS', () => {
    const to = lock({ run_list: ['recipe[nginx::default]', 'recipe[base::default]', 'recipe[app::deploy]'] });
    const d = diffLocks(lock(), to);
    expect(d.runList).toEqual(
      expect.arrayContaining([
        { kind: 'removed', item: 'recipe[app::default]', from: 2 },
        { kind: 'added', item: 'recipe[app::deploy]', to: 2 },
        expect.objectContaining({ kind: 'moved' }),
      ]),
    );
    expect(d.summary.runList).toEqual({ added: 1, removed: 1, moved: 1 });
  });

  it('does not report a shift as a move (not a naive index compare)', () => {
    const to = lock({ run_list: ['recipe[ntp::default]', 'recipe[base::default]', 'recipe[nginx::default]', 'recipe[app::default]'] });
    expect(diffLocks(lock(), to).runList).toEqual([{ kind: 'added', item: 'recipe[ntp::default]', to: 0 }]);
  });

  it('handles repeated items', () => {
    expect(diffSequence(['a', 'b', 'a'], ['a', 'a', 'b'])).toEqual([{ kind: 'moved', item: 'b', from: 1, to: 2 }]);
  });

  it('diffs named run lists per name', () => {
    const a = lock({ named_run_lists: { update: ['recipe[app::update]'], drain: ['recipe[nginx::drain]'] } });
    const b = lock({ named_run_lists: { update: ['recipe[app::update]', 'recipe[app::restart]'], deploy: ['recipe[app::deploy]'] } });
    const d = diffLocks(a, b);
    expect(d.namedRunLists.map((n) => [n.name, n.kind])).toEqual([
      ['deploy', 'added'],
      ['drain', 'removed'],
      ['update', 'changed'],
    ]);
  });
});

describe('diffLocks: attributes', () => {
  it('reports each leaf with path and precedence', () => {
    const to = lock({
      default_attributes: { nginx: { workers: 8, gzip: true, http2: true }, app: {} },
      override_attributes: { app: { flags: { beta: true } } },
    });
    const d = diffLocks(lock(), to);
    expect(d.attributes).toEqual([
      { kind: 'changed', precedence: 'default', path: ['nginx', 'workers'], pathText: '[nginx][workers]', from: 4, to: 8 },
      { kind: 'added', precedence: 'default', path: ['nginx', 'http2'], pathText: '[nginx][http2]', to: true },
      { kind: 'removed', precedence: 'default', path: ['app', 'release'], pathText: '[app][release]', from: '1' },
      { kind: 'added', precedence: 'override', path: ['app', 'flags', 'beta'], pathText: '[app][flags][beta]', to: true },
    ]);
    expect(d.summary.attributes).toEqual({ added: 2, removed: 1, changed: 1 });
  });

  it('treats arrays as leaves and an object against a scalar as a change', () => {
    const a = lock({ default_attributes: { ntp: { servers: ['a', 'b'] }, x: 1 } });
    const b = lock({ default_attributes: { ntp: { servers: ['b', 'a'] }, x: { y: 1 } } });
    expect(diffLocks(a, b).attributes.map((c) => [c.pathText, c.kind])).toEqual([
      ['[ntp][servers]', 'changed'],
      ['[x]', 'changed'],
    ]);
  });
});

describe('diffLocks: includes, dependencies, revision id', () => {
  it('reports include and dependency changes', () => {
    const a = lock({
      included_policy_locks: [{ name: 'base', revision_id: 'x1', source_options: { server: 'https://c' } }],
      solution_dependencies: { Policyfile: [['nginx', '>= 0.0.0']], dependencies: { 'nginx (11.5.0)': [] } },
    });
    const b = lock({
      revision_id: 'r2',
      included_policy_locks: [
        { name: 'base', revision_id: 'x2', source_options: { server: 'https://c' } },
        { name: 'mon', revision_id: 'm1', source_options: {} },
      ],
      solution_dependencies: { Policyfile: [['nginx', '~> 12.0']], dependencies: { 'nginx (12.0.0)': [], 'app (1.0.0)': [['nginx', '>= 1.0']] } },
    });
    const d = diffLocks(a, b);
    expect(d.includedPolicies.map((i) => [i.key, i.kind])).toEqual([
      ['base', 'changed'],
      ['mon', 'added'],
    ]);
    expect(d.solutionDependencies.map((i) => [i.key, i.kind])).toEqual([
      ['Policyfile: nginx', 'changed'],
      ['app depends on', 'added'],
    ]);
    expect(d.revisionId).toEqual({ from: 'r1', to: 'r2', changed: true });
  });

  it('says identical plainly', () => {
    const d = diffLocks(lock(), lock());
    expect(d.identical).toBe(true);
    expect(d.summary.total).toBe(0);
  });
});

const arbLock = fc
  .record({
    cookbooks: fc.dictionary(fc.constantFrom('apt', 'ntp', 'nginx', 'app', 'base', 'sudo', 'mysql'), fc.tuple(fc.nat(12), fc.nat(12), fc.nat(12), fc.constantFrom('i1', 'i2'))),
    run: fc.uniqueArray(fc.constantFrom('recipe[a::b]', 'recipe[c::d]', 'recipe[e::f]', 'recipe[g::h]', 'recipe[i::j]')),
    attrs: fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.oneof(fc.integer(), fc.dictionary(fc.constantFrom('x', 'y'), fc.boolean()))),
    rev: fc.constantFrom('r1', 'r2'),
  })
  .map(
    ({ cookbooks, run, attrs, rev }): PolicyLock => ({
      name: 'p',
      revision_id: rev,
      run_list: run,
      cookbook_locks: Object.fromEntries(Object.entries(cookbooks).map(([k, [a, b, c, id]]) => [k, { version: `${a}.${b}.${c}`, identifier: id }])),
      default_attributes: attrs,
    }),
  );

describe('diffLocks: properties', () => {
  it('a lock diffed with itself is empty', () => {
    fc.assert(
      fc.property(arbLock, (l) => {
        expect(diffLocks(l, l).identical).toBe(true);
      }),
    );
  });

  it('swapping sides swaps added/removed and upgraded/downgraded', () => {
    fc.assert(
      fc.property(arbLock, arbLock, (a, b) => {
        const ab = diffLocks(a, b);
        const ba = diffLocks(b, a);
        const flip: Record<string, string> = { added: 'removed', removed: 'added', upgraded: 'downgraded', downgraded: 'upgraded' };
        expect(ba.cookbooks.map((c) => [c.name, flip[c.kind] ?? c.kind, c.level])).toEqual(ab.cookbooks.map((c) => [c.name, c.kind, c.level]));
        expect(ba.summary.runList.added).toBe(ab.summary.runList.removed);
        expect(ba.summary.attributes.added).toBe(ab.summary.attributes.removed);
        expect(ba.summary.total).toBe(ab.summary.total);
      }),
    );
  });
});

describe('canonicalLockText', () => {
  it('is pretty JSON with sorted keys, stable under key order', () => {
    const a = canonicalLockText(lock());
    const b = canonicalLockText(JSON.parse(JSON.stringify(lock(), Object.keys(lock()).reverse())) as PolicyLock);
    expect(a).toBe(canonicalLockText(lock()));
    expect(a.split('\n')[1]).toBe('  "cookbook_locks": {');
    expect(b.length).toBeGreaterThan(0);
  });
});
