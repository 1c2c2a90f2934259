/**
 * Java's String.CASE_INSENSITIVE_ORDER, exactly: per UTF-16 code unit, equal
 * units match; otherwise compare upper-cased, then lower-cased units; a
 * prefix sorts first. Not numeric, not locale-aware.
 */
export function javaCaseInsensitiveCompare(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let c1 = a.charCodeAt(i);
    let c2 = b.charCodeAt(i);
    if (c1 === c2) continue;
    c1 = upper(c1);
    c2 = upper(c2);
    if (c1 === c2) continue;
    c1 = lower(c1);
    c2 = lower(c2);
    if (c1 !== c2) return c1 - c2;
  }
  return a.length - b.length;
}

// Character.toUpperCase / toLowerCase on a single UTF-16 unit (one-to-one mappings only, as Java's char versions).
function upper(c: number): number {
  const s = String.fromCharCode(c);
  const u = s.toUpperCase();
  return u.length === 1 ? u.charCodeAt(0) : c;
}
function lower(c: number): number {
  const s = String.fromCharCode(c);
  const l = s.toLowerCase();
  return l.length === 1 ? l.charCodeAt(0) : c;
}

/** Element-wise comparison of name tuples; missing elements count as "". */
export function compareNamePairs(a: readonly string[], b: readonly string[]): number {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = javaCaseInsensitiveCompare(a[i] ?? '', b[i] ?? '');
    if (c !== 0) return c;
  }
  return 0;
}
