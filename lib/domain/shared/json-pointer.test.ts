import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { childPointer, escapePointerToken, jsonPointer, parseJsonPointer, unescapePointerToken } from './json-pointer';

/** Resolves a pointer in a value, as RFC 6901 §4 does. */
function resolve(doc: unknown, pointer: string): unknown {
  return parseJsonPointer(pointer).reduce<unknown>((v, token) => (v as Record<string, unknown>)[token], doc);
}

describe('RFC 6901 JSON pointers', () => {
  it('the RFC’s own examples (§5)', () => {
    const doc = { foo: ['bar', 'baz'], '': 0, 'a/b': 1, 'c%d': 2, 'e^f': 3, 'g|h': 4, 'i\\j': 5, 'k"l': 6, ' ': 7, 'm~n': 8 };
    expect(jsonPointer([])).toBe('');
    expect(jsonPointer(['foo'])).toBe('/foo');
    expect(jsonPointer(['foo', 0])).toBe('/foo/0');
    expect(jsonPointer([''])).toBe('/');
    expect(jsonPointer(['a/b'])).toBe('/a~1b');
    expect(jsonPointer(['m~n'])).toBe('/m~0n');
    expect(jsonPointer([' '])).toBe('/ ');
    for (const key of Object.keys(doc)) expect(resolve(doc, jsonPointer([key]))).toBe(doc[key as keyof typeof doc]);
    expect(resolve(doc, '/foo/0')).toBe('bar');
  });

  it('escapes ~ before / so that "~1" in a key stays itself', () => {
    expect(escapePointerToken('~1')).toBe('~01');
    expect(unescapePointerToken('~01')).toBe('~1');
    expect(escapePointerToken('/~')).toBe('~1~0');
    expect(jsonPointer(['cookbook_locks', 'a/b~c', 'version'])).toBe('/cookbook_locks/a~1b~0c/version');
  });

  it('childPointer appends escaped tokens to a pointer', () => {
    expect(childPointer('/includes/0', 'lock', 'cookbook_locks', 'x/y')).toBe('/includes/0/lock/cookbook_locks/x~1y');
    expect(childPointer('', 'a')).toBe('/a');
  });

  it('parse refuses a non-empty pointer without a leading /', () => {
    expect(() => parseJsonPointer('a')).toThrow(/starts with/);
  });

  it('round-trips any keys, and the pointer finds the value it was built for', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: fc.constantFrom('a', '~', '/', '0', '1', 'é', '') }), { maxLength: 6 }), (keys) => {
        const pointer = jsonPointer(keys);
        expect(parseJsonPointer(pointer)).toEqual(keys);
        const doc = keys.reduceRight<unknown>((inner, k) => ({ [k]: inner }), 'leaf');
        expect(resolve(doc, pointer)).toBe('leaf');
      }),
    );
  });
});
