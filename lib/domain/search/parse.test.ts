import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseSearchQuery, patternText, SearchBudgetError, SearchSyntaxError, type Pattern, type SearchBudget, type SearchQuery } from './parse';

const lit = (s: string): Pattern => ({ parts: [{ lit: s }], wildcard: false });
const term = (field: string | null, value: string): SearchQuery => ({ kind: 'term', field: field === null ? null : lit(field), value: lit(value) });

/** A compact rendering of a tree, to keep the table readable. */
function show(q: SearchQuery): string {
  switch (q.kind) {
    case 'all':
      return '*:*';
    case 'term':
      return `${q.field ? patternText(q.field) + ':' : ''}${patternText(q.value)}`;
    case 'phrase':
      return `${q.field ? patternText(q.field) + ':' : ''}"${q.words.join(' ')}"`;
    case 'range':
      return `${q.field ? patternText(q.field) + ':' : ''}${q.fromInclusive ? '[' : '{'}${q.from ?? '*'} TO ${q.to ?? '*'}${q.toInclusive ? ']' : '}'}`;
    case 'and':
      return `(${q.clauses.map(show).join(' & ')})`;
    case 'or':
      return `(${q.clauses.map(show).join(' | ')})`;
    case 'not':
      return `!${show(q.clause)}`;
  }
}

describe('parseSearchQuery: every construct', () => {
  it.each([
    ['*:*', '*:*'],
    ['name:web1', 'name:web1'],
    ['policy_group:production AND platform:ubuntu', '(policy_group:production & platform:ubuntu)'],
    ['a:1 && b:2', '(a:1 & b:2)'],
    ['a:1 OR b:2', '(a:1 | b:2)'],
    ['a:1 || b:2', '(a:1 | b:2)'],
    ['a:1 b:2', '(a:1 | b:2)'],
    ['NOT a:1', '!a:1'],
    ['!a:1', '!a:1'],
    ['-a:1', '!a:1'],
    ['a:1 -b:2', '(a:1 & !b:2)'],
    ['a:1 AND NOT b:2', '(a:1 & !b:2)'],
    ['+a:1 b:2', 'a:1'],
    ['+a:1 +b:2 -c:3', '(a:1 & b:2 & !c:3)'],
    ['a:1 AND b:2 OR c:3', '((a:1 & b:2) | c:3)'],
    ['a:1 OR b:2 AND c:3', '(a:1 | (b:2 & c:3))'],
    ['a:1 AND (b:2 OR c:3)', '(a:1 & (b:2 | c:3))'],
    ['((a:1))', 'a:1'],
    ['tags:(web OR db)', '(tags:web | tags:db)'],
    ['name:web*', 'name:web*'],
    ['name:w?b1', 'name:w?b1'],
    ['name:*', 'name:*'],
    ['*:web1', '*:web1'],
    ['kernel_*:5.15', 'kernel_*:5.15'],
    ['fqdn:"web1 example"', 'fqdn:"web1 example"'],
    ['"just words"', '"just words"'],
    ['uptime_seconds:[100 TO 200]', 'uptime_seconds:[100 TO 200]'],
    ['uptime_seconds:{100 TO 200}', 'uptime_seconds:{100 TO 200}'],
    ['uptime_seconds:[100 TO 200}', 'uptime_seconds:[100 TO 200}'],
    ['v:[* TO 5]', 'v:[* TO 5]'],
    ['v:[a TO *]', 'v:[a TO *]'],
    ['v:["a b" TO "c d"]', 'v:[a b TO c d]'],
    ['run_list:recipe\\[apache2\\]', 'run_list:recipe[apache2]'],
    ['run_list:recipe\\[foo\\:\\:bar\\]', 'run_list:recipe[foo::bar]'],
    ['path:foo\\/*', 'path:foo/*'],
    ['id:foo-bar', 'id:foo-bar'],
    ['id:foo* AND NOT bar', '(id:foo* & !bar)'],
    ['name:web1^2', 'name:web1'],
    ['name:web1~', 'name:web1'],
    ['name:web1~0.8 OR x:y', '(name:web1 | x:y)'],
    ['web1', 'web1'],
    ['  name:web1  ', 'name:web1'],
    ['email:a+b@example.com', 'email:a+b@example.com'],
    ['a\\ b:c', 'a b:c'],
    ['a:\\*', 'a:*'],
  ])('%s', (q, want) => {
    expect(show(parseSearchQuery(q))).toBe(want);
  });

  it('keeps escaped wildcards literal and bare ones as wildcards', () => {
    expect(parseSearchQuery('a:\\*')).toStrictEqual(term('a', '*'));
    const q = parseSearchQuery('a:x*y?') as Extract<SearchQuery, { kind: 'term' }>;
    expect(q.value).toStrictEqual({ wildcard: true, parts: [{ lit: 'x' }, { wild: '*' }, { lit: 'y' }, { wild: '?' }] });
  });

  it('reads AND, OR, NOT as operators only in capitals', () => {
    expect(show(parseSearchQuery('a:1 and b:2'))).toBe('(a:1 | and | b:2)');
  });
});

describe('parseSearchQuery: malformed queries name the position', () => {
  it.each([
    ['', 1, 'empty'],
    ['   ', 4, 'empty'],
    ['name:', 6, "needs a value"],
    ['(name:web', 1, "unbalanced '('"],
    ['name:web)', 9, "unbalanced ')'"],
    ['a:1 AND', 8, 'AND needs a clause'],
    ['a:1 OR', 7, 'OR needs a clause'],
    ['AND a:1', 1, "expected a term, found 'AND'"],
    ['a:"open', 3, 'unterminated'],
    ['a:[1 TO 2', 10, "ends with ']' or '}'"],
    ['a:[1 2]', 6, "needs 'TO'"],
    ['a:b\\', 4, 'backslash'],
    ['()', 2, 'empty parentheses'],
    ['NOT', 4, 'NOT needs a clause'],
    ['a:1 ^x', 6, "'^' needs a number"],
    ['a:b:c', 4, "expected a term, found ':'"],
    ['a:(b:c)', 5, 'cannot name another field'],
  ])('%j', (q, position, reason) => {
    let err: unknown;
    try {
      parseSearchQuery(q);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SearchSyntaxError);
    const e = err as SearchSyntaxError;
    expect(e.offset + 1).toBe(position);
    expect(e.message).toContain(`position ${position}`);
    expect(e.message).toContain(reason);
  });
});

// Property tests: queries printed from random trees parse back to the same tree.
const word = fc.stringMatching(/^[a-z0-9][a-z0-9_.-]{0,6}$/).filter((w) => !['TO'].includes(w));
const fieldName = fc.stringMatching(/^[a-z][a-z0-9_]{0,6}$/);

type Gen = { text: string; tree: string };
const leaf: fc.Arbitrary<Gen> = fc.oneof(
  fc.tuple(fieldName, word).map(([f, v]) => ({ text: `${f}:${v}`, tree: `${f}:${v}` })),
  fc.tuple(fieldName, word).map(([f, v]) => ({ text: `${f}:${v}*`, tree: `${f}:${v}*` })),
  fc.tuple(fieldName, word, word).map(([f, a, b]) => ({ text: `${f}:[${a} TO ${b}]`, tree: `${f}:[${a} TO ${b}]` })),
  fc.tuple(fieldName, word, word).map(([f, a, b]) => ({ text: `${f}:"${a} ${b}"`, tree: `${f}:"${a} ${b}"` })),
);
const expr: fc.Arbitrary<Gen> = fc.letrec<{ e: Gen }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.tuple(tie('e'), tie('e')).map(([a, b]) => ({ text: `(${a.text}) AND (${b.text})`, tree: `(${a.tree} & ${b.tree})` })),
    fc.tuple(tie('e'), tie('e')).map(([a, b]) => ({ text: `(${a.text}) OR (${b.text})`, tree: `(${a.tree} | ${b.tree})` })),
    tie('e').map((a) => ({ text: `NOT (${a.text})`, tree: `!${a.tree}` })),
  ),
})).e;

describe('parseSearchQuery: properties', () => {
  it('a printed tree parses back to itself', () => {
    fc.assert(
      fc.property(expr, (g) => {
        expect(show(parseSearchQuery(g.text))).toBe(g.tree);
      }),
      { numRuns: 500 },
    );
  });

  it('never throws anything but SearchSyntaxError, on any input', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40, unit: fc.constantFrom('a', 'b', ':', '*', '?', '(', ')', '[', ']', '{', '}', '"', '\\', ' ', 'AND ', 'OR ', 'NOT ', '-', '+', '!', '^', '~', 'TO ', '1') }), (s) => {
        try {
          parseSearchQuery(s);
        } catch (e) {
          expect(e).toBeInstanceOf(SearchSyntaxError);
          const off = (e as SearchSyntaxError).offset;
          expect(off).toBeGreaterThanOrEqual(0);
          expect(off).toBeLessThanOrEqual(s.length);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('the query budget (issue 41)', () => {
  const budget: SearchBudget = { maxLength: 200, maxClauses: 5, maxWildcards: 2, maxDepth: 3 };
  const over = (q: string) => {
    try {
      parseSearchQuery(q, budget);
    } catch (e) {
      if (e instanceof SearchBudgetError) return [e.limit, e.max];
      throw e;
    }
    return null;
  };
  it('names the limit a query goes over, and takes a query at every limit', () => {
    expect(over('x'.repeat(201))).toEqual(['length', 200]);
    expect(over('a:1 b:2 c:3 d:4 e:5 f:6')).toEqual(['clauses', 5]);
    expect(over('a:1 b:2 c:3 d:4 e:5')).toBeNull();
    // Clauses that scan the index: no field, a wildcard field, a wildcard value (not a lone * under a field).
    expect(over('x y z')).toEqual(['wildcards', 2]);
    expect(over('a:*x b*:y c:z*')).toEqual(['wildcards', 2]);
    expect(over('a:* b:* c:x* ')).toBeNull();
    expect(over('"two words" [a TO b] c:d')).toBeNull();
    expect(over('((( a:1 )))')).toBeNull();
    expect(over('(((( a:1 ))))')).toEqual(['depth', 3]);
    expect(over('NOT NOT NOT NOT a:1')).toEqual(['depth', 3]);
    expect(over('a:(b OR (c OR (d OR (e))))')).toEqual(['depth', 3]);
  });
  it('refuses 2,000 nested parentheses at the budget without recursing into them', () => {
    expect(over(`${'('.repeat(2000)}a:1${')'.repeat(2000)}`)).toEqual(['length', 200]);
    expect(() => parseSearchQuery(`${'('.repeat(20000)}a:1${')'.repeat(20000)}`, { ...budget, maxLength: 1e6 })).toThrow(SearchBudgetError);
  });
});
