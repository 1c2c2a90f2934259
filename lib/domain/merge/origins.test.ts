import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mergePolicy, orderedKeys, provenanceToJson, setKeyOrder, type IncludedPolicy, type ParentPolicy, type PolicyLock } from '@/lib/domain';

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The attribute provenance as the merge used to record it, node by node while merging (before the
 * origin log, merge/origins.ts): the log, listed, must give the same pairs in the same order.
 */
function eagerOrigins(sources: { name: string; tree: unknown }[]): [string, string][] {
  const origins: [string, string][] = [];
  const record = (value: unknown, path: string, source: string) => {
    origins.push([path, source]);
    if (!isObj(value)) return;
    for (const k of Object.keys(value)) record(value[k], `${path}[${k}]`, source);
  };
  const merge = (source: unknown, dest: unknown, path: string, from: string): unknown => {
    if (isObj(source)) {
      if (!isObj(dest)) {
        record(source, path, from);
        return source;
      }
      const keys = orderedKeys(dest);
      const out: Record<string, unknown> = {};
      for (const k of keys) out[k] = dest[k];
      for (const k of orderedKeys(source)) {
        const p = `${path}[${k}]`;
        if (Object.prototype.hasOwnProperty.call(out, k)) out[k] = merge(source[k], out[k], p, from);
        else {
          keys.push(k);
          out[k] = source[k];
          record(source[k], p, from);
        }
      }
      return setKeyOrder(out, keys);
    }
    origins.push([path, from]);
    return source;
  };
  const [first, ...later] = sources;
  record(first.tree, '', first.name);
  origins.shift();
  let acc = first.tree;
  for (const s of later) acc = merge(s.tree, acc, '', s.name);
  const root = origins.findIndex(([p]) => p === '');
  if (root >= 0) origins.splice(root, 1);
  return origins;
}

/** Attribute trees over a few keys (so sources overlap), leaves that agree (1, [1]), and empty objects. */
const { tree } = fc.letrec<{ tree: Record<string, unknown>; value: unknown }>((tie) => ({
  tree: fc.dictionary(fc.constantFrom('a', 'b', 'c', '1', '10', 'x y'), tie('value'), { maxKeys: 4 }),
  value: fc.oneof({ depthSize: 'small' }, fc.constant(1), fc.constant([1]), fc.constant({}), tie('tree')),
}));

const lock = (name: string, def: Record<string, unknown>, over: Record<string, unknown>): PolicyLock => ({
  revision_id: 'r',
  name,
  run_list: [],
  cookbook_locks: {},
  default_attributes: def,
  override_attributes: over,
  solution_dependencies: { Policyfile: [], dependencies: {} },
});

describe('attribute provenance (the origin log)', () => {
  it('lists the same [path, source] pairs, in the same order, as recording every node while merging', () => {
    let merged = 0;
    fc.assert(
      fc.property(tree, tree, fc.array(fc.tuple(tree, tree), { minLength: 1, maxLength: 4 }), (pd, po, incs) => {
        const parent: ParentPolicy = { name: 'app', run_list: [], default_attributes: pd, override_attributes: po };
        const includes: IncludedPolicy[] = incs.map(([d, o], i) => ({ name: `inc${i}`, source_options: { path: `inc${i}.lock.json` }, lock: lock(`inc${i}`, d, o) }));
        const r = mergePolicy(parent, includes);
        if (!r.ok) return;
        merged++;
        for (const which of ['default', 'override'] as const) {
          const field = `${which}_attributes` as const;
          const expected = eagerOrigins([{ name: 'app', tree: parent[field] }, ...includes.map((i) => ({ name: i.name, tree: i.lock[field] }))]);
          expect(r.provenance.attributes[which]).toEqual(expected);
          // provenanceToJson: the last source to set a path wins, at the path's first position (as a Map gives).
          expect(Object.entries(provenanceToJson(r.provenance).attributes[which])).toEqual([...new Map(expected)]);
        }
      }),
      { numRuns: 1500 },
    );
    expect(merged).toBeGreaterThan(300);
  });
});
