/**
 * Chef's search query language (Lucene syntax as Chef documents it), parsed
 * into a small tree. Pure: no I/O.
 *
 * Grammar (precedence from loosest to tightest):
 *
 *   query    := '*:*' | orSeq
 *   orSeq    := andSeq ( ('OR' | '||')? andSeq )*      juxtaposition is Lucene's default OR
 *   andSeq   := unary ( ('AND' | '&&') unary )*
 *   unary    := ('NOT' | '!' | '-' | '+') unary | primary boost?
 *   primary  := '(' orSeq ')' | FIELD ':' value | value
 *   value    := '(' orSeq ')' | PHRASE | range | TERM       (a group after FIELD: applies the field to its terms)
 *   range    := ('[' | '{') endpoint 'TO' endpoint (']' | '}')
 *   boost    := '^' NUMBER | '~' NUMBER?                    (accepted, without effect on which objects match)
 *
 * A sequence of clauses follows Lucene's boolean rules: `+x` must match, `-x`
 * (or NOT x) must not, the others are optional when a `+` clause is present and
 * otherwise at least one must match; a query of only prohibited clauses matches
 * everything else. AND binds tighter than OR (as chef-zero parses; Lucene's
 * classic parser gives a different tree for unparenthesised mixes such as
 * `a AND b OR c`).
 */

/** One piece of a term: literal text, or a wildcard (`*` any run, `?` one character). */
export type PatternPart = { lit: string } | { wild: '*' | '?' };

/** A field name or value as written, escapes resolved; `wildcard` when it has an unescaped `*` or `?`. */
export interface Pattern {
  parts: PatternPart[];
  wildcard: boolean;
}

export type SearchQuery =
  | { kind: 'all' }
  | { kind: 'term'; field: Pattern | null; value: Pattern }
  | { kind: 'phrase'; field: Pattern | null; words: string[] }
  | { kind: 'range'; field: Pattern | null; from: string | null; to: string | null; fromInclusive: boolean; toInclusive: boolean }
  | { kind: 'and'; clauses: SearchQuery[] }
  | { kind: 'or'; clauses: SearchQuery[] }
  | { kind: 'not'; clause: SearchQuery };

/** A malformed query: `offset` is the 0-based index of the offending character in the query. */
export class SearchSyntaxError extends Error {
  constructor(
    readonly query: string,
    readonly offset: number,
    readonly reason: string,
  ) {
    super(`Invalid search query at position ${offset + 1}: ${reason}`);
    this.name = 'SearchSyntaxError';
  }
}

/**
 * Issue 41 (finding 5): what one query may cost, checked while it is parsed, before any index is read. `clauses`:
 * terms, phrases and ranges; `wildcards`: the clauses that must scan the index rather than look a value up (a
 * wildcard in the value or in the field name, or no field at all, which matches every field); `depth`: nested
 * groups and prefix operators (`(`, `NOT`, `-`, `+`, `!`).
 */
export interface SearchBudget {
  maxLength: number;
  maxClauses: number;
  maxWildcards: number;
  maxDepth: number;
}

export type SearchBudgetLimit = 'length' | 'clauses' | 'wildcards' | 'depth';

/** A query over its budget: which limit, the limit's value, and what the query has (at least). */
export class SearchBudgetError extends Error {
  constructor(
    readonly limit: SearchBudgetLimit,
    readonly max: number,
    readonly actual: number,
  ) {
    const what = { length: `${actual} characters`, clauses: `${actual} clauses (terms, phrases and ranges)`, wildcards: `${actual} clauses that scan the index (a wildcard, or no field name)`, depth: `nesting deeper than ${max} (groups and NOT/-/+ prefixes)` }[limit];
    super(limit === 'depth' ? `the query has ${what}` : `the query has ${what}; at most ${max}`);
    this.name = 'SearchBudgetError';
  }
}

/** Whether a clause scans the index: no field (every field), a wildcard field name, or a wildcard value other than a lone `*` under a named field. */
function scansIndex(q: Extract<SearchQuery, { kind: 'term' | 'phrase' | 'range' }>): boolean {
  if (!q.field || q.field.wildcard) return true;
  return q.kind === 'term' && q.value.wildcard && !(q.value.parts.length === 1 && 'wild' in q.value.parts[0] && q.value.parts[0].wild === '*');
}

type Tok =
  | { t: 'term'; parts: PatternPart[]; raw: string; at: number; end: number }
  | { t: 'phrase'; text: string; at: number; end: number }
  | { t: 'op'; v: '(' | ')' | '[' | ']' | '{' | '}' | ':' | '^' | '~' | 'AND' | 'OR' | 'NOT' | '+' | '-' | '!'; at: number; end: number };

const PUNCT = new Set(['(', ')', '[', ']', '{', '}', ':', '^', '~', '"']);

/** Splits the query into tokens, resolving escapes. `+`, `-` and `!` are operators only where a term would start. */
function lex(q: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  const ws = (c: string) => /\s/.test(c);
  while (i < q.length) {
    const c = q[i];
    if (ws(c)) {
      i++;
      continue;
    }
    if (c === '"') {
      const at = i;
      let text = '';
      i++;
      for (;;) {
        if (i >= q.length) throw new SearchSyntaxError(q, at, 'unterminated quoted phrase (missing closing ")');
        if (q[i] === '\\') {
          if (i + 1 >= q.length) throw new SearchSyntaxError(q, i, 'backslash at the end of the query escapes nothing');
          text += q[i + 1];
          i += 2;
          continue;
        }
        if (q[i] === '"') {
          i++;
          break;
        }
        text += q[i++];
      }
      out.push({ t: 'phrase', text, at, end: i });
      continue;
    }
    if (PUNCT.has(c)) {
      out.push({ t: 'op', v: c as '(', at: i, end: i + 1 });
      i++;
      continue;
    }
    if ((c === '&' && q[i + 1] === '&') || (c === '|' && q[i + 1] === '|')) {
      out.push({ t: 'op', v: c === '&' ? 'AND' : 'OR', at: i, end: i + 2 });
      i += 2;
      continue;
    }
    if (c === '+' || c === '-' || c === '!') {
      out.push({ t: 'op', v: c, at: i, end: i + 1 });
      i++;
      continue;
    }
    const at = i;
    const parts: PatternPart[] = [];
    let lit = '';
    while (i < q.length && !ws(q[i]) && !PUNCT.has(q[i])) {
      const ch = q[i];
      if (ch === '\\') {
        if (i + 1 >= q.length) throw new SearchSyntaxError(q, i, 'backslash at the end of the query escapes nothing');
        lit += q[i + 1];
        i += 2;
        continue;
      }
      if (ch === '*' || ch === '?') {
        if (lit) parts.push({ lit });
        lit = '';
        parts.push({ wild: ch });
        i++;
        continue;
      }
      lit += ch;
      i++;
    }
    if (lit) parts.push({ lit });
    const raw = q.slice(at, i);
    if (raw === 'AND' || raw === 'OR' || raw === 'NOT') out.push({ t: 'op', v: raw, at, end: i });
    else out.push({ t: 'term', parts, raw, at, end: i });
  }
  return out;
}

function pattern(parts: PatternPart[]): Pattern {
  return { parts, wildcard: parts.some((p) => 'wild' in p) };
}

/** The literal text of a pattern (wildcards kept as `*` / `?`). */
export function patternText(p: Pattern): string {
  return p.parts.map((x) => ('lit' in x ? x.lit : x.wild)).join('');
}

type Occur = 'must' | 'mustNot' | 'should';

class Parser {
  private i = 0;
  private depth = 0;
  private clauses = 0;
  private wildcards = 0;
  constructor(
    private readonly q: string,
    private readonly toks: Tok[],
    private readonly budget?: SearchBudget,
  ) {}

  /** One level deeper (a group, a prefix operator): refused past the budget before recursing further. */
  private enter() {
    this.depth++;
    if (this.budget && this.depth > this.budget.maxDepth) throw new SearchBudgetError('depth', this.budget.maxDepth, this.depth);
  }

  /** A clause (term, phrase, range) counted against the budget as soon as it is read. */
  private leaf<Q extends Extract<SearchQuery, { kind: 'term' | 'phrase' | 'range' }>>(q: Q): Q {
    if (!this.budget) return q;
    if (++this.clauses > this.budget.maxClauses) throw new SearchBudgetError('clauses', this.budget.maxClauses, this.clauses);
    if (scansIndex(q) && ++this.wildcards > this.budget.maxWildcards) throw new SearchBudgetError('wildcards', this.budget.maxWildcards, this.wildcards);
    return q;
  }

  private peek(): Tok | undefined {
    return this.toks[this.i];
  }
  private isOp(v: string, tok = this.peek()): boolean {
    return !!tok && tok.t === 'op' && tok.v === v;
  }
  private fail(tok: Tok | undefined, reason: string): never {
    throw new SearchSyntaxError(this.q, tok ? tok.at : this.q.length, reason);
  }
  private describe(tok: Tok | undefined): string {
    if (!tok) return 'the end of the query';
    if (tok.t === 'op') return `'${tok.v}'`;
    if (tok.t === 'phrase') return 'a quoted phrase';
    return `'${tok.raw}'`;
  }

  parse(): SearchQuery {
    if (this.toks.length === 0) this.fail(undefined, 'the query is empty');
    const result = this.orSeq(null);
    const rest = this.peek();
    if (rest) this.fail(rest, rest.t === 'op' && rest.v === ')' ? "unbalanced ')' (no matching '(')" : `unexpected ${this.describe(rest)}`);
    return result;
  }

  /** A sequence of clauses joined by OR or juxtaposition, with Lucene's +/- occurrence rules. */
  private orSeq(field: Pattern | null): SearchQuery {
    const items: { q: SearchQuery; occur: Occur }[] = [];
    for (;;) {
      items.push(this.andSeq(field));
      const tok = this.peek();
      if (!tok || this.isOp(')')) break;
      if (this.isOp('OR')) {
        this.i++;
        if (!this.peek() || this.isOp(')')) this.fail(this.peek(), `OR needs a clause after it, found ${this.describe(this.peek())}`);
      }
    }
    return combine(items);
  }

  private andSeq(field: Pattern | null): { q: SearchQuery; occur: Occur } {
    const first = this.unary(field);
    if (!this.isOp('AND')) return first;
    const clauses: SearchQuery[] = [asClause(first)];
    while (this.isOp('AND')) {
      this.i++;
      if (!this.peek() || this.isOp(')')) this.fail(this.peek(), `AND needs a clause after it, found ${this.describe(this.peek())}`);
      clauses.push(asClause(this.unary(field)));
    }
    return { q: { kind: 'and', clauses }, occur: 'should' };
  }

  private unary(field: Pattern | null): { q: SearchQuery; occur: Occur } {
    const tok = this.peek();
    if (tok && tok.t === 'op' && (tok.v === 'NOT' || tok.v === '!' || tok.v === '-' || tok.v === '+')) {
      this.i++;
      const next = this.peek();
      if (!next || (next.t === 'op' && [')', ']', '}', ':', '^', '~', 'AND', 'OR'].includes(next.v))) {
        this.fail(next, `${tok.v} needs a clause after it, found ${this.describe(next)}`);
      }
      this.enter();
      const inner = this.unary(field);
      this.depth--;
      const q = asClause(inner);
      if (tok.v === '+') return { q, occur: 'must' };
      return { q, occur: 'mustNot' };
    }
    const q = this.primary(field);
    this.modifiers();
    return { q, occur: 'should' };
  }

  /** `^2`, `~`, `~0.8`: boosts and fuzziness change ranking in Lucene, not which objects match. */
  private modifiers() {
    while (this.isOp('^') || this.isOp('~')) {
      const op = this.toks[this.i++] as Tok & { t: 'op' };
      const n = this.peek();
      const numeric = n && n.t === 'term' && /^\d+(\.\d+)?$/.test(n.raw) && n.at === op.end;
      if (numeric) this.i++;
      else if (op.v === '^') this.fail(n, `'^' needs a number (a boost), found ${this.describe(n)}`);
    }
  }

  private primary(field: Pattern | null): SearchQuery {
    const tok = this.peek();
    if (!tok) return this.fail(tok, 'expected a term, found the end of the query');
    if (this.isOp('(')) return this.group(field);
    if (tok.t === 'term') {
      const colon = this.toks[this.i + 1];
      if (colon && this.isOp(':', colon) && colon.at === tok.end) {
        if (field) this.fail(colon, `a field inside a field group (${patternText(field)}:(…)) cannot name another field`);
        this.i += 2;
        const f = pattern(tok.parts);
        const valueTok = this.peek();
        if (!valueTok) this.fail(valueTok, `field '${tok.raw}' needs a value after ':'`);
        if (f.parts.length === 1 && 'wild' in f.parts[0] && f.parts[0].wild === '*' && valueTok.t === 'term' && valueTok.raw === '*') {
          this.i++;
          return { kind: 'all' };
        }
        return this.value(f);
      }
    }
    return this.value(field);
  }

  private group(field: Pattern | null): SearchQuery {
    const open = this.toks[this.i++];
    if (!this.peek()) this.fail(this.peek(), "unbalanced '(' (no matching ')')");
    if (this.isOp(')')) this.fail(this.peek(), 'empty parentheses');
    this.enter();
    const inner = this.orSeq(field);
    this.depth--;
    if (!this.isOp(')')) this.fail(this.peek() ?? { t: 'op', v: '(', at: open.at, end: open.end }, "unbalanced '(' (no matching ')')");
    this.i++;
    return inner;
  }

  private value(field: Pattern | null): SearchQuery {
    const tok = this.peek();
    if (!tok) return this.fail(tok, 'expected a value, found the end of the query');
    if (this.isOp('(')) return this.group(field);
    if (tok.t === 'phrase') {
      this.i++;
      const words = tok.text.split(/\s+/).filter(Boolean);
      if (words.length === 0) this.fail(tok, 'empty quoted phrase');
      return this.leaf({ kind: 'phrase', field, words });
    }
    if (this.isOp('[') || this.isOp('{')) return this.range(field);
    if (tok.t === 'term') {
      this.i++;
      if (tok.parts.length === 0) this.fail(tok, 'empty term');
      return this.leaf({ kind: 'term', field, value: pattern(tok.parts) });
    }
    return this.fail(tok, `expected a term, found ${this.describe(tok)}`);
  }

  private range(field: Pattern | null): SearchQuery {
    const open = this.toks[this.i++] as Tok & { t: 'op' };
    const endpoint = (): string | null => {
      const t = this.peek();
      if (t && t.t === 'term') {
        this.i++;
        return t.raw === '*' ? null : t.parts.map((p) => ('lit' in p ? p.lit : p.wild)).join('');
      }
      if (t && t.t === 'phrase') {
        this.i++;
        return t.text;
      }
      return this.fail(t, `a range needs a value, found ${this.describe(t)}`);
    };
    const from = endpoint();
    const to = this.peek();
    if (!to || to.t !== 'term' || to.raw !== 'TO') this.fail(to, `a range needs 'TO' between its ends, found ${this.describe(to)}`);
    this.i++;
    const toValue = endpoint();
    const close = this.peek();
    if (!this.isOp(']') && !this.isOp('}')) this.fail(close, `a range ends with ']' or '}', found ${this.describe(close)}`);
    this.i++;
    return this.leaf({ kind: 'range', field, from, to: toValue, fromInclusive: open.v === '[', toInclusive: (close as Tok & { t: 'op' }).v === ']' });
  }
}

function asClause(x: { q: SearchQuery; occur: Occur }): SearchQuery {
  return x.occur === 'mustNot' ? { kind: 'not', clause: x.q } : x.q;
}

/** Lucene's BooleanQuery: all musts, none of the must-nots, and (without musts) at least one should. */
function combine(items: { q: SearchQuery; occur: Occur }[]): SearchQuery {
  if (items.length === 1) return asClause(items[0]);
  const must = items.filter((x) => x.occur === 'must').map((x) => x.q);
  const mustNot = items.filter((x) => x.occur === 'mustNot').map((x) => ({ kind: 'not', clause: x.q }) as SearchQuery);
  const should = items.filter((x) => x.occur === 'should').map((x) => x.q);
  if (!must.length && !mustNot.length) return { kind: 'or', clauses: should };
  const clauses: SearchQuery[] = [...must];
  if (!must.length && should.length) clauses.push(should.length === 1 ? should[0] : { kind: 'or', clauses: should });
  clauses.push(...mustNot);
  return clauses.length === 1 ? clauses[0] : { kind: 'and', clauses };
}

/**
 * Parses a Chef search query; throws SearchSyntaxError naming the position of the first problem. With `budget`
 * (issue 41), a query over it throws SearchBudgetError naming the limit: its length before anything else, its
 * nesting before the parser goes deeper, its clauses as they are read.
 */
export function parseSearchQuery(query: string, budget?: SearchBudget): SearchQuery {
  if (budget && query.length > budget.maxLength) throw new SearchBudgetError('length', budget.maxLength, query.length);
  return new Parser(query, lex(query), budget).parse();
}
