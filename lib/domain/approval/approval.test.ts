import { describe, expect, it } from 'vitest';
import type { PolicyLock } from '../lock/types';
import { activeOccurrence, attributePathMatches, EXAMPLE_RULES, evaluateApprovalRules, freezeStatus, nextOccurrence, validateApprovalRules, validateFreezeWindow, WEEK_MS, type ApprovalRule } from './index';

const CORE = new Set(['package', 'service', 'file', 'template', 'user', 'timezone']);

function lock(over: { cookbooks?: Record<string, string | { version: string; provides?: string[] }>; runList?: string[]; attrs?: Record<string, unknown>; override?: Record<string, unknown>; named?: Record<string, string[]> } = {}): PolicyLock {
  const cookbooks = over.cookbooks ?? { nginx: '11.6.2', base: '2.1.0' };
  return {
    name: 'webapp',
    revision_id: 'r',
    run_list: over.runList ?? ['recipe[base::default]', 'recipe[nginx::default]'],
    named_run_lists: over.named ?? {},
    cookbook_locks: Object.fromEntries(
      Object.entries(cookbooks).map(([n, v]) => {
        const spec = typeof v === 'string' ? { version: v } : v;
        return [n, { version: spec.version, identifier: `${n}-${spec.version}`, ...(spec.provides ? { provides: spec.provides } : {}) }];
      }),
    ),
    default_attributes: over.attrs ?? { nginx: { port: 80 }, security: { tls: { min: '1.2' } } },
    override_attributes: over.override ?? {},
  };
}

const run = (from: PolicyLock | null, to: PolicyLock | null, rules: ApprovalRule[] = EXAMPLE_RULES, base = 0) =>
  evaluateApprovalRules({ from, to, rules, approvalsRequired: base, coreResources: CORE });

describe('evaluateApprovalRules (the issue\'s example rules)', () => {
  const cases: { name: string; to: PolicyLock; need: number; kinds: string[]; message?: string }[] = [
    { name: 'identical lock: nothing applies', to: lock(), need: 0, kinds: [] },
    { name: 'patch bump: any change only', to: lock({ cookbooks: { nginx: '11.6.3', base: '2.1.0' } }), need: 1, kinds: ['any_change'] },
    { name: 'minor bump: any change only', to: lock({ cookbooks: { nginx: '11.7.0', base: '2.1.0' } }), need: 1, kinds: ['any_change'] },
    { name: 'major bump: 2, with the versions named', to: lock({ cookbooks: { nginx: '12.0.0', base: '2.1.0' } }), need: 2, kinds: ['major_bump', 'any_change'], message: '2 approvals: nginx 11.6.2 → 12.0.0 is a major bump' },
    { name: 'major downgrade is not a major bump', to: lock({ cookbooks: { nginx: '10.0.0', base: '2.1.0' } }), need: 1, kinds: ['any_change'] },
    { name: 'cookbook added: any change', to: lock({ cookbooks: { nginx: '11.6.2', base: '2.1.0', ntp: '3.7.0' } }), need: 1, kinds: ['any_change'] },
    { name: 'run list reordered', to: lock({ runList: ['recipe[nginx::default]', 'recipe[base::default]'] }), need: 2, kinds: ['run_list_change', 'any_change'] },
    { name: 'run list item added', to: lock({ runList: ['recipe[base::default]', 'recipe[nginx::default]', 'recipe[ntp::default]'] }), need: 2, kinds: ['run_list_change', 'any_change'] },
    { name: 'named run list added', to: lock({ named: { deploy: ['recipe[nginx::deploy]'] } }), need: 2, kinds: ['run_list_change', 'any_change'] },
    { name: 'attribute outside the globs', to: lock({ attrs: { nginx: { port: 8080 }, security: { tls: { min: '1.2' } } } }), need: 1, kinds: ['any_change'] },
    { name: 'attribute under security.*', to: lock({ attrs: { nginx: { port: 80 }, security: { tls: { min: '1.3' } } } }), need: 2, kinds: ['attribute_path', 'any_change'] },
    { name: 'override attribute under authorization.*', to: lock({ override: { authorization: { sudo: { users: ['x'] } } } }), need: 2, kinds: ['attribute_path', 'any_change'] },
    { name: 'security subtree removed entirely', to: lock({ attrs: { nginx: { port: 80 } } }), need: 2, kinds: ['attribute_path', 'any_change'] },
    { name: 'a cookbook newly claims a core resource', to: lock({ cookbooks: { nginx: { version: '11.6.3', provides: ['service'] }, base: '2.1.0' } }), need: 2, kinds: ['core_resource_claim', 'any_change'] },
    { name: 'a non-core provides is no claim', to: lock({ cookbooks: { nginx: { version: '11.6.3', provides: ['nginx_site'] }, base: '2.1.0' } }), need: 1, kinds: ['any_change'] },
    { name: 'max, not sum: major bump + security + run list', to: lock({ cookbooks: { nginx: '12.0.0', base: '2.1.0' }, runList: ['recipe[nginx::default]'], attrs: { security: { tls: { min: '1.3' } }, nginx: { port: 80 } } }), need: 2, kinds: ['major_bump', 'run_list_change', 'attribute_path', 'any_change'] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = run(lock(), c.to);
      expect(r.approvalsRequired).toBe(c.need);
      expect(r.reasons.map((x) => x.rule)).toEqual(c.kinds);
      if (c.message) expect(r.reasons[0].message).toBe(c.message);
    });
  }

  it('a claim the cookbook already made before is not new', () => {
    const from = lock({ cookbooks: { nginx: { version: '11.6.2', provides: ['service'] }, base: '2.1.0' } });
    const to = lock({ cookbooks: { nginx: { version: '11.6.3', provides: ['service'] }, base: '2.1.0' } });
    expect(run(from, to).reasons.map((r) => r.rule)).toEqual(['any_change']);
  });

  it('a stage with nothing yet: every cookbook is added, the run list is new', () => {
    const r = run(null, lock());
    expect(r.approvalsRequired).toBe(2);
    expect(r.reasons.map((x) => x.rule)).toEqual(['run_list_change', 'attribute_path', 'any_change']);
  });

  it('removing the policy from the stage counts as a change', () => {
    expect(run(lock(), null, [{ kind: 'any_change', approvals: 1 }]).approvalsRequired).toBe(1);
  });

  it('base number applies to every change, rules may raise it', () => {
    expect(run(lock(), lock({ cookbooks: { nginx: '11.6.3', base: '2.1.0' } }), [], 1)).toMatchObject({ approvalsRequired: 1, reasons: [{ rule: 'base' }] });
    expect(run(lock(), lock({ cookbooks: { nginx: '12.0.0', base: '2.1.0' } }), [{ kind: 'major_bump', approvals: 3 }], 1).approvalsRequired).toBe(3);
  });

  it('staging-style rules: one approval for major bumps only', () => {
    const rules: ApprovalRule[] = [{ kind: 'major_bump', approvals: 1 }];
    expect(run(lock(), lock({ cookbooks: { nginx: '11.7.0', base: '2.1.0' } }), rules).approvalsRequired).toBe(0);
    expect(run(lock(), lock({ cookbooks: { nginx: '12.0.0', base: '2.1.0' } }), rules)).toMatchObject({ approvalsRequired: 1, reasons: [{ message: '1 approval: nginx 11.6.2 → 12.0.0 is a major bump' }] });
  });

  it('several major bumps are listed in one reason', () => {
    const r = run(lock(), lock({ cookbooks: { nginx: '12.0.0', base: '3.0.0' } }), [{ kind: 'major_bump', approvals: 2 }]);
    expect(r.reasons[0].message).toBe('2 approvals: base 2.1.0 → 3.0.0, nginx 11.6.2 → 12.0.0 are major bumps');
  });

  it('a rule with 0 approvals never applies', () => {
    expect(run(lock(), lock({ cookbooks: { nginx: '12.0.0', base: '2.1.0' } }), [{ kind: 'major_bump', approvals: 0 }]).reasons).toEqual([]);
  });
});

describe('attributePathMatches', () => {
  const cases: [string, string[], boolean, boolean][] = [
    ['security.*', ['security', 'tls'], false, true],
    ['security.*', ['security', 'tls', 'min'], false, true],
    ['security.*', ['securityx', 'tls'], false, false],
    ['security.*', ['nginx', 'security'], false, false],
    ['security.*', ['security'], false, false],
    ['security.*', ['security'], true, true],
    ['**.password', ['db', 'admin', 'password'], false, true],
    ['**.password', ['password'], false, true],
    ['**.password', ['db', 'user'], false, false],
    ['a.*.c', ['a', 'x', 'c', 'd'], false, true],
    ['a.*.c', ['a', 'x', 'd'], false, false],
    ['', ['a'], false, false],
  ];
  for (const [p, path, subtree, want] of cases) it(`${p} vs ${path.join('.')}${subtree ? ' (subtree)' : ''} → ${want}`, () => expect(attributePathMatches(p, path, subtree)).toBe(want));
});

describe('validateApprovalRules', () => {
  it('accepts the example rules', () => expect(validateApprovalRules(EXAMPLE_RULES)).toEqual({ rules: EXAMPLE_RULES, problems: [] }));
  const bad: [unknown, string, RegExp][] = [
    [{}, '/rules', /must be an array/],
    [[{ kind: 'nope', approvals: 1 }], '/rules/0/kind', /kind must be one of/],
    [[{ kind: 'major_bump', approvals: -1 }], '/rules/0/approvals', /0 to 10/],
    [[{ kind: 'major_bump', approvals: 1.5 }], '/rules/0/approvals', /whole number/],
    [[{ kind: 'major_bump' }], '/rules/0/approvals', /whole number/],
    [[{ kind: 'attribute_path', approvals: 1 }], '/rules/0/patterns', /patterns must list/],
    [[{ kind: 'attribute_path', approvals: 1, patterns: ['a..b'] }], '/rules/0/patterns/0', /dot-separated/],
    [['x'], '/rules/0', /must be an object/],
  ];
  for (const [input, path, msg] of bad) {
    it(`refuses ${JSON.stringify(input)} at ${path}`, () => {
      const { problems } = validateApprovalRules(input);
      expect(problems[0].path).toBe(path);
      expect(problems[0].message).toMatch(msg);
    });
  }
});

describe('freeze windows (UTC)', () => {
  const d = (s: string) => new Date(s);
  const oneOff = { id: 'a', startsAt: d('2026-12-24T00:00:00Z'), endsAt: d('2026-12-27T00:00:00Z'), weekly: false, reason: 'holidays' };
  // Fridays 16:00 → Monday 06:00 UTC, first on Friday 2026-11-20.
  const weekend = { id: 'w', startsAt: d('2026-11-20T16:00:00Z'), endsAt: d('2026-11-23T06:00:00Z'), weekly: true, reason: 'weekend' };
  const cases: [string, typeof oneOff, string, boolean, string | null][] = [
    ['before a one-off', oneOff, '2026-12-23T23:59:59Z', false, null],
    ['at a one-off start', oneOff, '2026-12-24T00:00:00Z', true, '2026-12-27T00:00:00.000Z'],
    ['at a one-off end (exclusive)', oneOff, '2026-12-27T00:00:00Z', false, null],
    ['weekly, before the first occurrence', weekend, '2026-11-20T15:59:00Z', false, null],
    ['weekly, first occurrence', weekend, '2026-11-22T10:00:00Z', true, '2026-11-23T06:00:00.000Z'],
    ['weekly, between occurrences', weekend, '2026-11-25T10:00:00Z', false, null],
    ['weekly, five weeks later on Saturday', weekend, '2026-12-26T12:00:00Z', true, '2026-12-28T06:00:00.000Z'],
    ['weekly, five weeks later on Monday 06:00 (open)', weekend, '2026-12-28T06:00:00Z', false, null],
  ];
  for (const [name, w, at, frozen, ends] of cases) {
    it(name, () => {
      const o = activeOccurrence(w, d(at));
      expect(!!o).toBe(frozen);
      expect(o?.end.toISOString() ?? null).toBe(ends);
    });
  }
  it('next occurrence of a weekly window', () => expect(nextOccurrence(weekend, d('2026-11-25T10:00:00Z'))!.start.toISOString()).toBe('2026-11-27T16:00:00.000Z'));
  it('a past one-off has no next occurrence', () => expect(nextOccurrence(oneOff, d('2027-01-01T00:00:00Z'))).toBeNull());
  it('overlapping and back-to-back windows: opens when the last ends', () => {
    const second = { id: 'b', startsAt: d('2026-12-27T00:00:00Z'), endsAt: d('2026-12-28T00:00:00Z'), weekly: false, reason: 'audit' };
    const s = freezeStatus([oneOff, second], d('2026-12-25T00:00:00Z'));
    expect(s.active.map((o) => o.window.id)).toEqual(['a']);
    expect(s.opensAt!.toISOString()).toBe('2026-12-28T00:00:00.000Z');
  });
  it('not frozen: next freeze named', () => {
    const s = freezeStatus([oneOff, weekend], d('2026-12-02T00:00:00Z'));
    expect(s.opensAt).toBeNull();
    expect(s.next!.window.id).toBe('w');
    expect(s.next!.start.toISOString()).toBe('2026-12-04T16:00:00.000Z');
  });
  it('validation', () => {
    expect(validateFreezeWindow(d('x'), d('2026-01-01T00:00:00Z'), false)[0].path).toBe('/starts_at');
    expect(validateFreezeWindow(d('2026-01-02T00:00:00Z'), d('2026-01-01T00:00:00Z'), false)[0].message).toMatch(/after starts_at/);
    expect(validateFreezeWindow(d('2026-01-01T00:00:00Z'), new Date(d('2026-01-01T00:00:00Z').getTime() + WEEK_MS), true)[0].message).toMatch(/shorter than 7 days/);
    expect(validateFreezeWindow(d('2026-01-01T00:00:00Z'), d('2026-01-02T00:00:00Z'), true)).toEqual([]);
  });
});
