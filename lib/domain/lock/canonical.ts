/**
 * chef-cli's canonical JSON for revision ids (domain.md §2): keys sorted, no
 * whitespace, strings between quotes with no escaping at all, integers as
 * digits, floats like C's `%.15g`.
 */
import { JsonNumber } from './json';

/**
 * Whether the exact binary value of a positive finite double, written in decimal, is
 * `digits15` followed by exactly `5` (a tie when rounding to 15 significant digits).
 * `exp10` is the decimal exponent of the first digit.
 */
function isExactTie(ax: number, digits15: string, exp10: number): boolean {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, ax);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e2: number;
  if (biased === 0) e2 = -1074;
  else {
    mant |= 1n << 52n;
    e2 = biased - 1075;
  }
  // ax = mant * 2^e2 exactly; scale to an integer N with ax = N / 10^k.
  let n: bigint;
  let k: number;
  if (e2 >= 0) {
    n = mant << BigInt(e2);
    k = 0;
  } else {
    n = mant * 5n ** BigInt(-e2);
    k = -e2;
  }
  // The candidate tie: (digits15 followed by 5) * 10^(exp10 - 15), compared exactly.
  const shift = exp10 - 15 + k; // power of ten relating the tie's last digit to N's units
  const tie = BigInt(digits15 + '5');
  return shift >= 0 ? n === tie * 10n ** BigInt(shift) : false;
}

/**
 * Formats a finite number as C's `printf("%.15g")` does (and Ruby's `format`, which chef-cli uses):
 * the 15 significant digits are the exact binary value correctly rounded, exact ties to even.
 * (`toPrecision`/`toExponential` round ties away from zero: `100000000000000.5` would become
 * `…001` where chef-cli writes `100000000000000`.)
 */
export function formatG15(x: number): string {
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const sign = x < 0 ? '-' : '';
  const ax = Math.abs(x);
  // toExponential(14) rounds the exact value correctly except on exact ties (away from zero).
  const [m, ex] = ax.toExponential(14).split('e');
  let digits = m.replace('.', '');
  let exp = Number(ex);
  // Only a value just above the midpoint can have been rounded up from an exact tie.
  const wide = ax.toExponential(20).split('e');
  const after = wide[0].replace('.', '').slice(15);
  if (/^50*$/.test(after) || /^49{5}/.test(after)) {
    const wideExp = Number(wide[1]);
    const head = wide[0].replace('.', '').slice(0, 15);
    if (isExactTie(ax, head, wideExp) && Number(head[14]) % 2 === 0) {
      // Round half to even: keep the truncated head.
      digits = head;
      exp = wideExp;
    } else if (isExactTie(ax, head, wideExp)) {
      let up = (BigInt(head) + 1n).toString();
      let e = wideExp;
      if (up.length > 15) {
        up = up.slice(0, 15);
        e++;
      }
      digits = up;
      exp = e;
    }
  }
  const trimmed = digits.replace(/0+$/, '');
  if (exp < -4 || exp >= 15) {
    const mant = trimmed.length > 1 ? trimmed[0] + '.' + trimmed.slice(1) : trimmed;
    return `${sign}${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (exp >= 0) {
    const int = digits.slice(0, exp + 1);
    const frac = trimmed.slice(exp + 1);
    return sign + int + (frac ? '.' + frac : '');
  }
  return sign + '0.' + '0'.repeat(-exp - 1) + trimmed;
}

function numberText(n: number | JsonNumber): string {
  if (n instanceof JsonNumber) {
    if (n.isFloat) return formatG15(Number(n.lexeme));
    return BigInt(n.lexeme).toString();
  }
  // A plain JS number carries no lexeme: whole numbers are taken as integers.
  if (Number.isInteger(n)) return Number.isSafeInteger(n) ? String(n) : BigInt(n).toString();
  return formatG15(n);
}

/** Code-point order, as Ruby sorts string keys (byte-wise on UTF-8). */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done) return y.done ? 0 : -1;
    if (y.done) return 1;
    const d = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}

const SURROGATE = /[\ud800-\udfff]/;

/** Code-point order; default string sort agrees with it unless a key holds a surrogate pair. */
function sortKeys(keys: string[]): string[] {
  keys.sort();
  // One test over all keys is much cheaper than one per key.
  return keys.length > 1 && SURROGATE.test(keys.join('')) ? keys.sort(compareCodePoints) : keys;
}

// String concatenation (V8 ropes) measured about twice as fast as collecting parts and joining.
function write(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return '"' + value + '"';
  if (typeof value === 'number' || value instanceof JsonNumber) return numberText(value);
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + write(value[i]);
    return out + ']';
  }
  if (typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const keys = sortKeys(Object.keys(obj));
    let out = '{';
    for (let k = 0; k < keys.length; k++) out += (k ? ',"' : '"') + keys[k] + '":' + write(obj[keys[k]]);
    return out + '}';
  }
  return 'null';
}

export function canonicalJson(value: unknown): string {
  return write(value);
}
