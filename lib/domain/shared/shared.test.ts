import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalJson, compareCodePoints, jsonEqual, sortCodePoints, stableJson } from '@/lib/domain/shared';
import { satisfies } from '@/lib/domain';

const ASTRAL = '\u{1F600}'; // a surrogate pair in UTF-16: 0xD83D 0xDE00
const HALFWIDTH = '\uFF01'; // U+FF01, above every surrogate code unit but below U+1F600

/** Keys of a string-keyed tree reordered (reversed) at every level: the same JSON value. */
function reorder(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reorder);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).reverse()) Object.defineProperty(out, k, { value: reorder((v as Record<string, unknown>)[k]), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return v;
}

const wellFormed = fc.string({ unit: 'binary', maxLength: 6 }).filter((s) => (s as string & { isWellFormed(): boolean }).isWellFormed());

describe('compareCodePoints', () => {
  it('orders by code point, not by UTF-16 unit: U+FF01 before U+1F600', () => {
    expect(HALFWIDTH < ASTRAL).toBe(false); // what JavaScript's default comparison says
    expect(compareCodePoints(HALFWIDTH, ASTRAL)).toBeLessThan(0);
    expect(sortCodePoints([ASTRAL, HALFWIDTH, 'a'])).toEqual(['a', HALFWIDTH, ASTRAL]);
  });

  it('agrees with byte-wise UTF-8 order (how Ruby sorts string keys)', () => {
    fc.assert(
      fc.property(wellFormed, wellFormed, (a, b) => {
        expect(Math.sign(compareCodePoints(a, b))).toBe(Math.sign(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))));
      }),
      { numRuns: 500 },
    );
  });
});

describe('the canonical serializer', () => {
  it('stableJson sorts keys by code point: U+FF01 before an astral-plane character, "10" before "9"', () => {
    expect(stableJson({ [ASTRAL]: 1, [HALFWIDTH]: 2 })).toBe(`{"${HALFWIDTH}":2,"${ASTRAL}":1}`);
    expect(stableJson({ b: 1, 10: 2, 9: 3 })).toBe('{"10":2,"9":3,"b":1}');
    expect(stableJson({ x: { [ASTRAL]: [1], [HALFWIDTH]: null } }, 2)).toBe(`{\n  "x": {\n    "${HALFWIDTH}": null,\n    "${ASTRAL}": [\n      1\n    ]\n  }\n}`);
  });

  it('canonicalJson (revision ids) uses the same key order', () => {
    expect(canonicalJson({ [ASTRAL]: 1, [HALFWIDTH]: 2, b: 1.5, 10: 1 })).toBe(`{"10":1,"b":1.5,"${HALFWIDTH}":2,"${ASTRAL}":1}`);
  });

  it('stableJson writes what JSON.stringify writes, keys sorted, indented or not; key order in the input does not matter', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 2), (v, indent) => {
        const text = stableJson(v, indent);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(v)));
        expect(stableJson(reorder(v), indent)).toBe(text);
        expect(stableJson(JSON.parse(text), indent)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it('stableJson leaves out undefined members and writes non-finite numbers as null, as JSON.stringify does', () => {
    expect(stableJson({ a: undefined, b: [undefined, NaN], c: Infinity })).toBe(JSON.stringify({ b: [undefined, NaN], c: Infinity }));
    expect(stableJson({}, 2)).toBe('{}');
    expect(stableJson([], 2)).toBe('[]');
  });
});

describe('jsonEqual and versions', () => {
  it('jsonEqual ignores key order, not array order', () => {
    expect(jsonEqual({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 })).toBe(true);
    expect(jsonEqual({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    fc.assert(fc.property(fc.jsonValue(), (v) => jsonEqual(v, reorder(v))));
  });

  it('Chef constraints', () => {
    expect(satisfies('1.2.9', '~> 1.2.3')).toBe(true);
    expect(satisfies('1.3.0', '~> 1.2.3')).toBe(false);
    expect(satisfies('2.0.0', '>= 1.0, < 2.0')).toBe(false);
    expect(satisfies('1.0.0', 'banana')).toBe(false);
  });
});
