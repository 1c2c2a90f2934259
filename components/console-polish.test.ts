/**
 * Issue 43's small display rules: a run's duration as chef-client's second-precision times allow, the freeze
 * count beside a stage (every listed window counted), and a refused move's reasons said once.
 */
import { describe, expect, it } from 'vitest';
import { runDuration } from './node-run-history';
import { freezeCount } from './stage-guards-admin';
import { otherRefusals, outcomeLine } from './guard-answer';
import type { MovePreviewDto } from '@/lib/types/move-preview';

describe('runDuration', () => {
  const run = { status: 'failure' as const, start_time: '2026-11-25T22:07:21.000Z', end_time: '2026-11-25T22:07:21.000Z', duration_ms: 0, total_resources: 3 };
  it('never "0 ms": a run within one second of chef-client time is "under 1 s", an early failure has no duration', () => {
    expect(runDuration(run).text).toBe('under 1 s');
    expect(runDuration({ ...run, status: 'success' }).text).toBe('under 1 s');
    expect(runDuration({ ...run, total_resources: 0 }).text).toBe('—');
    expect(runDuration({ ...run, end_time: null, duration_ms: null }).text).toBe('—');
    expect(runDuration({ ...run, end_time: '2026-11-25T22:07:58.000Z', duration_ms: 37_000 }).text).toBe('37 s');
    // Times with milliseconds (the console API's reports) are shown as measured.
    expect(runDuration({ ...run, start_time: '2026-11-25T22:07:21.120Z', end_time: '2026-11-25T22:07:21.532Z', duration_ms: 412 }).text).toBe('412 ms');
  });
});

describe('freezeCount', () => {
  const w = (active: boolean, past: boolean) => ({ active: active ? {} : null, past });
  it('counts every window the list shows', () => {
    expect(freezeCount([])).toBe('no freeze windows');
    expect(freezeCount([w(false, true)])).toBe('1 freeze window (past)');
    expect(freezeCount([w(false, true), w(false, true)])).toBe('2 freeze windows (all past)');
    expect(freezeCount([w(true, false), w(false, true), w(false, false)])).toBe('3 freeze windows (1 in force, 1 past)');
    expect(freezeCount([w(false, false)])).toBe('1 freeze window');
  });
});

describe("a refused move's reasons", () => {
  // Asserted, not annotated: the DTO grows fields (the verdicts' own) this rule does not read.
  const p = (over: Partial<MovePreviewDto>): MovePreviewDto =>
    ({
    stage: 'qa',
    policy: 'webapp',
    from_revision_id: 'a'.repeat(40),
    to_revision_id: 'b'.repeat(40),
    outcome: 'blocked',
    action: 'Frozen',
    summary: '',
    blocked_by: [],
    needs: [],
    protected: false,
    approvals_required: 0,
    reasons: [],
    freeze: null,
    bad_revision: null,
    gate: null,
    missing_artifacts: [],
    downgrades: [],
    removed_cookbooks: [],
    attribute_changes: [],
    ...over,
  }) as MovePreviewDto;
  it('keeps only what no block of the answer states, and a list row says it in a few words', () => {
    const frozen = p({ blocked_by: ['qa is frozen until 2026-12-03T11:00:00.000Z (load test); only those who manage qa may override.'], freeze: { reason: 'load test', ends_at: '2026-12-03T11:00:00.000Z', may_override: false } });
    expect(otherRefusals(frozen)).toEqual([]);
    expect(outcomeLine(frozen)).toBe('refused: qa is frozen');
    const denied = p({ blocked_by: ['You may not move policies into qa.', 'qa is frozen until 2026-12-03T11:00:00.000Z (x); only those who manage qa may override.'], freeze: { reason: 'x', ends_at: '2026-12-03T11:00:00.000Z', may_override: false } });
    expect(otherRefusals(denied)).toEqual(['You may not move policies into qa.']);
    expect(outcomeLine(denied)).toBe('refused: You may not move policies into qa');
    // A refusal with no block of its own is never dropped.
    expect(otherRefusals(p({ blocked_by: ['Something new refuses it.'] }))).toEqual(['Something new refuses it.']);
  });
});
