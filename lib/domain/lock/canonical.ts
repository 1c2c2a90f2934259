/**
 * chef-cli's canonical JSON for revision ids (domain.md §2): keys sorted, no
 * whitespace, strings between quotes with no escaping at all, integers as
 * digits, floats like C's `%.15g`.
 */
import { JsonNumber } from './json';

/** Formats a finite number as C's `printf("%.15g")` does. */
export function formatG15(x: number): string {
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
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

/** Keys that are pure ASCII sort the same way under `<` as by code point; only fall back when needed. */
function sortKeys(keys: string[]): string[] {
  // eslint-disable-next-line no-control-regex
  const ascii = keys.every((k) => /^[\u0000-\ud7ff]*$/.test(k));
  return ascii ? keys.sort() : keys.sort(compareCodePoints);
}

export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (typeof value === 'string') return '"' + value + '"';
  if (typeof value === 'number' || value instanceof JsonNumber) return numberText(value);
  if (Array.isArray(value)) return '[' + value.map(canonicalJson).join(',') + ']';
  if (typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const keys = sortKeys(Object.keys(obj));
    let out = '{';
    for (let k = 0; k < keys.length; k++) {
      if (k) out += ',';
      out += '"' + keys[k] + '":' + canonicalJson(obj[keys[k]]);
    }
    return out + '}';
  }
  return 'null';
}
