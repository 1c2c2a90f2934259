/**
 * Ruby value semantics the include_policy merge depends on (chef-cli compares and unions attribute
 * values with Ruby's `==`, `eql?` and `Array#|`). Numbers may be JS numbers or {@link JsonNumber}
 * lexemes: a lexeme with '.', 'e' or 'E' is a Ruby Float, anything else an Integer (exact, any size).
 */
import { JsonNumber, orderedKeys } from '../lock/json';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);

type Num = { float: true; value: number } | { float: false; value: bigint };

function asNum(v: unknown): Num | null {
  if (v instanceof JsonNumber) return v.isFloat ? { float: true, value: Number(v.lexeme) } : { float: false, value: BigInt(v.lexeme) };
  if (typeof v === 'number') return Number.isInteger(v) && !Object.is(v, -0) ? { float: false, value: BigInt(v) } : { float: true, value: v };
  return null;
}

/** Ruby's `==` between two numbers: exact, Integer against Float included (`1 == 1.0`, `0.0 == -0.0`). */
function numEq(a: Num, b: Num): boolean {
  if (a.float && b.float) return a.value === b.value;
  if (!a.float && !b.float) return a.value === b.value;
  const f = (a.float ? a.value : b.value) as number;
  const i = (a.float ? b.value : a.value) as bigint;
  return Number.isFinite(f) && Number.isInteger(f) && BigInt(f) === i;
}

/** Ruby's `==` on JSON values (Array#== and Hash#== compare members with `==`). */
export function rubyEq(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const na = asNum(a);
  const nb = asNum(b);
  if (na || nb) return !!na && !!nb && numEq(na, nb);
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => rubyEq(x, b[i]));
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && rubyEq(a[k], b[k]));
  }
  return false;
}

/** A string equal for two values exactly when Ruby's `eql?` (and `hash`) say they are the same. */
export function eqlKey(v: unknown): string {
  const n = asNum(v);
  if (n) return n.float ? 'f' + (n.value === 0 ? '0' : String(n.value)) : 'i' + n.value.toString();
  if (typeof v === 'string') return 's' + JSON.stringify(v);
  if (v === null || v === undefined) return 'n';
  if (typeof v === 'boolean') return v ? 't' : 'b';
  if (Array.isArray(v)) return '[' + v.map(eqlKey).join(',') + ']';
  if (isObject(v)) return '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + eqlKey(v[k])).join(',') + '}';
  return '?';
}

/** Ruby's `dest | source`: both arrays' members in order, duplicates (by `eql?`) dropped, first kept. */
export function rubyUnion(dest: unknown[], source: unknown[]): unknown[] {
  const seen = new Set<string>();
  const out: unknown[] = [];
  for (const x of [...dest, ...source]) {
    const k = eqlKey(x);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(x);
  }
  return out;
}

export { isObject, orderedKeys };
