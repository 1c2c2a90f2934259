/**
 * Code-point order of strings, as Ruby sorts string keys (byte-wise on UTF-8)
 * and as RFC 8785 canonical JSON does. JavaScript's default `<` and `sort()`
 * compare UTF-16 code units instead, which puts a character above U+FFFF
 * (a surrogate pair, 0xD800–0xDFFF) before U+E000–U+FFFF.
 */
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

/**
 * Sorts `keys` in place in code-point order and returns them. The default sort agrees with
 * code-point order unless a key holds a surrogate pair; one test over all keys is much cheaper
 * than comparing by code point.
 */
export function sortCodePoints(keys: string[]): string[] {
  keys.sort();
  return keys.length > 1 && SURROGATE.test(keys.join('')) ? keys.sort(compareCodePoints) : keys;
}
