import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fixtureJson, fixtureText } from '@/test/fixtures';
import { cloneLossless, computeRevisionId, formatG15, jsonDepth, orderedKeys, parseLossless, revisionIdText, serializeJson, validateLock } from '@/lib/domain';

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

describe('jsonDepth', () => {
  it('counts nesting outside strings', () => {
    expect(jsonDepth('{"a":[1,{"b":"[[[["}]}')).toBe(3);
    expect(jsonDepth('[[[[[[', 3)).toBe(4);
  });
});
