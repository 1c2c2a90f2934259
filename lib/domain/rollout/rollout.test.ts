import { describe, expect, it } from 'vitest';
import { classifyNode, evaluateGate, evaluateRollback, summarizeHealth, validateGateRule, validateRollbackRule, type NodeRunFacts } from '@/lib/domain/rollout';

const NOW = new Date('2026-11-25T12:00:00Z');
const MIN = 60_000;
const ago = (minutes: number) => new Date(NOW.getTime() - minutes * MIN);
const MISSING = 120 * MIN;
const R = 'a'.repeat(40);
const OLD = 'b'.repeat(40);

const ok = (minAgo: number, rev = R, firstSuccessMinAgo = minAgo): NodeRunFacts => ({ lastRun: { status: 'success', revisionId: rev, endTime: ago(minAgo), firstSuccessAt: ago(firstSuccessMinAgo) }, lastSeen: ago(minAgo) });
const fail = (minAgo: number, rev = R, cookbook = 'web', resource = 'execute[boom]'): NodeRunFacts => ({ lastRun: { status: 'failure', revisionId: rev, endTime: ago(minAgo), failedCookbook: cookbook, failedResource: resource }, lastSeen: ago(minAgo) });
const never = (seenMinAgo: number | null): NodeRunFacts => ({ lastRun: null, lastSeen: seenMinAgo === null ? null : ago(seenMinAgo) });

describe('classifyNode', () => {
  it.each([
    ['success on the revision', ok(5), 'converged'],
    ['failure on the revision', fail(5), 'failed'],
    ['success on another revision', ok(5, OLD), 'pending'],
    ['failure on another revision', fail(5, OLD), 'pending'],
    ['never ran, seen recently', never(10), 'pending'],
    ['never seen', never(null), 'missing'],
    ['last run older than the interval', ok(121), 'missing'],
    ['run old but a save is recent', { ...ok(500), lastSeen: ago(1) }, 'converged'],
    ['exactly at the interval', ok(120), 'converged'],
  ] as const)('%s → %s', (_label, facts, want) => {
    expect(classifyNode(facts, R, NOW, MISSING)).toBe(want);
  });

  it('no revision in the stage: everything that reports is pending', () => {
    expect(classifyNode(ok(1), null, NOW, MISSING)).toBe('pending');
  });
});

describe('summarizeHealth', () => {
  it('counts standings and groups failures by cookbook and resource, most first', () => {
    const s = summarizeHealth([ok(1), ok(2), fail(1), fail(3), fail(2, R, 'db', 'service[pg]'), ok(3, OLD), never(null)], R, NOW, MISSING);
    expect(s).toEqual({
      revisionId: R,
      nodes: 7,
      converged: 2,
      failed: 3,
      pending: 1,
      missing: 1,
      failures: [
        { cookbook: 'web', resource: 'execute[boom]', nodes: 2 },
        { cookbook: 'db', resource: 'service[pg]', nodes: 1 },
      ],
    });
  });
  it('no nodes: all zero', () => {
    expect(summarizeHealth([], R, NOW, MISSING)).toMatchObject({ nodes: 0, converged: 0, failed: 0, pending: 0, missing: 0, failures: [] });
  });
});

describe('evaluateGate', () => {
  const rule = { minSuccessPct: 80, minNodes: 3, maxFailurePct: 10, soakMinutes: 30 };
  const gate = (nodes: NodeRunFacts[], r = rule) => evaluateGate({ rule: r, fromStage: 'dev', revisionId: R, nodes, now: NOW, missingAfterMs: MISSING });

  it.each([
    ['all converged long enough', [ok(1, R, 60), ok(1, R, 50), ok(1, R, 40)], true, []],
    ['too few nodes', [ok(1, R, 60), ok(1, R, 60)], false, ['2 of at least 3 node(s) in dev converged revision aaaaaaaaaa']],
    ['below the success percent', [ok(1, R, 60), ok(1, R, 60), ok(1, R, 60), ok(1, OLD), never(5)], false, ['60% of 5 node(s) in dev converged revision aaaaaaaaaa, below 80%']],
    [
      'too many failures',
      [ok(1, R, 60), ok(1, R, 60), ok(1, R, 60), ok(1, R, 60), ok(1, R, 60), ok(1, R, 60), ok(1, R, 60), ok(1, R, 60), fail(1), fail(2)],
      false,
      ['20% of 10 node(s) in dev failed on revision aaaaaaaaaa, above 10%'],
    ],
    ['not soaked long enough', [ok(1, R, 60), ok(1, R, 50), ok(1, R, 10)], false, ['converged for 10 of 30 minute(s) in dev']],
    ['missing nodes are not counted', [ok(1, R, 60), ok(1, R, 50), ok(1, R, 40), never(null), ok(500)], true, []],
    ['nothing reports', [never(null)], false, ['0 of at least 3 node(s) in dev converged revision aaaaaaaaaa', 'no reporting node in dev runs the policy']],
  ] as const)('%s', (_label, nodes, met, unmet) => {
    const g = gate([...nodes]);
    expect(g.met).toBe(met);
    expect(g.unmet).toEqual(unmet);
  });

  it('the soak clock starts when the required count was reached (the required-th earliest first success)', () => {
    // 5 counted nodes, 80% → 4 required; first successes 90, 70, 45, 35, 5 minutes ago → reached 35 minutes ago.
    const g = gate([ok(1, R, 90), ok(1, R, 70), ok(1, R, 45), ok(1, R, 35), ok(1, R, 5)]);
    expect(g).toMatchObject({ met: true, required: 4, converged: 5, soakedMinutes: 35, metSince: ago(35).toISOString(), successPct: 100, failurePct: 0 });
  });

  it('exact thresholds pass (≥ X, ≤ Y)', () => {
    const nodes = [...Array.from({ length: 9 }, () => ok(1, R, 60)), fail(1)];
    expect(gate(nodes, { minSuccessPct: 90, minNodes: 9, maxFailurePct: 10, soakMinutes: 60 }).met).toBe(true);
    expect(gate(nodes, { minSuccessPct: 91, minNodes: 9, maxFailurePct: 10, soakMinutes: 60 }).met).toBe(false);
    expect(gate(nodes, { minSuccessPct: 90, minNodes: 9, maxFailurePct: 9, soakMinutes: 60 }).met).toBe(false);
    expect(gate(nodes, { minSuccessPct: 90, minNodes: 10, maxFailurePct: 10, soakMinutes: 60 }).met).toBe(false);
  });

  it('the first stage has nothing before it: met', () => {
    expect(evaluateGate({ rule, fromStage: null, revisionId: R, nodes: [], now: NOW, missingAfterMs: MISSING }).met).toBe(true);
  });

  it('validates the rule', () => {
    expect(validateGateRule({ minSuccessPct: 101, minNodes: -1, maxFailurePct: 5.5, soakMinutes: 0 })).toEqual([
      { path: '/min_success_pct', message: 'min_success_pct must be a whole number from 0 to 100' },
      { path: '/min_nodes', message: 'min_nodes must be a whole number from 0 to 100000' },
      { path: '/max_failure_pct', message: 'max_failure_pct must be a whole number from 0 to 100' },
    ]);
  });
});

describe('evaluateRollback', () => {
  const rule = { windowMinutes: 30, failurePct: 50, minRuns: 4 };
  const change = ago(20);
  let n = 0;
  const run = (status: 'success' | 'failure', minAfterChange: number, node = `node-${++n}`) => ({ node, status, endTime: new Date(change.getTime() + minAfterChange * MIN) });

  it.each([
    ['enough failing runs', [run('failure', 1), run('failure', 2), run('success', 3), run('failure', 4)], true],
    ['exactly Y%', [run('failure', 1), run('failure', 2), run('success', 3), run('success', 4)], true],
    ['below Y%', [run('failure', 1), run('success', 2), run('success', 3), run('success', 4)], false],
    ['too few runs', [run('failure', 1), run('failure', 2), run('failure', 3)], false],
    ['runs before the change do not count', [run('failure', -1), run('failure', 1), run('failure', 2), run('failure', 3)], false],
    ['runs after the window do not count', [run('failure', 31), run('failure', 1), run('failure', 2), run('failure', 3)], false],
    ['no runs', [], false],
  ] as const)('%s', (_label, runs, trigger) => {
    expect(evaluateRollback({ rule, changeAt: change, now: NOW, runs: [...runs] }).trigger).toBe(trigger);
  });

  it('reports the numbers and whether the window is open', () => {
    const e = evaluateRollback({ rule, changeAt: change, now: NOW, runs: [run('failure', 1), run('failure', 2), run('success', 3)] });
    expect(e).toMatchObject({ trigger: false, windowOpen: true, runs: 3, failed: 2, failurePct: 66.7 });
    expect(evaluateRollback({ rule, changeAt: ago(31), now: NOW, runs: [] }).windowOpen).toBe(false);
  });

  it('counts distinct nodes, each by its latest run in the window (issue 41): one node failing four times is one node', () => {
    const same = [run('failure', 1, 'a'), run('failure', 2, 'a'), run('failure', 3, 'a'), run('failure', 4, 'a')];
    expect(evaluateRollback({ rule, changeAt: change, now: NOW, runs: same })).toMatchObject({ trigger: false, runs: 1, failed: 1, failedNodes: ['a'] });
    // A node that failed and then converged counts as converged.
    const healed = [run('failure', 1, 'a'), run('success', 2, 'a'), run('failure', 1, 'b'), run('failure', 1, 'c'), run('success', 1, 'd')];
    expect(evaluateRollback({ rule, changeAt: change, now: NOW, runs: healed })).toMatchObject({ trigger: true, runs: 4, failed: 2, failedNodes: ['b', 'c'] });
  });

  it('validates the rule', () => {
    expect(validateRollbackRule({ windowMinutes: 0, failurePct: 0, minRuns: 1 }).map((p) => p.path)).toEqual(['/window_minutes', '/failure_pct']);
  });
});
