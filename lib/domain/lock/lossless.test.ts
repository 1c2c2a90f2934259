import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { computeRevisionId, JsonNumber, KEY_ORDER, orderedKeys, parseLossless } from '@/lib/domain';
import { parseLosslessReference } from './lossless-reference';

/**
 * The fast lossless parser (JSON.parse plus one scan, lossless.ts) must give exactly what the
 * reference recursive-descent parser gives: the same own keys in the same order, the same recorded
 * document order, every number a JsonNumber with the same lexeme, the same prototypes.
 */
function expectSame(fast: unknown, ref: unknown, path = '$'): void {
  if (ref instanceof JsonNumber || fast instanceof JsonNumber) {
    expect(fast, path).toBeInstanceOf(JsonNumber);
    expect(ref, path).toBeInstanceOf(JsonNumber);
    expect((fast as JsonNumber).lexeme, path).toBe((ref as JsonNumber).lexeme);
    return;
  }
  if (ref === null || typeof ref !== 'object') {
    expect(Object.is(fast, ref), `${path}: ${String(fast)} vs ${String(ref)}`).toBe(true);
    return;
  }
  expect(fast !== null && typeof fast === 'object', path).toBe(true);
  expect(Array.isArray(fast), path).toBe(Array.isArray(ref));
  expect(Object.getPrototypeOf(fast), path).toBe(Object.getPrototypeOf(ref));
  expect(Reflect.ownKeys(fast as object), path).toEqual(Reflect.ownKeys(ref as object));
  expect((fast as { [KEY_ORDER]?: string[] })[KEY_ORDER], `${path} key order`).toEqual((ref as { [KEY_ORDER]?: string[] })[KEY_ORDER]);
  for (const k of Object.keys(ref as object)) expectSame((fast as Record<string, unknown>)[k], (ref as Record<string, unknown>)[k], `${path}/${k}`);
}

const ws = fc.constantFrom('', '', '', ' ', '\n  ', '\t', '\r\n');

/** Number lexemes: the ones JSON.parse loses (1.0, 1e2, -0, 20 digits, 0.1000) and ordinary ones. */
const lexeme = fc.oneof(
  fc.constantFrom('1.0', '1e2', '1E+2', '-0', '-0.0', '0', '12345678901234567890', '1000000000000000000000000000001', '0.1000', '1.0e15', '2.5', '1e-7', '5e-324', '1e400', '-1e-400', '100', '9007199254740993', '0.30000000000000004'),
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => JSON.stringify(x)),
  fc
    .tuple(fc.boolean(), fc.oneof(fc.constant('0'), fc.stringMatching(/^[1-9][0-9]{0,24}$/)), fc.option(fc.stringMatching(/^[0-9]{1,20}$/)), fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.stringMatching(/^[0-9]{1,3}$/))))
    .map(([neg, int, frac, exp]) => `${neg ? '-' : ''}${int}${frac !== null ? '.' + frac : ''}${exp ? exp.join('') : ''}`),
);

/** String text: any characters, some written as \u escapes (surrogates included), the short escapes. */
const stringText = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'binary', maxLength: 3 }).map((s) => JSON.stringify(s).slice(1, -1)),
      fc.integer({ min: 0, max: 0xffff }).map((c) => '\\u' + c.toString(16).padStart(4, '0')),
      fc.constantFrom('\\"', '\\\\', '\\/', '\\b', '\\f', '\\n', '\\r', '\\t', 'é', '😀'),
    ),
    { maxLength: 6 },
  )
  .map((parts) => '"' + parts.join('') + '"');

/** Keys from a small set (so objects repeat keys), integer-like ones (JS reorders them) and escaped ones. */
const keyText = fc.oneof(
  fc.constantFrom('"a"', '"b"', '"1"', '"10"', '"0"', '"01"', '"4294967294"', '"4294967295"', '"__proto__"', '"\\u0031"', '"k\\"q"', '"\\\\"', '"-1"', '"1.5"', '""'),
  stringText,
);

const { value: jsonText } = fc.letrec<{ value: string; object: string; array: string }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, lexeme, stringText, fc.constantFrom('true', 'false', 'null'), tie('object'), tie('array')),
  object: fc
    .array(fc.tuple(ws, keyText, ws, ws, tie('value'), ws), { maxLength: 6 })
    .map((members) => '{' + members.map(([a, k, b, c, v, d]) => `${a}${k}${b}:${c}${v}${d}`).join(',') + '}'),
  array: fc.array(fc.tuple(ws, tie('value'), ws), { maxLength: 5 }).map((items) => '[' + items.map(([a, v, b]) => a + v + b).join(',') + ']'),
}));

describe('parseLossless (JSON.parse plus one scan) against the reference parser', () => {
  it('agrees on generated JSON: number lexemes, repeated and integer-like keys, escapes, __proto__', () => {
    fc.assert(
      fc.property(ws, jsonText, ws, (a, text, b) => {
        const doc = a + text + b;
        expectSame(parseLossless(doc), parseLosslessReference(doc));
      }),
      { numRuns: 3000 },
    );
  });

  it('agrees on the cases that need the reference to decide (a repeated key above a number)', () => {
    for (const doc of [
      '{"a":{"x":1.0},"a":{"y":2}}',
      '{"a":1.0,"a":"s"}',
      '{"a":"s","a":1.0}',
      '{"1":1,"0":2,"1":3.50}',
      '{"k":[{"1":1e2,"1":2}],"k":[{"0":-0}]}',
      '[{"__proto__":1.0,"__proto__":{"1":2.0}}]',
      '{"\\u0061":1.0,"a":2.00}',
    ]) {
      expectSame(parseLossless(doc), parseLosslessReference(doc));
    }
  });

  it('keeps every number lexeme, and JSON.parse gives the same values otherwise', () => {
    const doc = '{"f":1.0,"e":1e2,"z":-0,"big":12345678901234567890,"t":0.1000,"s":"1.0","n":[1,2.50]}';
    const fast = parseLossless(doc) as Record<string, unknown>;
    const plain = JSON.parse(doc) as Record<string, unknown>;
    for (const [k, v] of Object.entries(fast)) {
      if (v instanceof JsonNumber) expect(Object.is(v.valueOf(), plain[k]), k).toBe(true);
      else if (k !== 'n') expect(v, k).toEqual(plain[k]);
    }
    expect(Object.fromEntries(Object.entries(fast).filter(([, v]) => v instanceof JsonNumber).map(([k, v]) => [k, (v as JsonNumber).lexeme]))).toEqual({ f: '1.0', e: '1e2', z: '-0', big: '12345678901234567890', t: '0.1000' });
    expect((fast.n as JsonNumber[]).map((x) => x.lexeme)).toEqual(['1', '2.50']);
  });

  it('records document order only where JS would reorder, as the reference does', () => {
    const fast = parseLossless('{"named":{"10":[],"b":[],"1":[]},"plain":{"b":1,"a":2}}') as Record<string, object>;
    expect(orderedKeys(fast.named)).toEqual(['10', 'b', '1']);
    expect((fast.plain as { [KEY_ORDER]?: string[] })[KEY_ORDER]).toBeUndefined();
  });

  it('agrees on deep nesting', () => {
    const depth = 2000;
    for (const doc of ['['.repeat(depth) + '1.0' + ']'.repeat(depth), '{"1":'.repeat(depth) + '-0' + '}'.repeat(depth), '[{"a":'.repeat(depth / 2) + '[]' + '}]'.repeat(depth / 2)]) {
      expectSame(parseLossless(doc), parseLosslessReference(doc));
    }
  });

  it('agrees on long documents with escapes between the special places', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(stringText, lexeme), { minLength: 50, maxLength: 200 }), (pairs) => {
        const doc = '{"x":[' + pairs.map(([s, n]) => `{${s}:${n},"s":${s}}`).join(',') + ']}';
        expectSame(parseLossless(doc), parseLosslessReference(doc));
      }),
      { numRuns: 200 },
    );
  });

  it('refuses what the reference refuses, with its message', () => {
    for (const bad of ['', '{', '{"a":1,}', '[1 2]', '01', '1.', '"\\x"', '"a\n"', '{"a" 1}', 'nul', '[1]x', '-', '{"a":01}']) {
      let expected = '';
      try {
        parseLosslessReference(bad);
      } catch (e) {
        expected = (e as Error).message;
      }
      expect(expected, bad).not.toBe('');
      expect(() => parseLossless(bad), bad).toThrow(SyntaxError);
      expect(() => parseLossless(bad), bad).toThrow(expected);
    }
  });

  it('keeps a number longer than 400 characters (the reference once cut lexemes there)', () => {
    const long = '1' + '0'.repeat(450);
    expect((parseLossless(`[${long}]`) as JsonNumber[])[0].lexeme).toBe(long);
    expectSame(parseLossless(`[${long}.5e-3]`), parseLosslessReference(`[${long}.5e-3]`));
  });

  it('computeRevisionId from text equals the id from the reference parse', () => {
    fc.assert(
      fc.property(jsonText, jsonText, (a, b) => {
        const doc = `{"name":"p","run_list":["recipe[a::b]"],"named_run_lists":{"2":["recipe[x::y]"],"1":[]},"cookbook_locks":{"a":{"version":"1.0.0","identifier":"i"}},"default_attributes":{"x":${a}},"override_attributes":{"y":${b}}}`;
        expect(computeRevisionId(doc)).toBe(computeRevisionId(parseLosslessReference(doc) as never));
      }),
      { numRuns: 500 },
    );
  });
});

describe('computeRevisionId hashes the revision text as it writes it', () => {
  it('gives the SHA-256 of revisionIdText, for texts far longer than one hashed chunk', async () => {
    const { createHash } = await import('node:crypto');
    const { revisionIdText } = await import('@/lib/domain');
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string({ unit: 'binary', maxLength: 30 }), fc.oneof(fc.string({ unit: 'binary' }), fc.double(), lexeme.map((l) => new JsonNumber(l)))), { maxLength: 40 }), fc.integer({ min: 0, max: 4000 }), (members, copies) => {
        const attrs = Object.fromEntries(members);
        const lock = { name: 'p\u{1F600}', run_list: ['recipe[a::b]'], cookbook_locks: { a: { version: '1.0.0', identifier: 'é' } }, default_attributes: { many: Array.from({ length: copies }, (_, i) => ({ [`k${i}\ud83d`]: attrs })) }, override_attributes: attrs };
        expect(computeRevisionId(lock as never)).toBe(createHash('sha256').update(revisionIdText(lock), 'utf8').digest('hex'));
      }),
      { numRuns: 40 },
    );
  });
});
