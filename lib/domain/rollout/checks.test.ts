import { describe, expect, it } from 'vitest';
import { automationState, checkTimeoutMs, readHttpStatus, readPrometheusAnswer, validateAutoPromote, validateGateChecks } from './';

const vector = (...v: string[]) => ({ status: 'success', data: { resultType: 'vector', result: v.map((x) => ({ metric: {}, value: [1, x] })) } });

describe('outside checks (issue 47)', () => {
  it('reads Prometheus answers: bounds both ways, every sample of a vector, inconclusive without a usable sample', () => {
    expect(readPrometheusAnswer({ min: 1, max: 2 }, vector('1.5'))).toMatchObject({ result: 'pass', value: 1.5 });
    expect(readPrometheusAnswer({ max: 2 }, vector('1', '3'))).toMatchObject({ result: 'fail', value: 3 });
    expect(readPrometheusAnswer({ min: 1 }, vector('0.5'))).toMatchObject({ result: 'fail', value: 0.5 });
    expect(readPrometheusAnswer({ min: 1 }, vector())).toMatchObject({ result: 'inconclusive', detail: 'no sample' });
    expect(readPrometheusAnswer({ min: 1 }, vector('NaN'))).toMatchObject({ result: 'inconclusive' });
    expect(readPrometheusAnswer({ min: 1 }, { status: 'success', data: { resultType: 'matrix', result: [] } })).toMatchObject({ result: 'inconclusive' });
    expect(readPrometheusAnswer({ min: 1 }, { status: 'error', error: 'bad query' })).toMatchObject({ result: 'inconclusive', detail: 'the query did not succeed: bad query' });
    expect(readPrometheusAnswer({ max: 1 }, { status: 'success', data: { resultType: 'scalar', result: [1, '0.5'] } })).toMatchObject({ result: 'pass', value: 0.5 });
  });

  it('reads HTTP statuses: expected passes, 5xx is inconclusive, others fail; timeouts are bounded', () => {
    expect(readHttpStatus({}, 204).result).toBe('pass');
    expect(readHttpStatus({ expect_status: [418] }, 418).result).toBe('pass');
    expect(readHttpStatus({}, 502).result).toBe('inconclusive');
    expect(readHttpStatus({ expect_status: [500] }, 500).result).toBe('pass');
    expect(readHttpStatus({}, 404).result).toBe('fail');
    expect(checkTimeoutMs({})).toBe(5000);
    expect(checkTimeoutMs({ timeout_ms: 10 ** 9 })).toBe(30_000);
  });

  it('validates the list and auto_promote, naming the field', () => {
    expect(validateGateChecks([{ name: 'a', kind: 'http', url: 'https://x' }, { name: 'a', kind: 'http', url: 'https://y' }])[0].path).toBe('/gate/checks/1/name');
    expect(validateGateChecks([{ name: 'p', kind: 'prometheus', url: 'https://x', query: 'up', min: 2, max: 1 }])[0].path).toBe('/gate/checks/0/max');
    expect(validateAutoPromote({ enabled: true, soakMinutes: 43_201, gateEnabled: true, hasPreviousStage: true })[0].path).toBe('/auto_promote/soak_minutes');
    expect(validateAutoPromote({ enabled: true, soakMinutes: 30, gateEnabled: false, hasPreviousStage: true })[0].path).toBe('/auto_promote/enabled');
    expect(validateAutoPromote({ enabled: false, soakMinutes: null, gateEnabled: false, hasPreviousStage: false })).toEqual([]);
  });

  it('says the automation state: off, on, waiting, held', () => {
    const row = { autoPromoteEnabled: true, heldAt: null, heldByEmail: null, heldReason: null, heldSource: null, autoWaiting: '{}' };
    expect(automationState({ ...row, autoPromoteEnabled: false }).state).toBe('off');
    expect(automationState(row).state).toBe('on');
    expect(automationState({ ...row, autoWaiting: JSON.stringify({ web: { revision_id: 'r', waiting_for: 'x', until: null, at: 't' } }) })).toMatchObject({ state: 'waiting', waiting: [{ policy: 'web' }] });
    expect(automationState({ ...row, heldAt: new Date(0), heldByEmail: 'a@b', heldReason: 'why', heldSource: 'rollback' })).toMatchObject({ state: 'held', held: { by: 'a@b', source: 'rollback' } });
  });
});
