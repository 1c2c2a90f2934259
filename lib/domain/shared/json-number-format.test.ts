import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalJson, formatG15, JsonNumber, sortCodePoints } from '@/lib/domain';

/**
 * C's printf("%.15g") from first principles, slowly: the double's exact binary value as a fraction
 * of BigInts, scaled to 15 significant digits, rounded half to even, laid out as %g does. The oracle
 * the fast formatG15 (shortest form and toPrecision, exact only where a tie is possible) is held to.
 */
function g15Exact(x: number): string {
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e2 = -1074;
  if (biased !== 0) {
    mant |= 1n << 52n;
    e2 = biased - 1075;
  }
  // value = num / den exactly
  const num = e2 >= 0 ? mant << BigInt(e2) : mant;
  const den = e2 >= 0 ? 1n : 1n << BigInt(-e2);
  const pow10 = (k: number) => 10n ** BigInt(k);
  // exp10: 10^exp10 <= value < 10^(exp10 + 1)
  let exp10 = Math.floor(Math.log10(Math.abs(x)));
  const atLeast = (k: number) => (k >= 0 ? num >= pow10(k) * den : num * pow10(-k) >= den);
  while (!atLeast(exp10)) exp10--;
  while (atLeast(exp10 + 1)) exp10++;
  // q = value * 10^(14 - exp10), rounded half to even
  const shift = 14 - exp10;
  const n = shift >= 0 ? num * pow10(shift) : num;
  const d = shift >= 0 ? den : den * pow10(-shift);
  let q = n / d;
  const r2 = (n % d) * 2n;
  if (r2 > d || (r2 === d && q % 2n === 1n)) q += 1n;
  if (q === pow10(15)) {
    q = pow10(14);
    exp10++;
  }
  const digits = q.toString().replace(/0+$/, '') || '0';
  const sign = x < 0 ? '-' : '';
  if (exp10 < -4 || exp10 >= 15) {
    const m = digits.length > 1 ? digits[0] + '.' + digits.slice(1) : digits;
    return `${sign}${m}e${exp10 < 0 ? '-' : '+'}${String(Math.abs(exp10)).padStart(2, '0')}`;
  }
  if (exp10 >= 0) {
    const int = digits.length > exp10 + 1 ? digits.slice(0, exp10 + 1) : digits + '0'.repeat(exp10 + 1 - digits.length);
    const frac = digits.slice(exp10 + 1);
    return sign + int + (frac ? '.' + frac : '');
  }
  return sign + '0.' + '0'.repeat(-exp10 - 1) + digits;
}

/** Doubles built to sit on or next to a 15-digit rounding tie. */
const nearTies = fc
  .tuple(fc.integer({ min: 100000000000000, max: 999999999999999 }), fc.integer({ min: -40, max: 40 }), fc.constantFrom(-1, 0, 1))
  .map(([head, scale, nudge]) => {
    const x = (head + 0.5) * 2 ** scale;
    if (nudge === 0) return x;
    const v = new DataView(new ArrayBuffer(8));
    v.setFloat64(0, x);
    v.setBigUint64(0, v.getBigUint64(0) + BigInt(nudge));
    return v.getFloat64(0);
  });

describe('formatG15 against an exact %.15g', () => {
  it('agrees on any double', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        expect(formatG15(x)).toBe(g15Exact(x));
      }),
      { numRuns: 20000 },
    );
  });

  it('agrees next to and on exact ties (halves of 15-digit numbers, scaled by powers of two)', () => {
    fc.assert(
      fc.property(nearTies, (x) => {
        expect(formatG15(x)).toBe(g15Exact(x));
        expect(formatG15(-x)).toBe(g15Exact(-x));
      }),
      { numRuns: 20000 },
    );
  });

  it('agrees on 16- and 17-digit decimals, integers past 2^53 and subnormals', () => {
    const samples = fc.oneof(
      fc.stringMatching(/^[1-9][0-9]{15,16}e-?[0-9]{1,2}$/).map(Number),
      fc.stringMatching(/^[1-9][0-9]{14}5e-?[0-9]{1,2}$/).map(Number),
      fc.bigInt({ min: 2n ** 53n, max: 10n ** 22n }).map(Number),
      fc.double({ min: 0, max: 2.2250738585072014e-308, noNaN: true }),
      fc.double({ min: 1e-5, max: 1e16, noNaN: true }),
    );
    fc.assert(
      fc.property(samples, (x) => {
        expect(formatG15(x)).toBe(g15Exact(x));
      }),
      { numRuns: 20000 },
    );
  });
});

describe('canonicalJson leaves', () => {
  it('writes integer lexemes as Ruby prints the Integer, floats as %.15g', () => {
    const doc = { a: new JsonNumber('-0'), b: new JsonNumber('12345678901234567890'), c: new JsonNumber('1.0'), d: new JsonNumber('1e2'), e: new JsonNumber('0.1000'), f: 2 ** 60, g: 0.1 + 0.2, h: -0 };
    expect(canonicalJson(doc)).toBe('{"a":0,"b":12345678901234567890,"c":1,"d":100,"e":0.1,"f":1152921504606846976,"g":0.3,"h":0}');
  });

  it('sorts keys by code point, a character above U+FFFF after U+FFFF', () => {
    expect(canonicalJson({ '\u{1F600}': 1, '\uffff': 2, b: 3, a: { d: 1, c: 2 } })).toBe('{"a":{"c":2,"d":1},"b":3,"\uffff":2,"\u{1F600}":1}');
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 4 })), (keys) => {
        const sorted = sortCodePoints([...keys]);
        const byCodePoint = [...keys].sort((a, b) => {
          const x = [...a].map((c) => c.codePointAt(0)!);
          const y = [...b].map((c) => c.codePointAt(0)!);
          for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
          return x.length - y.length;
        });
        expect(sorted).toEqual(byCodePoint);
      }),
      { numRuns: 2000 },
    );
  });
});
