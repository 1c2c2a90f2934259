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

/** Does any of the strings hold a UTF-16 surrogate (a character above U+FFFF)? */
function hasSurrogate(keys: string[]): boolean {
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k];
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdfff) return true;
    }
  }
  return false;
}

/**
 * Sorts `keys` in place in code-point order and returns them. The default sort agrees with
 * code-point order unless a key holds a surrogate pair; one pass over the keys is much cheaper
 * than comparing by code point. Keys already in order (a lock as chef-cli writes it) are left.
 */
export function sortCodePoints(keys: string[]): string[] {
  for (let i = 1; i < keys.length; i++) {
    if (keys[i - 1] > keys[i]) {
      keys.sort();
      break;
    }
  }
  return keys.length > 1 && hasSurrogate(keys) ? keys.sort(compareCodePoints) : keys;
}
