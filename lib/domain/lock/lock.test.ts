import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fixtureJson, fixtureText } from '@/test/fixtures';
import { cloneLossless, computeRevisionId, JsonNumber, formatG15, jsonDepth, orderedKeys, parseLossless, revisionIdText, serializeJson, validateLock } from '@/lib/domain';

type Vector = { source: string; document: string; canonical_text: string; revision_id: string };
const vectors = fixtureJson<Vector[]>('revision-id-vectors.json');

describe('computeRevisionId (chef-cli policyfile_lock.rb)', () => {
  it.each(vectors.map((v) => [v.source.slice(0, 70), v] as const))('%s', (_name, v) => {
    const lock = parseLossless(v.document) as Record<string, unknown>;
    expect(revisionIdText(lock)).toBe(v.canonical_text);
    expect(computeRevisionId(v.document)).toBe(v.revision_id);
  });

  it('keeps float lexemes from text but takes whole JS numbers as integers', () => {
    const text = '{"name":"p","run_list":[],"cookbook_locks":{},"default_attributes":{"g":1.0e15,"h":2.0},"override_attributes":{}}';
    expect(revisionIdText(parseLossless(text) as Record<string, unknown>)).toContain('{"g":1e+15,"h":2}');
    const parsed = JSON.parse(text);
    expect(revisionIdText(parsed)).toContain('{"g":1000000000000000,"h":2}');
  });

  it('writes strings without any escaping, as chef-cli does', () => {
    const lock = { name: 'p', run_list: [], cookbook_locks: {}, default_attributes: { q: 'say "hi"\n' } };
    expect(revisionIdText(lock)).toContain('default_attributes:{"q":"say "hi"\n"}');
  });

  it('sorts cookbooks by name and attribute keys by code point', () => {
    const lock = {
      name: 'p',
      run_list: [],
      cookbook_locks: { zed: { version: '1.0.0', identifier: 'b' }, apt: { version: '1.0.0', identifier: 'a' } },
      default_attributes: { b: 1, B: 2, a: { z: 1, y: 2 } },
    };
    expect(revisionIdText(lock)).toBe(
      'name:p\ncookbook:apt;id:a\ncookbook:zed;id:b\ndefault_attributes:{"B":2,"a":{"y":2,"z":1},"b":1}\noverride_attributes:{}\n',
    );
  });

  it('treats __proto__ as a plain key', () => {
    const text = '{"name":"p","run_list":[],"cookbook_locks":{},"default_attributes":{"__proto__":{"x":1}}}';
    expect(revisionIdText(parseLossless(text) as Record<string, unknown>)).toContain('{"__proto__":{"x":1}}');
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

describe('formatG15 (C printf %.15g)', () => {
  it.each([
    [1.2, '1.2'],
    [1e15, '1e+15'],
    [1e-5, '1e-05'],
    [0.0001, '0.0001'],
    [5, '5'],
    [123456789012345, '123456789012345'],
    [1234567890123456, '1.23456789012346e+15'],
    [0.1 + 0.2, '0.3'],
    [-2.5, '-2.5'],
    [1e100, '1e+100'],
    [0, '0'],
    // Recorded from Ruby 3.1's format("%.15g", x), which chef-cli 5.6.24 uses: exact ties round half to even.
    [100000000000000.5, '100000000000000'],
    [-100000000000000.5, '-100000000000000'],
    [12345678901234.25, '12345678901234.2'],
    [2 ** -22, '2.38418579101562e-07'],
    [999999999999999.5, '1e+15'],
    [123456789012345.5, '123456789012346'],
    [100000000000001.5, '100000000000002'],
    [1234567.0000000005, '1234567'],
    [1e-320, '9.99988867182683e-321'],
    [5e-324, '4.94065645841247e-324'],
    [1.7976931348623157e308, '1.79769313486232e+308'],
    [-0, '-0'],
  ])('%s → %s', (x, expected) => expect(formatG15(x)).toBe(expected));
});

describe('key order and lexemes (chef-cli hashes named run lists in document order)', () => {
  it('keeps the document order of integer-like keys through parse, clone and write', () => {
    const text = '{"named_run_lists":{"10":["recipe[a::b]"],"b":[],"1":["recipe[c::d]"]},"x":1.0e+15,"y":-0.0,"z":1000000000000000000000000000001}';
    const parsed = parseLossless(text) as Record<string, Record<string, unknown>>;
    expect(orderedKeys(parsed.named_run_lists)).toEqual(['10', 'b', '1']);
    expect(Object.keys(parsed.named_run_lists)).toEqual(['1', '10', 'b']); // what plain JS would use
    expect(serializeJson(cloneLossless(parsed))).toBe(text);
    expect(JSON.parse(JSON.stringify(parsed)).x).toBe(1e15); // JSON.stringify views get plain numbers
  });

  it('hashes named run lists in document order', () => {
    const lock = parseLossless('{"name":"p","run_list":[],"named_run_lists":{"10":["recipe[a::b]"],"1":["recipe[c::d]"]},"cookbook_locks":{}}') as Record<string, unknown>;
    expect(revisionIdText(lock)).toContain('named-run-list:10;run-list-item:recipe[a::b]\nnamed-run-list:1;run-list-item:recipe[c::d]\n');
  });
});

describe('validateLock', () => {
  it.each(['base.lock.json', 'rfc-demo.lock.json', 'rfc-minimal.lock.json'])('accepts %s and keeps unknown fields', (f) => {
    const doc = JSON.parse(fixtureText(`locks/${f}`));
    const result = validateLock(doc);
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.lock).toEqual(doc);
  });

  type BadCase = { id: string; url_name: string; body: string; status: number; paths: string[] };
  const bad = fixtureJson<{ cases: BadCase[] }>('bad-locks.json').cases;
  it.each(bad.filter((c) => c.paths.length > 0 && c.id !== 'name-mismatch').map((c) => [c.id, c] as const))(
    'reports every path of bad lock %s',
    (_id, c) => {
      const result = validateLock(JSON.parse(c.body));
      expect(result.ok).toBe(false);
      if (!result.ok) {
        for (const p of c.paths) expect(result.errors.map((e) => e.path)).toContain(p);
        for (const e of result.errors) expect(e.message.length).toBeGreaterThan(10);
      }
    },
  );

  // Issue 23: chef-cli writes any named run list name and Chef Server takes it (erchef validates no named_run_lists).
  it.each(['défaut', '🚀', '', 'deploy/now~x', 'with space'])('accepts the named run list name %j', (name) => {
    const lock = { name: 'p', revision_id: 'r1', run_list: ['recipe[a::b]'], named_run_lists: { [name]: ['recipe[a::b]'] }, cookbook_locks: { a: { version: '1.0.0', identifier: 'a1' } } };
    expect(validateLock(lock).ok).toBe(true);
  });

  it('rejects non-objects at the root', () => {
    for (const v of [[], null, 'x', 3]) {
      const r = validateLock(v);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.errors[0].path).toBe('');
    }
  });

  it('reports all violations with escaped pointers', () => {
    const r = validateLock({
      name: 'ok',
      revision_id: 'abc',
      run_list: ['recipe[a::b]', 'nope'],
      cookbook_locks: { 'a/b': { version: '1', identifier: '' } },
      default_attributes: [],
    });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.errors.map((e) => e.path).sort()).toEqual(
        ['/cookbook_locks/a~1b', '/cookbook_locks/a~1b/identifier', '/cookbook_locks/a~1b/version', '/default_attributes', '/run_list/1'].sort(),
      );
    }
  });

  it('property: any lock built from valid parts validates', () => {
    const ident = fc.stringMatching(/^[a-z0-9_]{1,20}$/);
    fc.assert(
      fc.property(fc.dictionary(ident, fc.tuple(fc.nat(99), fc.nat(99), fc.nat(99))), ident, (cbs, name) => {
        const cookbook_locks = Object.fromEntries(
          Object.entries(cbs).map(([k, [a, b, c]]) => [k, { version: `${a}.${b}.${c}`, identifier: `${k}${a}` }]),
        );
        const lock = { name, revision_id: 'r1', run_list: Object.keys(cbs).map((k) => `recipe[${k}::default]`), cookbook_locks };
        expect(validateLock(lock).ok).toBe(true);
      }),
    );
  });
});

/** A valid lock from generated parts (names, versions, run list, named run lists). */
const ident = fc.stringMatching(/^[a-z0-9_]{1,12}$/);
const arbValidLock = fc
  .record({
    name: ident,
    cbs: fc.dictionary(ident, fc.tuple(fc.nat(99), fc.nat(99), fc.nat(99)), { minKeys: 1, maxKeys: 6 }),
    named: fc.dictionary(ident, fc.constant(null), { maxKeys: 2 }),
  })
  .map(({ name, cbs, named }) => {
    const names = Object.keys(cbs);
    const run = names.map((k) => `recipe[${k}::default]`);
    return {
      name,
      revision_id: `${name}-r1`,
      run_list: run,
      named_run_lists: Object.fromEntries(Object.keys(named).map((n) => [n, run.slice(0, 1)])),
      cookbook_locks: Object.fromEntries(Object.entries(cbs).map(([k, [a, b, c]]) => [k, { version: `${a}.${b}.${c}`, identifier: `${k}${a}` }])),
      default_attributes: {},
      override_attributes: {},
    } as Record<string, any>;
  });

/** One mutation that breaks one rule, and the pointer the validator must name. */
type Mutation = (lock: Record<string, any>, pick: number) => string;
const firstCookbook = (l: Record<string, any>, pick: number) => Object.keys(l.cookbook_locks)[pick % Object.keys(l.cookbook_locks).length];
const MUTATIONS: Record<string, Mutation> = {
  'name not a name': (l) => ((l.name = 'no spaces allowed'), '/name'),
  'name not a string': (l) => ((l.name = 42), '/name'),
  'revision_id missing': (l) => (delete l.revision_id, '/revision_id'),
  'revision_id too long': (l) => ((l.revision_id = 'x'.repeat(256)), '/revision_id'),
  'run-list item a role': (l, pick) => {
    const i = pick % l.run_list.length;
    l.run_list[i] = 'role[web]';
    return `/run_list/${i}`;
  },
  'run list not an array': (l) => ((l.run_list = 'recipe[a::b]'), '/run_list'),
  'cookbook version banana': (l, pick) => {
    const cb = firstCookbook(l, pick);
    l.cookbook_locks[cb].version = 'banana';
    return `/cookbook_locks/${cb}/version`;
  },
  'cookbook identifier empty': (l, pick) => {
    const cb = firstCookbook(l, pick);
    l.cookbook_locks[cb].identifier = '';
    return `/cookbook_locks/${cb}/identifier`;
  },
  'cookbook lock not an object': (l, pick) => {
    const cb = firstCookbook(l, pick);
    l.cookbook_locks[cb] = ['1.0.0'];
    return `/cookbook_locks/${cb}`;
  },
  'cookbook_locks missing': (l) => (delete l.cookbook_locks, '/cookbook_locks'),
  'named run list with a slash and a tilde in its name': (l) => {
    l.named_run_lists['deploy/now~x'] = ['recipe[a::b]', 'not-a-recipe'];
    return '/named_run_lists/deploy~1now~0x/1';
  },
  'attributes not an object': (l, pick) => ((l[pick % 2 ? 'default_attributes' : 'override_attributes'] = [1]), pick % 2 ? '/default_attributes' : '/override_attributes'),
  'included policy without revision_id': (l) => ((l.included_policy_locks = [{ name: 'base', source_options: {} }]), '/included_policy_locks/0/revision_id'),
};

describe('validateLock on generated invalid input', () => {
  it('property: one broken rule in a valid lock is reported once, at its pointer', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(arbValidLock, fc.constantFrom(...Object.keys(MUTATIONS)), fc.nat(), (valid, which, pick) => {
        expect(validateLock(valid).ok).toBe(true);
        const lock = structuredClone(valid);
        const at = MUTATIONS[which](lock, pick);
        seen.add(which);
        const r = validateLock(lock);
        expect(r.ok).toBe(false);
        if (r.ok) return;
        expect(r.errors.map((e) => e.path)).toEqual([at]);
      }),
      { numRuns: 400 },
    );
    // Every kind of mutation was tried.
    expect([...seen].sort()).toEqual(Object.keys(MUTATIONS).sort());
  });

  it('property: several broken rules are all reported', () => {
    fc.assert(
      fc.property(arbValidLock, fc.uniqueArray(fc.constantFrom('name not a string', 'revision_id missing', 'cookbook_locks missing', 'named run list with a slash and a tilde in its name'), { minLength: 2 }), (valid, which) => {
        const lock = structuredClone(valid);
        const expected = which.map((w) => MUTATIONS[w](lock, 0)).sort();
        const r = validateLock(lock);
        expect(!r.ok && r.errors.map((e) => e.path).sort()).toEqual(expected);
      }),
    );
  });
});

/** Lossless values as plain ones: every JsonNumber as the number it denotes. */
function plain(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object') {
    if (v instanceof JsonNumber) return v.valueOf();
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) Object.defineProperty(out, k, { value: plain((v as Record<string, unknown>)[k]), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return v;
}

describe('parseLossless against JSON.parse', () => {
  it('property: on generated JSON text (compact and indented) it reads the same values, and keeps the document key order', () => {
    fc.assert(
      fc.property(fc.json(), fc.boolean(), (json, indent) => {
        const text = indent ? JSON.stringify(JSON.parse(json), null, 2) : json;
        const ours = parseLossless(text);
        expect(plain(ours)).toEqual(JSON.parse(text));
        if (ours && typeof ours === 'object' && !Array.isArray(ours) && !(ours instanceof JsonNumber)) expect(orderedKeys(ours)).toEqual(Object.keys(JSON.parse(text)));
      }),
      { numRuns: 500 },
    );
  });

  it('property: it refuses exactly the text JSON.parse refuses', () => {
    const nearJson = fc.oneof(
      fc.json(),
      fc.json().chain((j) => fc.nat(Math.max(0, j.length - 1)).map((i) => j.slice(0, i) + j.slice(i + 1))),
      fc.json().chain((j) => fc.tuple(fc.nat(j.length), fc.constantFrom(',', '}', ']', '"', ':', '-', '0', '.', 'e', '\\', ' ', 'tru', '\u0001')).map(([i, c]) => j.slice(0, i) + c + j.slice(i))),
    );
    fc.assert(
      fc.property(nearJson, (text) => {
        let expected: unknown;
        let refused = false;
        try {
          expected = JSON.parse(text);
        } catch {
          refused = true;
        }
        if (refused) expect(() => parseLossless(text)).toThrow();
        else expect(plain(parseLossless(text))).toEqual(expected);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('jsonDepth', () => {
  it('counts nesting outside strings', () => {
    expect(jsonDepth('{"a":[1,{"b":"[[[["}]}')).toBe(3);
    expect(jsonDepth('[[[[[[', 3)).toBe(4);
  });
});
