import { describe, expect, it } from 'vitest';
import { schedulePromotionRoute } from '@/lib/api/contracts/schedules';
import { zodErrors } from './zod-errors';
import { scheduleWhenRule, ZSchedulePromotion } from './scheduled-promotions';

/** The server action's schema (lib/actions/promotion/schedule-actions.ts) and the API body (derived with wireBody): one set of rules. */
const action = ZSchedulePromotion.omit({ requestId: true }).superRefine(scheduleWhenRule);
const body = schedulePromotionRoute.body!;
const base = { stage: 'qa', policy: 'web', from: 'dev', when: 'at' as const, expectedRevisionId: null };

describe('scheduled promotion input: parsed once, at the edge', () => {
  it('takes an ISO 8601 time with its zone as a Date, through either door', () => {
    expect(action.parse({ ...base, at: '2026-11-27T02:00Z' }).at).toEqual(new Date('2026-11-27T02:00:00Z'));
    expect(action.parse({ ...base, at: '2026-11-27T03:00:00+01:00' }).at).toEqual(new Date('2026-11-27T02:00:00Z'));
    expect(body.parse({ from: 'dev', when: 'at', at: '2026-11-27T02:00:00.000Z', expected_revision_id: 'abc' })).toEqual({ from: 'dev', when: 'at', at: new Date('2026-11-27T02:00:00Z'), expectedRevisionId: 'abc' });
  });

  it('names `at` for a malformed time, a time without its zone, a day or hour that does not exist, and for a missing or misplaced time', () => {
    const errs = (v: Record<string, unknown>) => zodErrors(action.safeParse({ ...base, ...v }).error!);
    const iso = 'at must be an ISO 8601 time with its zone, e.g. 2026-11-27T02:00:00Z';
    expect(errs({ at: '27/11/2026 02:00' })).toEqual([{ path: '/at', message: iso }]);
    expect(errs({ at: '2026-11-27T02:00' })).toEqual([{ path: '/at', message: iso }]);
    expect(errs({ at: 1_800_000_000_000 })).toEqual([{ path: '/at', message: iso }]);
    for (const at of ['2026-02-30T02:00Z', '2026-11-27T24:30Z', '2026-11-27T02:61Z']) expect(errs({ at })).toEqual([{ path: '/at', message: 'at is not a real time (check the day, hour and minute)' }]);
    expect(errs({ at: undefined })).toEqual([{ path: '/at', message: "at is required when 'when' is 'at'" }]);
    expect(errs({ when: 'freeze_end', at: '2026-11-27T02:00Z' })).toEqual([{ path: '/at', message: "at must be left out when 'when' is 'freeze_end' (the freeze's end decides)" }]);
    expect(errs({ when: 'later' }).map((e) => e.path)).toEqual(['/when']);
  });

  it('the API body has the same rules under the wire names, strict', () => {
    const r = body.safeParse({ from: 'dev', when: 'at', at: '2026-11-27T02:00Z', expected_revision_id: null, expectedRevisionId: null });
    expect(zodErrors(r.error!)).toEqual([{ path: '/expectedRevisionId', message: "Unknown field(s) 'expectedRevisionId'" }]);
    expect(zodErrors(body.safeParse({ from: 'dev', when: 'at', expected_revision_id: null }).error!)).toEqual([{ path: '/at', message: "at is required when 'when' is 'at'" }]);
    expect(zodErrors(body.safeParse({ from: 'dev', when: 'at', at: '2026-02-30T02:00Z', expected_revision_id: null }).error!)).toEqual([{ path: '/at', message: 'at is not a real time (check the day, hour and minute)' }]);
  });
});
