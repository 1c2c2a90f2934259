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
const view = new DataView(new ArrayBuffer(8));
/** Trailing zero bits of a non-zero 32-bit integer. */
const ctz32 = (v: number) => 31 - Math.clz32(v & -v);

/** e in `ax = odd * 2^e`, for a positive finite double. */
function binaryExponent(ax: number): number {
  view.setFloat64(0, ax);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  const top = biased === 0 ? hi & 0xfffff : (hi & 0xfffff) | 0x100000;
  return (biased === 0 ? -1074 : biased - 1075) + (lo !== 0 ? ctz32(lo) : 32 + ctz32(top));
}

function isExactTie(ax: number, digits15: string, exp10: number): boolean {
  // Quick refusal: equal numbers have as many decimal places. ax = odd * 2^e, which has max(0, -e)
  // decimal places; the tie ends in its 5 at 10^(exp10 - 15): 15 - exp10 places when that is positive.
  const e = binaryExponent(ax);
  if (Math.max(0, -e) !== Math.max(0, 15 - exp10)) return false;
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

/**
 * Formats a finite number as C's `printf("%.15g")` does (and Ruby's `format`, which chef-cli uses):
 * the 15 significant digits are the exact binary value correctly rounded, exact ties to even.
 * (`toPrecision`/`toExponential` round ties away from zero: `100000000000000.5` would become
 * `…001` where chef-cli writes `100000000000000`.)
 *
 * For a normal double, the shortest round-trip form S (`String(x)`, the closest of the shortest) is
 * within half an ulp of x, far less than half a step of the 15-digit grid, and no decimal of at most
 * 16 digits lies strictly between x and S (it would be a shorter or a closer round-trip form). So:
 * S with at most 15 digits is the answer; S with 17 digits, or 16 not ending in 5, rounds like x
 * (its digits after the 15th are never exactly a half); only S with 16 digits ending in 5 may be an
 * exact tie, decided on the exact binary value.
 */
export function formatG15(x: number): string {
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const ax = Math.abs(x);
  if (ax >= MIN_NORMAL && ax !== Infinity) {
    // Most numbers cannot be an exact tie at all: in [1e-4, 1e15) a tie has 16 significant digits, so
    // at most 19 decimal places and a fraction; ax = odd * 2^e has exactly max(0, -e) decimal places.
    if (ax >= 1e-4 && ax < 1e15) {
      const e = binaryExponent(ax);
      if (e >= 0 || e < -20) return g15Nearest(x);
    }
    const short = String(ax);
    const d = decimalDigits(short);
    const sign = x < 0 ? '-' : '';
    const n = d.digits.length;
    if (n <= 15) return layoutG(sign, d.digits, d.exp);
    const next = d.digits.charCodeAt(15);
    if (n === 16 && next === 53 /* 5 */) {
      if (isExactTie(ax, d.digits.slice(0, 15), d.exp)) return layoutG(sign, ...roundHalfEven(d.digits.slice(0, 15), d.exp));
      return g15Nearest(x);
    }
    const head = d.digits.slice(0, 15);
    return next >= 53 ? layoutG(sign, ...roundUp(head, d.exp)) : layoutG(sign, head, d.exp);
  }
  if (ax >= MIN_NORMAL || ax !== ax) return g15Nearest(x); // Infinity, NaN: as before (JSON has neither)
  // Subnormals (fewer bits than 15 digits need): 17 digits, then the exact value decides a "50" tail.
  const e17 = ax.toExponential(16);
  const cut = e17.indexOf('e');
  const d17 = e17[0] + e17.slice(2, cut);
  const exp = Number(e17.slice(cut + 1));
  if (d17.slice(15) === '50' && isExactTie(ax, d17.slice(0, 15), exp)) return layoutG(x < 0 ? '-' : '', ...roundHalfEven(d17.slice(0, 15), exp));
  return g15Nearest(x);
}

/** 15 digits rounded up by one unit in the last place (`999…` carries into a new leading 1). */
function roundUp(head: string, exp: number): [string, number] {
  let i = 14;
  while (i >= 0 && head.charCodeAt(i) === 57 /* 9 */) i--;
  if (i < 0) return ['1', exp + 1];
  return [head.slice(0, i) + String.fromCharCode(head.charCodeAt(i) + 1), exp];
}

/** An exact tie after `head` (15 digits): keep an even last digit, round an odd one up. */
function roundHalfEven(head: string, exp: number): [string, number] {
  if ((head.charCodeAt(14) - 48) % 2 === 0) return [head, exp];
  return roundUp(head, exp);
}

const INTEGER_LEXEME = /^-?(?:0|[1-9]\d*)$/;

function numberText(n: number | JsonNumber): string {
  if (n instanceof JsonNumber) {
    const lexeme = n.lexeme;
    if (n.isFloat) return formatG15(Number(lexeme));
    // A JSON integer is already in Ruby's Integer#to_s form, but for "-0".
    if (INTEGER_LEXEME.test(lexeme)) return lexeme === '-0' ? '0' : lexeme;
    return BigInt(lexeme).toString();
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
  const sink = new TextSink();
  if (!writeCanonical(value, sink)) return 'null';
  return sink.end();
}

/**
 * Text written piece by piece. With `flushAt`, every `flushAt` characters or so the text so far goes
 * to `flush` (a hash being fed) and is dropped: a composed lock's megabytes of canonical JSON are
 * never one string, and what is written dies young. Pieces are never split, so a chunk never ends
 * inside a surrogate pair (every piece the writers give ends in ASCII).
 */
export class TextSink {
  private text = '';
  constructor(
    private readonly flushAt = Infinity,
    private readonly flush?: (chunk: string) => void,
  ) {}
  add(piece: string): void {
    this.text += piece;
    if (this.text.length > this.flushAt) {
      this.flush!(this.text);
      this.text = '';
    }
  }
  /** The text not yet flushed (all of it, without `flushAt`). */
  end(): string {
    const rest = this.text;
    this.text = '';
    return rest;
  }
}

/** What JSON leaves out of an object (and writes as null in an array). */
const omitted = (v: unknown) => v === undefined || typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint';

/**
 * The serializer's walk (keys in code-point order, arrays in order, undefined members left out)
 * with chef-cli's leaves, written out on its own: every revision id pays for it, on tens of
 * thousands of attribute leaves in a composed lock. Returns false, writing nothing, for what JSON
 * leaves out.
 */
export function writeCanonical(value: unknown, sink: TextSink): boolean {
  if (typeof value === 'string') sink.add('"' + value + '"');
  else if (typeof value === 'number') sink.add(numberText(value));
  else if (value === null) sink.add('null');
  else if (value === true) sink.add('true');
  else if (value === false) sink.add('false');
  else if (typeof value !== 'object') return false;
  else if (value instanceof JsonNumber) sink.add(numberText(value));
  else if (Array.isArray(value)) {
    sink.add('[');
    for (let i = 0; i < value.length; i++) {
      if (i) sink.add(',');
      if (!writeCanonical(value[i], sink)) sink.add('null');
    }
    sink.add(']');
  } else {
    const obj = value as Record<string, unknown>;
    const keys = sortCodePoints(Object.keys(obj));
    sink.add('{');
    let first = true;
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k];
      const v = obj[key];
      if (omitted(v)) continue;
      sink.add(first ? '"' + key + '":' : ',"' + key + '":');
      first = false;
      writeCanonical(v, sink);
    }
    sink.add('}');
  }
  return true;
}

/** Ordinary JSON with object keys in code-point order at every level (content hashes, the text diff). */
export function stableJson(value: unknown, indent?: number): string {
  return write(value, JSON_TEXT, indent ? ' '.repeat(Math.min(10, indent)) : '', '') ?? 'null';
}
