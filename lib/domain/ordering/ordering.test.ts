import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fixtureJson } from '@/test/fixtures';
import { javaCaseInsensitiveCompare, numericPrefixAdvice, orderDirectives, type OrderDirectivesInput } from '@/lib/domain';

type Case = { id: string; description: string; input: OrderDirectivesInput; expect: { technique: string; rule: string; directive: string; valueOrder: string[]; skipped: { rule: string; directive: string }[]; unstable: boolean }[] };
const cases = fixtureJson<{ cases: Case[] }>('ordering-cases.json').cases;

describe('orderDirectives: fixture cases', () => {
  it.each(cases.map((c) => [c.id, c] as const))('%s', (_id, c) => {
    const r = orderDirectives(c.input);
    expect(r.errors).toEqual([]);
    expect(r.policies.map((p) => ({ technique: p.technique, rule: p.rule, directive: p.directive, valueOrder: p.valueOrder, skipped: p.skipped.map(({ rule, directive }) => ({ rule, directive })) }))).toEqual(
      c.expect.map(({ unstable: _u, ...rest }) => rest),
    );
    for (const e of c.expect) {
      const flagged = r.warnings.some((w) => w.kind === 'unstable' && w.technique === e.technique);
      expect(flagged).toBe(e.unstable);
    }
  });
});

describe('Java CASE_INSENSITIVE_ORDER', () => {
  it.each([
    ['Rule 10', 'Rule 9', -1],
    ['50', '100', 1],
    ['_misc', 'rule 1', -1],
    ['rule 1', 'Rule 10', -1],
    ['abc', 'ABC', 0],
    ['a', 'ab', -1],
    ['é', 'z', 1],
  ])('%s vs %s', (a, b, sign) => expect(Math.sign(javaCaseInsensitiveCompare(a, b))).toBe(sign));
});

describe('orderDirectives: rules', () => {
  const t = (name: string, multiInstance: boolean, generationMode?: string, version = '1.0') => ({ name, multiInstance, generationMode, version });
  it('flags equal winning priorities of a unique technique as unstable', () => {
    const r = orderDirectives({
      techniques: [t('sshd', false)],
      directives: [
        { id: 'a', name: 'A', technique: 'sshd', priority: 3 },
        { id: 'b', name: 'B', technique: 'sshd', priority: 3 },
      ],
      rules: [{ id: 'r', name: 'R', directiveIds: ['a', 'b'] }],
    });
    expect(r.policies[0].directive).toBe('A');
    expect(r.warnings).toEqual([expect.objectContaining({ kind: 'unstable', technique: 'sshd' })]);
  });

  it('merges values in priority order and reports version mismatches as errors', () => {
    const r = orderDirectives({
      techniques: [t('vars', true, 'MERGED')],
      directives: [
        { id: 'a', name: 'A', technique: 'vars', priority: 9, values: { x: ['low'] } },
        { id: 'b', name: 'B', technique: 'vars', priority: 1, values: { x: ['high'] } },
      ],
      rules: [{ id: 'r', name: 'R', directiveIds: ['a', 'b'] }],
    });
    expect(r.policies[0]).toMatchObject({ directive: 'A', valueOrder: ['B', 'A'], values: { x: ['high', 'low'] } });
    const bad = orderDirectives({
      techniques: [t('vars', true)],
      directives: [
        { id: 'a', name: 'A', technique: 'vars', techniqueVersion: '1.0' },
        { id: 'b', name: 'B', technique: 'vars', techniqueVersion: '2.0' },
      ],
      rules: [{ id: 'r', name: 'R', directiveIds: ['a', 'b'] }],
    });
    expect(bad.errors[0]).toMatchObject({ kind: 'version_mismatch', technique: 'vars' });
    expect(bad.policies).toEqual([]);
  });

  it("treats the doc's 'separated-with-param' as merged", () => {
    const r = orderDirectives({
      techniques: [t('x', true, 'separated-with-param')],
      directives: [
        { id: 'a', name: 'A', technique: 'x' },
        { id: 'b', name: 'B', technique: 'x' },
      ],
      rules: [{ id: 'r', name: 'R', directiveIds: ['a', 'b'] }],
    });
    expect(r.policies).toHaveLength(1);
  });

  it('flags exact case-insensitive name ties', () => {
    const r = orderDirectives({
      techniques: [t('x', true, 'separated'), t('y', true, 'separated')],
      directives: [
        { id: 'a', name: 'Setup', technique: 'x' },
        { id: 'b', name: 'SETUP', technique: 'y' },
      ],
      rules: [{ id: 'r', name: 'R', directiveIds: ['a', 'b'] }],
    });
    expect(r.warnings.map((w) => w.kind)).toEqual(['tie']);
  });

  it('reports missing directives and unknown techniques', () => {
    const r = orderDirectives({ techniques: [], directives: [{ id: 'a', name: 'A', technique: 'nope' }], rules: [{ id: 'r', name: 'R', directiveIds: ['a', 'ghost'] }] });
    expect(r.errors.map((e) => e.kind).sort()).toEqual(['missing_directive', 'unknown_technique']);
  });

  it('advises zero-padding numeric prefixes', () => {
    expect(numericPrefixAdvice(['5. Base', '40. Web'])).toEqual(["'5. Base' sorts as text, not as a number: write it '05. Base' to keep numeric order"]);
    expect(numericPrefixAdvice(['05. Base', '40. Web'])).toEqual([]);
  });
});

describe('orderDirectives: property', () => {
  it('shuffling the input changes nothing unless a tie is flagged', () => {
    const names = ['A', 'b', 'C', '10. x', '9. y', 'a'];
    const arb = fc.record({
      dirs: fc.array(fc.record({ name: fc.constantFrom(...names), technique: fc.constantFrom('t1', 't2', 't3'), priority: fc.integer({ min: 0, max: 10 }) }), { minLength: 1, maxLength: 8 }),
      rules: fc.array(fc.record({ name: fc.constantFrom(...names), picks: fc.array(fc.nat(7), { maxLength: 5 }) }), { minLength: 1, maxLength: 4 }),
      seed: fc.integer(),
    });
    fc.assert(
      fc.property(arb, ({ dirs, rules, seed }) => {
        const input: OrderDirectivesInput = {
          techniques: [
            { name: 't1', multiInstance: false },
            { name: 't2', multiInstance: true, generationMode: 'merged' },
            { name: 't3', multiInstance: true, generationMode: 'separated' },
          ],
          directives: dirs.map((d, i) => ({ id: `d${i}`, ...d })),
          rules: rules.map((r, i) => ({ id: `r${i}`, name: r.name, directiveIds: r.picks.map((p) => `d${p % dirs.length}`) })),
        };
        const shuffle = <T>(xs: T[]) => xs.map((x, i) => [x, (i * 7919 + seed) % 101] as const).sort((a, b) => a[1] - b[1]).map(([x]) => x);
        const a = orderDirectives(input);
        const b = orderDirectives({ techniques: shuffle(input.techniques), directives: shuffle(input.directives), rules: shuffle(input.rules.map((r) => ({ ...r, directiveIds: shuffle(r.directiveIds) }))) });
        if (a.warnings.some((w) => w.kind === 'tie') || b.warnings.some((w) => w.kind === 'tie')) return;
        const view = (r: typeof a) => r.policies.map((p) => [p.technique, p.rule, p.directive, p.valueOrder.join('|')]);
        expect(view(b)).toEqual(view(a));
      }),
    );
  });
});
