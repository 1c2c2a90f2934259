import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalLockText, diffLocks, diffSequence, lcsPairs, type PolicyLock } from '@/lib/domain';

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
  it('reports each leaf with path and precedence, keys in code-point order', () => {
    const to = lock({
      default_attributes: { nginx: { workers: 8, gzip: true, http2: true }, app: {} },
      override_attributes: { app: { flags: { beta: true } } },
    });
    const d = diffLocks(lock(), to);
    expect(d.attributes).toEqual([
      { kind: 'removed', precedence: 'default', path: ['app', 'release'], pathText: '[app][release]', from: '1' },
      { kind: 'added', precedence: 'default', path: ['nginx', 'http2'], pathText: '[nginx][http2]', to: true },
      { kind: 'changed', precedence: 'default', path: ['nginx', 'workers'], pathText: '[nginx][workers]', from: 4, to: 8 },
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

const SOURCES = [undefined, { path: 'cookbooks/x' }, { path: 'vendor/x' }, { git: 'https://example.com/x.git', revision: 'abc' }] as const;
/** A cookbook: version, identifier from a small set (so equal versions and identifiers with other sources happen), an optional source. */
const arbCookbook = fc.tuple(fc.nat(3), fc.nat(3), fc.nat(3), fc.constantFrom('i1', 'i2'), fc.nat(SOURCES.length - 1));
const arbLock = fc
  .record({
    cookbooks: fc.dictionary(fc.constantFrom('apt', 'ntp', 'nginx', 'app', 'base', 'sudo', 'mysql'), arbCookbook),
    // Repeated run-list items happen (chef-cli de-duplicates only what it composes; an uploaded lock may repeat).
    run: fc.array(fc.constantFrom('recipe[a::b]', 'recipe[c::d]', 'recipe[e::f]', 'recipe[g::h]', 'recipe[i::j]'), { maxLength: 8 }),
    attrs: fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.oneof(fc.integer(), fc.dictionary(fc.constantFrom('x', 'y'), fc.boolean()))),
    rev: fc.constantFrom('r1', 'r2'),
  })
  .map(
    ({ cookbooks, run, attrs, rev }): PolicyLock => ({
      name: 'p',
      revision_id: rev,
      run_list: run,
      cookbook_locks: Object.fromEntries(
        Object.entries(cookbooks).map(([k, [a, b, c, id, src]]) => [k, { version: `${a}.${b}.${c}`, identifier: id, ...(SOURCES[src] ? { source_options: SOURCES[src] } : {}) }]),
      ),
      default_attributes: attrs,
    }),
  );

/** A second lock derived from the first: per cookbook kept, moved to another source, re-versioned, re-identified or removed; another run list and attributes. */
const arbPair = fc.tuple(arbLock, arbLock, fc.array(fc.nat(5), { minLength: 7, maxLength: 7 })).map(([a, c, ops]): [PolicyLock, PolicyLock] => {
  const cookbook_locks: PolicyLock['cookbook_locks'] = {};
  Object.entries(a.cookbook_locks).forEach(([name, cb], i) => {
    const op = ops[i % ops.length];
    if (op === 1) cookbook_locks[name] = { ...cb, source_options: cb.source_options?.path === 'elsewhere' ? { path: 'elsewhere2' } : { path: 'elsewhere' } };
    else if (op === 2) cookbook_locks[name] = { ...cb, version: `${cb.version}1`, identifier: 'i9' };
    else if (op === 3) cookbook_locks[name] = { ...cb, identifier: cb.identifier === 'i1' ? 'i2' : 'i1' };
    else if (op !== 4) cookbook_locks[name] = cb;
  });
  for (const [name, cb] of Object.entries(c.cookbook_locks)) if (!(name in a.cookbook_locks)) cookbook_locks[name] = cb;
  return [a, { ...c, cookbook_locks }];
});

/** The same lock with every object's keys in another order (reversed), at every depth. */
function reorderKeys<T>(v: T): T {
  if (Array.isArray(v)) return v.map(reorderKeys) as T;
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).reverse()) out[k] = reorderKeys((v as Record<string, unknown>)[k]);
    return out as T;
  }
  return v;
}

/** Length of a longest common subsequence by brute force: every subsequence of `a`, longest first. */
function bruteLcs(a: string[], b: string[]): number {
  const isSub = (sub: string[]) => {
    let j = 0;
    for (const x of b) if (j < sub.length && sub[j] === x) j++;
    return j === sub.length;
  };
  let best = 0;
  for (let mask = 0; mask < 1 << a.length; mask++) {
    const sub = a.filter((_, i) => mask & (1 << i));
    if (sub.length > best && isSub(sub)) best = sub.length;
  }
  return best;
}

describe('diffLocks: properties', () => {
  it('the generator reaches source-only changes and repeated run-list items', () => {
    let sourceOnly = 0;
    let repeated = 0;
    fc.assert(
      fc.property(arbPair, ([a, b]) => {
        if (diffLocks(a, b).cookbooks.some((c) => c.kind === 'source_changed')) sourceOnly++;
        if (new Set(a.run_list).size < a.run_list.length) repeated++;
      }),
      { numRuns: 200 },
    );
    expect(sourceOnly).toBeGreaterThan(10);
    expect(repeated).toBeGreaterThan(50);
  });

  it('a change of source alone is reported as source_changed, naming the field, and nothing else', () => {
    fc.assert(
      fc.property(arbLock.filter((l) => Object.keys(l.cookbook_locks).length > 0), fc.nat(), (a, pick) => {
        const names = Object.keys(a.cookbook_locks);
        const name = names[pick % names.length];
        const b = structuredClone(a);
        const before = b.cookbook_locks[name].source_options as { path?: string } | undefined;
        b.cookbook_locks[name] = { ...b.cookbook_locks[name], source_options: { path: before?.path === 'elsewhere' ? 'elsewhere2' : 'elsewhere' } };
        const d = diffLocks(a, b);
        expect(d.cookbooks).toEqual([expect.objectContaining({ name, kind: 'source_changed', sourceFields: ['source_options'] })]);
        expect(d.summary.total).toBe(1);
      }),
    );
  });

  it('LCS: as long as a brute-force LCS, and a common subsequence, on small inputs with repeats (dynamic programming) or without', () => {
    let repeats = 0;
    const arbSeq = fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 9 });
    fc.assert(
      fc.property(arbSeq, arbSeq, (a, b) => {
        const pairs = lcsPairs(a, b);
        expect(pairs.length).toBe(bruteLcs(a, b));
        for (let k = 0; k < pairs.length; k++) {
          const [i, j] = pairs[k];
          expect(a[i]).toBe(b[j]);
          if (k) expect(i > pairs[k - 1][0] && j > pairs[k - 1][1]).toBe(true);
        }
        if (new Set(a).size < a.length || new Set(b).size < b.length) repeats++;
        // Every item is accounted for: kept, moved, removed or added.
        const changes = diffSequence(a, b);
        expect(changes.filter((c) => c.kind !== 'added').length + pairs.length).toBe(a.length);
        expect(changes.filter((c) => c.kind !== 'removed').length + pairs.length).toBe(b.length);
      }),
      { numRuns: 500 },
    );
    expect(repeats).toBeGreaterThan(250);
  });

  it('LCS without repeats (the longest-increasing-subsequence branch) matches brute force too', () => {
    const arbPerm = fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'), { maxLength: 8 });
    fc.assert(fc.property(arbPerm, arbPerm, (a, b) => lcsPairs(a, b).length === bruteLcs(a, b)), { numRuns: 300 });
  });

  it('a lock diffed with itself is empty', () => {
    fc.assert(
      fc.property(arbLock, (l) => {
        expect(diffLocks(l, l).identical).toBe(true);
      }),
    );
  });

  it('swapping sides swaps added/removed and upgraded/downgraded', () => {
    fc.assert(
      fc.property(arbPair, ([a, b]) => {
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
  it('is pretty JSON with sorted keys', () => {
    const a = canonicalLockText(lock());
    expect(a.split('\n')[1]).toBe('  "cookbook_locks": {');
    expect(JSON.parse(a)).toEqual(lock());
  });
});

describe('key order does not matter', () => {
  it('the fixed lock: reordered keys at every depth give the same text and the same diff', () => {
    const reordered = reorderKeys(lock());
    // Really reordered: the first keys differ at the top and inside.
    expect(Object.keys(reordered)[0]).not.toBe(Object.keys(lock())[0]);
    expect(Object.keys(reordered.cookbook_locks)).toEqual(Object.keys(lock().cookbook_locks).reverse());
    expect(canonicalLockText(reordered)).toBe(canonicalLockText(lock()));
    const other = lock({ run_list: ['recipe[app::default]'], default_attributes: { nginx: { workers: 8 } } });
    expect(diffLocks(reordered, other)).toEqual(diffLocks(lock(), other));
    expect(diffLocks(other, reorderKeys(other))).toMatchObject({ identical: true });
  });

  it('property: diffing reordered locks gives the diff of the original pair', () => {
    fc.assert(
      fc.property(arbPair, ([a, b]) => {
        expect(diffLocks(reorderKeys(a), reorderKeys(b))).toEqual(diffLocks(a, b));
        expect(canonicalLockText(reorderKeys(a))).toBe(canonicalLockText(a));
      }),
    );
  });
});
