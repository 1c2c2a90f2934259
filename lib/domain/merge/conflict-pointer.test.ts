import { describe, expect, it } from 'vitest';
import { mergePolicy, type IncludedPolicy, type PolicyLock } from '../index';

const inc = (name: string, lock: Partial<PolicyLock>): IncludedPolicy => ({
  name,
  source_options: { path: `${name}.lock.json` },
  lock: { name, revision_id: `${name}-rev`, run_list: [], cookbook_locks: {}, default_attributes: {}, override_attributes: {}, ...lock },
});

describe('merge conflicts carry RFC 6901 pointers', () => {
  it('an attribute conflict points into the composed lock, escaping ~ and / in keys', () => {
    const r = mergePolicy({ name: 'app', run_list: [], override_attributes: { 'a/b': { '~c': 1 } } }, [inc('x', { override_attributes: { 'a/b': { '~c': 2 } } })]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.conflicts.map((c) => [c.path, c.pointer])).toEqual([['[a/b][~c]', '/override_attributes/a~1b/~0c']]);
  });

  it('default and override attributes are told apart', () => {
    const r = mergePolicy({ name: 'app', run_list: [], default_attributes: { port: 80 } }, [inc('x', { default_attributes: { port: 8080 } })]);
    expect(!r.ok && r.conflicts[0].pointer).toBe('/default_attributes/port');
  });
});
