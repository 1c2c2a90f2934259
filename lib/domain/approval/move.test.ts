import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PolicyLock } from '../lock/types';
import { evaluateMoveApproval, type HistoryLock } from './move';
import { evaluateApprovalRules, type ApprovalRule } from './rules';

const CORE = new Set(['file', 'package', 'service']);
const VERSIONS = ['1.0.0', '1.2.0', '2.0.0', '2.1.0', '3.0.0'];
const RUN_LISTS = [['recipe[app::default]'], ['recipe[app::default]', 'recipe[nginx::default]'], ['recipe[nginx::default]']];

function lock(i: number, v: { cookbooks: Record<string, string>; provides: string[]; runList: number; security: number | null }): PolicyLock {
  const cookbook_locks = Object.fromEntries(Object.entries(v.cookbooks).map(([n, version]) => [n, { version, identifier: `${n}-${version}`, ...(n === 'app' ? { provides: v.provides } : {}) }]));
  return { name: 'p', revision_id: `r${i}`, run_list: RUN_LISTS[v.runList], cookbook_locks, default_attributes: v.security === null ? {} : { security: { level: v.security } }, override_attributes: {} };
}

const variant = fc.record({
  cookbooks: fc.record({ app: fc.constantFrom(...VERSIONS), nginx: fc.constantFrom(...VERSIONS), apt: fc.constantFrom(...VERSIONS) }, { requiredKeys: [] }),
  provides: fc.subarray(['file', 'service', 'webapp_site']),
  runList: fc.integer({ min: 0, max: 2 }),
  security: fc.option(fc.integer({ min: 1, max: 2 }), { nil: null }),
});
const w = fc.integer({ min: 0, max: 3 });

describe('evaluateMoveApproval: no sequence of moves needs fewer approvals than one move', () => {
  it('holds for generated sequences (set / remove), every suffix starting at a revision', () => {
    fc.assert(
      fc.property(
        fc.record({ base: fc.integer({ min: 0, max: 1 }), any: w, major: w, runList: w, attr: w, core: w }),
        fc.array(variant, { minLength: 2, maxLength: 5 }),
        fc.array(fc.option(fc.nat(), { nil: null }), { minLength: 1, maxLength: 8 }),
        (r, variants, moves) => {
          const rules: ApprovalRule[] = [
            { kind: 'any_change', approvals: r.any },
            { kind: 'major_bump', approvals: r.major },
            { kind: 'run_list_change', approvals: r.runList },
            { kind: 'attribute_path', approvals: r.attr, patterns: ['security.*'] },
            { kind: 'core_resource_claim', approvals: r.core },
          ];
          const locks = variants.map((v, i) => lock(i, v));
          const states: (PolicyLock | null)[] = [locks[0]];
          const ran: PolicyLock[] = [locks[0]]; // newest last
          const asked: number[] = [];
          for (const m of moves) {
            const current = states[states.length - 1];
            const to = m === null ? null : locks[m % locks.length];
            if (to === current || (!to && !current)) continue;
            // The history as the service builds it: the revisions the stage ran, newest first, each once.
            const history: HistoryLock[] = [];
            for (const l of [...ran].reverse()) if (!history.includes(l)) history.push(l);
            asked.push(evaluateMoveApproval({ current, to, history, complete: true, approvalsRequired: r.base, rules, coreResources: CORE }).approvalsRequired);
            states.push(to);
            if (to) ran.push(to);
          }
          for (let k = 1; k < states.length; k++) {
            for (let i = 0; i < k; i++) {
              const from = states[i];
              if (!from) continue;
              const to = states[k];
              const one = evaluateApprovalRules({ from, to, approvalsRequired: r.base, rules, coreResources: CORE }).approvalsRequired;
              const needed = to === null ? Math.max(1, one) : one;
              expect(Math.max(...asked.slice(i, k))).toBeGreaterThanOrEqual(needed);
            }
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a removal needs at least one approval, and the stage base number', () => {
    const l = lock(0, { cookbooks: { app: '1.0.0' }, provides: [], runList: 0, security: null });
    const r = evaluateMoveApproval({ current: l, to: null, history: [l], complete: true, approvalsRequired: 0, rules: [{ kind: 'major_bump', approvals: 2 }], coreResources: CORE });
    expect(r.approvalsRequired).toBe(1);
    expect(r.reasons[0]).toMatchObject({ rule: 'removal', message: '1 approval: removing p from a protected stage is a change' });
  });

  it('a cookbook the stage lacks now is judged from the version it last ran; a deleted revision in the way makes every rule apply', () => {
    const a = lock(0, { cookbooks: { app: '1.0.0', nginx: '1.2.0' }, provides: [], runList: 0, security: null });
    const b = lock(1, { cookbooks: { app: '1.0.0' }, provides: [], runList: 0, security: null });
    const c = lock(2, { cookbooks: { app: '1.0.0', nginx: '2.0.0' }, provides: [], runList: 0, security: null });
    const rules: ApprovalRule[] = [
      { kind: 'any_change', approvals: 1 },
      { kind: 'major_bump', approvals: 2 },
      { kind: 'run_list_change', approvals: 3 },
    ];
    const judged = evaluateMoveApproval({ current: b, to: c, history: [b, a], complete: true, approvalsRequired: 0, rules, coreResources: CORE });
    expect(judged.approvalsRequired).toBe(2);
    expect(judged.reasons[0].message).toBe('2 approvals: nginx 1.2.0 → 2.0.0 is a major bump');
    const unknown = evaluateMoveApproval({ current: b, to: c, history: [b, 'deleted', a], complete: true, approvalsRequired: 0, rules, coreResources: CORE });
    expect(unknown.approvalsRequired).toBe(3);
    expect(unknown.reasons[0].rule).toBe('history');
  });
});
