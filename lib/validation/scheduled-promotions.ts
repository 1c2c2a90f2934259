/**
 * The inputs of scheduled promotion (issue 29: "apply at 02:00 UTC", "apply when the freeze ends"), one
 * definition each: the server actions (lib/actions/promotion/schedule-actions.ts) parse with them, the
 * /api/v1 contract (lib/api/contracts/schedules.ts) derives its body and path fields from them, and
 * lib/services/promotion/schedules.ts takes their parsed output; what stays in the service are the rules
 * that need the database or the clock (the stage's freeze, what it runs, a time in the future). Pure zod.
 */
import { z } from 'zod';
import { chefName, expectedRevisionId as expectedRevisionIdField, reason as reasonField, requestId as requestIdField } from './fields';

const name = chefName();

/** An ISO 8601 time with its zone ("2026-11-27T02:00:00Z", "2026-11-27T03:00+01:00"), as a Date. */
export const ISO_TIME_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const AT_RULE = 'must be an ISO 8601 time with its zone, e.g. 2026-11-27T02:00:00Z';
/** The calendar and clock fields exist (no 30 February, no 24:30): Date.parse would roll some of them over. */
function realTime(v: string): boolean {
  const [y, mo, d, h, mi, s] = [v.slice(0, 4), v.slice(5, 7), v.slice(8, 10), v.slice(11, 13), v.slice(14, 16), v[16] === ':' ? v.slice(17, 19) : '0'].map(Number);
  const day = new Date(Date.UTC(y, mo - 1, d));
  return day.getUTCFullYear() === y && day.getUTCMonth() === mo - 1 && day.getUTCDate() === d && h < 24 && mi < 60 && s < 60 && Number.isFinite(Date.parse(v));
}
export const scheduleTime = z
  .string({ error: AT_RULE })
  .superRefine((v, ctx) => {
    if (v.length > 40 || !ISO_TIME_WITH_ZONE.test(v)) ctx.addIssue({ code: 'custom', message: AT_RULE });
    else if (!realTime(v)) ctx.addIssue({ code: 'custom', message: 'is not a real time (check the day, hour and minute)' });
  })
  .transform((v) => new Date(v));

/** The object form (its fields are what the API body is derived from); `scheduleWhenRule` is its one cross-field rule. */
export const ZSchedulePromotion = z.object({
  /** The stage to promote into. */
  stage: name,
  policy: name,
  /** A stage whose revision moves (fixed now), or rev:<revision id>. */
  from: name.describe("The source stage, or 'rev:<revision_id>'"),
  /** at: apply at `at`; freeze_end: apply when the freeze covering the stage now ends. */
  when: z.enum(['at', 'freeze_end'], { error: "must be 'at' or 'freeze_end'" }).describe('at: at `at`; freeze_end: when the freeze covering the stage now ends'),
  at: scheduleTime.optional().describe('with when=at: an ISO 8601 time with its zone, e.g. 2026-11-27T02:00:00Z'),
  expectedRevisionId: expectedRevisionIdField,
  reason: reasonField.optional(),
  requestId: requestIdField.optional(),
});
export type SchedulePromotionInput = z.output<typeof ZSchedulePromotion>;

/** `at` goes with `when: 'at'` only (the freeze's end decides otherwise). Applied by every edge that parses ZSchedulePromotion. */
export function scheduleWhenRule<T extends { when: 'at' | 'freeze_end'; at?: Date }>(v: T, ctx: z.RefinementCtx<T>): void {
  if (v.when === 'at' && !v.at) ctx.addIssue({ code: 'custom', path: ['at'], message: "is required when 'when' is 'at'" });
  if (v.when === 'freeze_end' && v.at) ctx.addIssue({ code: 'custom', path: ['at'], message: "must be left out when 'when' is 'freeze_end' (the freeze's end decides)" });
}

export const ZCancelScheduledPromotion = z.object({
  id: z.string().min(1, 'is required').max(100, 'is at most 100 characters'),
  requestId: requestIdField.optional(),
});
export type CancelScheduledPromotionInput = z.output<typeof ZCancelScheduledPromotion>;
