/**
 * chef-cli's canonical JSON for revision ids (domain.md §2): keys sorted, no
 * whitespace, strings between quotes with no escaping at all, integers as
 * digits, floats like C's `%.15g`.
 */
import { JsonNumber } from './json';

/** Formats a finite number as C's `printf("%.15g")` does. */
export function formatG15(x: number): string {
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const ax = Math.abs(x);
  if (ax >= 1e-4 && ax < 1e15) {
    // %g's fixed-notation range; toPrecision(15) is fixed here too unless rounding reaches 1e15.
    const fixed = x.toPrecision(15);
    if (!fixed.includes('e')) {
      if (!fixed.includes('.')) return fixed;
      let end = fixed.length;
      while (fixed.charCodeAt(end - 1) === 48 /* 0 */) end--;
      if (fixed.charCodeAt(end - 1) === 46 /* . */) end--;
      return fixed.slice(0, end);
    }
  }
  const [mant, expText] = x.toExponential(14).split('e');
  const exp = Number(expText);
  const trim = (s: string) => (s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s);
  if (exp < -4 || exp >= 15) {
    const sign = exp < 0 ? '-' : '+';
    const digits = String(Math.abs(exp)).padStart(2, '0');
    return `${trim(mant)}e${sign}${digits}`;
  }
  return trim(x.toFixed(14 - exp));
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
