import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fixtureJson } from '@/test/fixtures';
import { computeRevisionId, mergePolicy, normalizeRunListItem, provenanceToJson, validateLock, type IncludedPolicy, type ParentPolicy, type PolicyLock } from '@/lib/domain';

type Case = {
  id: string;
  parent: ParentPolicy;
  includes: IncludedPolicy[];
  expect: {
    ok: boolean;
    run_list?: string[];
    named_run_lists?: Record<string, string[]>;
    default_attributes?: object;
    override_attributes?: object;
    cookbooks?: Record<string, string>;
    included_policy_locks?: { name: string; revision_id: string }[];
    conflicts?: { kind: string; path?: string; precedence?: string; cookbook?: string; sources: string[] }[];
  };
};
const cases = fixtureJson<{ cases: Case[] }>('merge-cases.json').cases;

describe('mergePolicy: fixture cases', () => {
  it.each(cases.map((c) => [c.id, c] as const))('%s', (_id, c) => {
    const r = mergePolicy(c.parent, c.includes);
    expect(r.ok).toBe(c.expect.ok);
    if (r.ok) {
      const e = c.expect;
      if (e.run_list) expect(r.lock.run_list).toEqual(e.run_list);
      if (e.named_run_lists) expect(r.lock.named_run_lists).toEqual(e.named_run_lists);
      if (e.default_attributes) expect(r.lock.default_attributes).toEqual(e.default_attributes);
      if (e.override_attributes) expect(r.lock.override_attributes).toEqual(e.override_attributes);
      if (e.cookbooks) expect(Object.fromEntries(Object.entries(r.lock.cookbook_locks).map(([k, v]) => [k, v.version]))).toEqual(e.cookbooks);
      if (e.included_policy_locks) expect(r.lock.included_policy_locks!.map(({ name, revision_id }) => ({ name, revision_id }))).toEqual(e.included_policy_locks);
      expect(r.lock.revision_id).toBe(computeRevisionId(r.lock));
      expect(validateLock(r.lock).ok).toBe(true);
    } else {
      expect(
        r.conflicts.map((x) => ({ kind: x.kind, ...(x.path ? { path: x.path } : {}), ...(x.precedence ? { precedence: x.precedence } : {}), ...(x.cookbook ? { cookbook: x.cookbook } : {}), sources: [...x.sources].sort() })),
      ).toEqual(c.expect.conflicts!.map((x) => ({ ...x, sources: [...x.sources].sort() })));
      for (const x of r.conflicts) expect(x.message.length).toBeGreaterThan(10);
    }
  });
});

const inc = (name: string, lock: Partial<PolicyLock>): IncludedPolicy => ({
  name,
  source_options: { path: `${name}.lock.json` },
  lock: { name, revision_id: `${name}-rev`, run_list: [], cookbook_locks: {}, default_attributes: {}, override_attributes: {}, ...lock },
});

describe('mergePolicy: console rules', () => {
  it('normalises shorthand before de-duplicating', () => {
    expect(normalizeRunListItem('nginx')).toBe('recipe[nginx::default]');
    expect(normalizeRunListItem('nginx::repo')).toBe('recipe[nginx::repo]');
    expect(normalizeRunListItem('recipe[nginx]')).toBe('recipe[nginx::default]');
    const r = mergePolicy({ name: 'app', run_list: ['nginx', 'app::deploy'], cookbook_locks: { app: { version: '1.0.0', identifier: 'a1' } } }, [
      inc('web', { run_list: ['recipe[nginx::default]'], cookbook_locks: { nginx: { version: '2.0.0', identifier: 'n2' } } }),
    ]);
    expect(r.ok && r.lock.run_list).toEqual(['recipe[nginx::default]', 'recipe[app::deploy]']);
    if (r.ok) expect(provenanceToJson(r.provenance).runList).toEqual({ 'recipe[nginx::default]': 'web', 'recipe[app::deploy]': 'app' });
  });

  it('parses run-list items like chef-cli and names the field of one it refuses', () => {
    expect(normalizeRunListItem('x@1.0')).toBe('recipe[x::default]');
    expect(normalizeRunListItem('recipe[x@1.0.0]')).toBe('recipe[x::default]');
    expect(normalizeRunListItem('recipe[x::y@1.0.0]')).toBe('recipe[x::y]');
    expect(normalizeRunListItem('role[x]')).toBe('recipe[x::default]');
    expect(() => normalizeRunListItem('Recipe[x]')).toThrow(/recipe\[NAME\] or role\[NAME\]/);
    expect(() => normalizeRunListItem('x::')).toThrow(/invalid recipe name/);
    const r = mergePolicy({ name: 'app', run_list: ['x'], named_run_lists: { 'a/b': ['x', 'y:z'] }, cookbook_locks: { x: { version: '1.0.0', identifier: 'x1' } } }, []);
    expect(!r.ok && r.conflicts.map((c) => [c.kind, c.field])).toEqual([['invalid_run_list_item', '/named_run_lists/a~1b/1']]);
  });

  it('reports every conflict, an object against a scalar too, with both values', () => {
    const r = mergePolicy({ name: 'app', run_list: [], default_attributes: { a: 1, b: { c: 1 } } }, [inc('x', { default_attributes: { a: 2, b: 'flat' } })]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.conflicts.map((c) => [c.path, c.values])).toEqual([
      ['[a]', [1, 2]],
      ['[b]', [{ c: 1 }, 'flat']],
    ]);
  });

  it('compares identifiers, dependencies, duplicate names and the parent constraints', () => {
    const r = mergePolicy({ name: 'app', run_list: [], solution_dependencies: { Policyfile: [['ntp', '~> 3.8']] } }, [
      inc('a', { cookbook_locks: { apt: { version: '1.0.0', identifier: 'x' }, ntp: { version: '3.7.0', identifier: 'n' } } }),
      inc('b', { cookbook_locks: { apt: { version: '1.0.0', identifier: 'y' } } }),
      inc('b', {}),
    ]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.conflicts.map((c) => c.kind).sort()).toEqual(['cookbook_identifier', 'duplicate_include', 'unsatisfied_constraint']);
    if (!r.ok) expect(r.conflicts.find((c) => c.kind === 'unsatisfied_constraint')!.message).toBe('app requires ntp ~> 3.8, but a pins ntp = 3.7.0');
  });

  it('reports one self-include once, even when its lock also names the policy among its includes', () => {
    const self = inc('me', { name: 'app', included_policy_locks: [{ name: 'app', revision_id: 'r0', source_options: {} }] } as Partial<PolicyLock>);
    const r = mergePolicy({ name: 'app', run_list: [] }, [self]);
    expect(!r.ok && r.conflicts.filter((c) => c.kind === 'include_cycle')).toEqual([expect.objectContaining({ sources: ['me'], message: 'Include cycle: app → me → app' })]);
  });

  it('follows nested includes through the lookup it is given (server includes by policy_name)', () => {
    const mid: PolicyLock = { name: 'mid', revision_id: 'm1', run_list: [], cookbook_locks: {}, included_policy_locks: [{ name: 'x', revision_id: 'a1', source_options: { policy_name: 'app' } }] };
    const top = inc('top', { included_policy_locks: [{ name: 'mid', revision_id: 'm1', source_options: { policy_name: 'mid' } }] });
    expect(mergePolicy({ name: 'app', run_list: [] }, [top]).ok).toBe(true); // nothing to follow without the lookup
    const r = mergePolicy({ name: 'app', run_list: [] }, [top], { lookup: (p, rev) => (p === 'mid' && rev === 'm1' ? mid : undefined) });
    expect(!r.ok && r.conflicts).toEqual([expect.objectContaining({ kind: 'include_cycle', sources: ['top'], message: 'Include cycle: app → top → mid → app' })]);
  });

  it('detects an include of itself as a cycle', () => {
    const r = mergePolicy({ name: 'app', run_list: [] }, [inc('base', { included_policy_locks: [{ name: 'app', revision_id: 'r', source_options: {} }] })]);
    expect(!r.ok && r.conflicts[0]).toMatchObject({ kind: 'include_cycle', message: 'Include cycle: app → base → app' });
  });
});

// No empty objects: a leaf then `{}` is accepted by chef-cli (the `{}` wins) while `{}` then a leaf is a
// conflict, so only trees without empty objects are order-independent.
const arbTree = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), fc.oneof(fc.integer(), fc.dictionary(fc.constantFrom('x', 'y'), fc.integer(), { minKeys: 1 })), { maxKeys: 3 });
const arbParent = fc.record({ run: fc.uniqueArray(fc.constantFrom('a', 'b::c', 'recipe[d::e]')), def: arbTree, cbs: fc.dictionary(fc.constantFrom('p1', 'p2'), fc.nat(9)) }).map(
  ({ run, def, cbs }): ParentPolicy => ({
    name: 'parent',
    run_list: run,
    default_attributes: def,
    override_attributes: {},
    // Every run-list cookbook is locked: a merge result must be self-consistent.
    cookbook_locks: Object.fromEntries(Object.entries({ a: 0, b: 0, d: 0, ...cbs }).map(([k, v]) => [k, { version: `1.0.${v}`, identifier: `${k}${v}` }])),
  }),
);

/** Leaves as "path=value" strings. */
function leaves(t: unknown, prefix = ''): string[] {
  if (t && typeof t === 'object' && !Array.isArray(t)) return Object.entries(t).flatMap(([k, v]) => leaves(v, `${prefix}[${k}]`));
  return [`${prefix}=${JSON.stringify(t)}`];
}

describe('mergePolicy: properties', () => {
  it('merging with no includes returns the parent content', () => {
    fc.assert(
      fc.property(arbParent, (p) => {
        const r = mergePolicy(p, []);
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        expect(r.lock.run_list).toEqual(p.run_list.map(normalizeRunListItem));
        expect(r.lock.default_attributes).toEqual(p.default_attributes);
        expect(r.lock.cookbook_locks).toEqual(p.cookbook_locks);
      }),
    );
  });

  // Conflict-free by construction: the parent, each include and what the includes share use separate top-level
  // keys, except `shared` (identical in both includes) and `deep` (each include adds its own sub-key).
  const tree = (keys: string[]) => fc.dictionary(fc.constantFrom(...keys), fc.oneof(fc.integer(), fc.dictionary(fc.constantFrom('x', 'y'), fc.integer(), { minKeys: 1 })), { maxKeys: 2 });
  const arbDisjoint = fc.record({
    p: arbParent.map((p) => ({ ...p, default_attributes: Object.fromEntries(Object.entries(p.default_attributes ?? {}).map(([k, v]) => [`p${k}`, v])) })),
    t1: tree(['e', 'f']),
    t2: tree(['g', 'h']),
    shared: tree(['s']),
    d1: fc.integer(),
    d2: fc.integer(),
  });
  const includes = (t1: Record<string, unknown>, t2: Record<string, unknown>) => {
    const shared = { version: '1.0.0', identifier: 's' };
    return [
      inc('one', { run_list: ['recipe[one::default]', 'recipe[shared::default]'], default_attributes: t1, cookbook_locks: { one: { version: '1.0.0', identifier: 'o' }, shared } }),
      inc('two', { run_list: ['recipe[shared::default]', 'recipe[two::default]'], default_attributes: t2, cookbook_locks: { two: { version: '2.0.0', identifier: 't' }, shared } }),
    ];
  };

  it('include order changes nothing but run-list order; a conflict-free merge contains every input leaf (every run reaches the assertions)', () => {
    let checked = 0;
    fc.assert(
      fc.property(arbDisjoint, ({ p, t1, t2, shared, d1, d2 }) => {
        const [a, b] = includes({ ...t1, ...shared, deep: { one: d1 } }, { ...t2, ...shared, deep: { two: d2 } });
        const ab = mergePolicy(p, [a, b]);
        const ba = mergePolicy(p, [b, a]);
        if (!ab.ok) throw new Error(`generated inputs conflict: ${ab.conflicts.map((c) => c.message).join('; ')}`);
        if (!ba.ok) throw new Error(`generated inputs conflict in the other order: ${ba.conflicts.map((c) => c.message).join('; ')}`);
        expect(ba.lock.default_attributes).toEqual(ab.lock.default_attributes);
        expect(ba.lock.cookbook_locks).toEqual(ab.lock.cookbook_locks);
        expect([...ba.lock.run_list].sort()).toEqual([...ab.lock.run_list].sort());
        const merged = new Set(leaves(ab.lock.default_attributes));
        for (const l of [...leaves(p.default_attributes), ...leaves(a.lock.default_attributes), ...leaves(b.lock.default_attributes)]) expect(merged.has(l)).toBe(true);
        checked++;
      }),
      { numRuns: 100 },
    );
    expect(checked).toBe(100);
  });

  it('two includes giving one attribute path different values is a conflict naming that path and both includes, in either order', () => {
    fc.assert(
      fc.property(arbDisjoint, fc.constantFrom('e', 'g', 's'), fc.integer(), fc.integer(), ({ p, t1, t2 }, key, v1, v2) => {
        fc.pre(v1 !== v2);
        const [a, b] = includes({ ...t1, [key]: { k: v1 } }, { ...t2, [key]: { k: v2 } });
        for (const order of [[a, b], [b, a]]) {
          const r = mergePolicy(p, order);
          expect(r.ok).toBe(false);
          if (r.ok) return;
          expect(r.conflicts).toEqual([expect.objectContaining({ kind: 'attribute', path: `[${key}][k]`, precedence: 'default', sources: order.map((i) => i.name) })]);
        }
      }),
      { numRuns: 100 },
    );
  });
});
