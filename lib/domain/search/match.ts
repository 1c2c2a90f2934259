/**
 * What a query means, over the rows an object is indexed by: the reference
 * the database query (lib/db/queries/search.ts) must agree with (property
 * tests compare the two). Values and fields compare lowercased, as Chef's
 * Solr analyser lowercases tokens.
 */
import { MAX_TOKEN, normaliseField, normaliseValue, type IndexRow } from './expand';
import type { Pattern, PatternPart, SearchQuery } from './parse';

/** A pattern lowercased (fields and values are stored lowercased). */
export function lowerPattern(p: Pattern): Pattern {
  return { wildcard: p.wildcard, parts: p.parts.map((x) => ('lit' in x ? { lit: x.lit.toLowerCase() } : x)) };
}

/** The literal a non-wildcard value pattern stands for, as stored. */
export function literalValue(p: Pattern): string {
  return normaliseValue(p.parts.map((x) => ('lit' in x ? x.lit : x.wild)).join(''));
}

export function literalField(p: Pattern): string {
  return normaliseField(p.parts.map((x) => ('lit' in x ? x.lit : x.wild)).join(''));
}

/** True when the pattern is a lone `*` (any value: the field exists). */
export function isMatchAll(p: Pattern): boolean {
  return p.parts.length > 0 && p.parts.every((x) => 'wild' in x && x.wild === '*');
}

/** A JavaScript RegExp for a (lowercased) wildcard pattern: `*` any run, `?` one character. */
export function patternRegExp(p: Pattern): RegExp {
  const src = p.parts
    .map((x: PatternPart) => ('lit' in x ? x.lit.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : x.wild === '*' ? '[\\s\\S]*' : '[\\s\\S]'))
    .join('');
  return new RegExp(`^${src}$`, 'u');
}

function fieldMatches(field: Pattern | null, row: IndexRow): boolean {
  if (!field) return true;
  if (!field.wildcard) {
    const f = literalField(field);
    return row.path === f || row.leaf === f;
  }
  const re = patternRegExp(field);
  return re.test(row.path) || re.test(row.leaf);
}

/** The stored value a phrase matches: the words joined by single spaces. */
export function phraseValue(words: string[]): string {
  return normaliseValue(words.join(' '));
}

function valueMatches(q: Exclude<SearchQuery, { kind: 'all' | 'and' | 'or' | 'not' }>, value: string): boolean {
  switch (q.kind) {
    case 'term':
      if (!q.value.wildcard) return value === literalValue(q.value);
      return patternRegExp(q.value).test(value);
    case 'phrase': {
      const p = phraseValue(q.words);
      return value === p || (p.length < MAX_TOKEN && value.startsWith(`${p} `));
    }
    case 'range': {
      const from = q.from === null ? null : normaliseValue(q.from);
      const to = q.to === null ? null : normaliseValue(q.to);
      if (from !== null && (q.fromInclusive ? value < from : value <= from)) return false;
      if (to !== null && (q.toInclusive ? value > to : value >= to)) return false;
      return true;
    }
  }
}

/** Whether an object indexed by `rows` matches the query. */
export function matchesRows(q: SearchQuery, rows: readonly IndexRow[]): boolean {
  switch (q.kind) {
    case 'all':
      return true;
    case 'and':
      return q.clauses.every((c) => matchesRows(c, rows));
    case 'or':
      return q.clauses.some((c) => matchesRows(c, rows));
    case 'not':
      return !matchesRows(q.clause, rows);
    default:
      return rows.some((r) => fieldMatches(q.field, r) && valueMatches(q, r.value));
  }
}
