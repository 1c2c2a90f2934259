/**
 * The one canonical serializer: JSON with object keys in code-point order at
 * every level (arrays keep their order), in two encodings of the leaves:
 * - `canonicalJson`: chef-cli's form for revision ids (domain.md §2): no
 *   whitespace, strings between quotes with no escaping at all, integers as
 *   digits, floats like C's `%.15g`;
 * - `stableJson`: ordinary JSON (strings escaped as JSON.stringify does,
 *   numbers as JS writes them, undefined members left out), optionally
 *   indented: content identity (hashes) and the text diff.
 */
import { JsonNumber } from './json-number';
import { sortCodePoints } from './compare';

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

/** `%g` layout of significant `digits` (no trailing zeros needed) with decimal exponent `exp`. */
function layoutG(sign: string, digits: string, exp: number): string {
  let end = digits.length;
  while (end > 1 && digits.charCodeAt(end - 1) === 48 /* 0 */) end--;
  const trimmed = digits.slice(0, end);
  if (exp < -4 || exp >= 15) {
    const mant = trimmed.length > 1 ? trimmed[0] + '.' + trimmed.slice(1) : trimmed;
    return `${sign}${mant}e${exp < 0 ? '-' : '+'}${exp > -10 && exp < 10 ? '0' : ''}${Math.abs(exp)}`;
  }
  if (exp >= 0) {
    const int = trimmed.length > exp + 1 ? trimmed.slice(0, exp + 1) : trimmed + '0'.repeat(exp + 1 - trimmed.length);
    const frac = trimmed.slice(exp + 1);
    return sign + int + (frac ? '.' + frac : '');
  }
  return sign + '0.' + '0'.repeat(-exp - 1) + trimmed;
}

const MIN_NORMAL = 2.2250738585072014e-308;

/** Significant digits (no leading or trailing zeros) and decimal exponent of a JS number string. */
function decimalDigits(text: string): { digits: string; exp: number } {
  const e = text.indexOf('e');
  const mant = e < 0 ? text : text.slice(0, e);
  const dot = mant.indexOf('.');
  const intLen = dot < 0 ? mant.length : dot;
  const all = dot < 0 ? mant : mant.slice(0, dot) + mant.slice(dot + 1);
  let lead = 0;
  while (lead < all.length - 1 && all.charCodeAt(lead) === 48) lead++;
  let end = all.length;
  while (end > lead + 1 && all.charCodeAt(end - 1) === 48) end--;
  return { digits: all.slice(lead, end), exp: intLen - 1 - lead + (e < 0 ? 0 : Number(text.slice(e + 1))) };
}

/** `%.15g` from `toPrecision(15)` / `toExponential(14)`: correct except on exact ties (rounded away from zero). */
function g15Nearest(x: number): string {
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
  const p = decimalDigits(ax.toExponential(14));
  return layoutG(x < 0 ? '-' : '', p.digits, p.exp);
}

/** Number of significant digits in a JS number string, and its last significant digit's char code. */
function significant(text: string): { count: number; last: number } {
  let count = 0;
  let last = 0;
  let zeros = 0;
  let started = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 101 /* e */) break;
    if (c < 48 || c > 57) continue;
    if (!started && c === 48) continue;
    started = true;
    if (c === 48) zeros++;
    else {
      count += zeros + 1;
      zeros = 0;
      last = c;
    }
  }
  return { count, last };
}

/**
 * Formats a finite number as C's `printf("%.15g")` does (and Ruby's `format`, which chef-cli uses):
 * the 15 significant digits are the exact binary value correctly rounded, exact ties to even.
 * (`toPrecision`/`toExponential` round ties away from zero: `100000000000000.5` would become
 * `…001` where chef-cli writes `100000000000000`.)
 */
export function formatG15(x: number): string {
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const ax = Math.abs(x);
  if (ax >= MIN_NORMAL) {
    // For a normal double the shortest round-trip form S is within half an ulp of x, far less than
    // half a step of the 15-digit grid: x can only be an exact tie if S has exactly 16 significant
    // digits ending in 5. Anything else rounds correctly with toPrecision.
    const short = String(ax);
    const sig = significant(short);
    if (sig.count === 16 && sig.last === 53 /* 5 */) {
      const d = decimalDigits(short);
      if (isExactTie(ax, d.digits.slice(0, 15), d.exp)) return layoutG(x < 0 ? '-' : '', ...roundHalfEven(d.digits.slice(0, 15), d.exp));
    }
    return g15Nearest(x);
  }
  // Subnormals (fewer bits than 15 digits need): 17 digits, then the exact value decides a "50" tail.
  const e17 = ax.toExponential(16);
  const cut = e17.indexOf('e');
  const d17 = e17[0] + e17.slice(2, cut);
  const exp = Number(e17.slice(cut + 1));
  if (d17.slice(15) === '50' && isExactTie(ax, d17.slice(0, 15), exp)) return layoutG(x < 0 ? '-' : '', ...roundHalfEven(d17.slice(0, 15), exp));
  return g15Nearest(x);
}

/** An exact tie after `head` (15 digits): keep an even last digit, round an odd one up. */
function roundHalfEven(head: string, exp: number): [string, number] {
  if ((head.charCodeAt(14) - 48) % 2 === 0) return [head, exp];
  let i = 14;
  while (i >= 0 && head.charCodeAt(i) === 57 /* 9 */) i--;
  if (i < 0) return ['1', exp + 1];
  return [head.slice(0, i) + String.fromCharCode(head.charCodeAt(i) + 1), exp];
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

/** How leaves are written; the structure, key order and layout are the serializer's own. */
interface Encoding {
  string(s: string): string;
  number(n: number | JsonNumber): string;
}

/** chef-cli's canonical leaves: strings between quotes with no escaping, integers as digits, floats as `%.15g`. */
const CHEF: Encoding = {
  string: (s) => '"' + s + '"',
  number: numberText,
};

/** JSON's leaves, as JSON.stringify writes them (a JsonNumber as the JS number it denotes). */
const JSON_TEXT: Encoding = {
  string: (s) => JSON.stringify(s),
  number: (n) => {
    const v = typeof n === 'number' ? n : n.valueOf();
    return Number.isFinite(v) ? String(v) : 'null';
  },
};

/**
 * The serializer: object keys in code-point order at every level, arrays in order, members whose
 * value is `undefined` (or a function) left out as JSON.stringify does, `indent` spaces per level
 * when given. String concatenation (V8 ropes) measured about twice as fast as collecting parts.
 */
function write(value: unknown, enc: Encoding, indent: string, at: string): string | undefined {
  if (value === null) return 'null';
  if (typeof value === 'string') return enc.string(value);
  if (typeof value === 'number' || value instanceof JsonNumber) return enc.number(value);
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (typeof value !== 'object') return undefined;
  const inner = indent ? at + indent : '';
  const sep = indent ? ',\n' + inner : ',';
  if (Array.isArray(value)) {
    if (!value.length) return '[]';
    let out = indent ? '[\n' + inner : '[';
    for (let i = 0; i < value.length; i++) out += (i ? sep : '') + (write(value[i], enc, indent, inner) ?? 'null');
    return out + (indent ? '\n' + at + ']' : ']');
  }
  const obj = value as Record<string, unknown>;
  const keys = sortCodePoints(Object.keys(obj));
  let out = '';
  let n = 0;
  for (let k = 0; k < keys.length; k++) {
    const v = write(obj[keys[k]], enc, indent, inner);
    if (v === undefined) continue;
    out += (n++ ? sep : '') + enc.string(keys[k]) + (indent ? ': ' : ':') + v;
  }
  if (!n) return '{}';
  return indent ? '{\n' + inner + out + '\n' + at + '}' : '{' + out + '}';
}

/** chef-cli's canonical JSON (revision ids): no whitespace, unescaped strings, `%.15g` floats. */
export function canonicalJson(value: unknown): string {
  return write(value, CHEF, '', '') ?? 'null';
}

/** Ordinary JSON with object keys in code-point order at every level (content hashes, the text diff). */
export function stableJson(value: unknown, indent?: number): string {
  return write(value, JSON_TEXT, indent ? ' '.repeat(Math.min(10, indent)) : '', '') ?? 'null';
}
