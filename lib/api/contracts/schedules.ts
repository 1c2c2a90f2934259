/** Issue 29: scheduled promotions ("apply at 02:00 UTC", "apply when the freeze ends"). */
import { z } from 'zod';
import { defineRoute, pathInput, wireBody } from '../contract';
import { scheduleWhenRule, ZCancelScheduledPromotion, ZSchedulePromotion } from '@/lib/validation/scheduled-promotions';

const dtoDescription =
  '{ id, stage, policy, from_stage, to_revision_id, expected_revision_id, when: at|freeze_end, run_at, reason, status: pending|applied|requested|failed|cancelled, outcome, scheduled_by, created_at, decided_at, may_cancel }';

export const schedulePromotionRoute = defineRoute({
  method: 'POST',
  path: '/policy_groups/{group}/policies/{name}/schedule',
  summary: 'Schedule a promotion into this stage (promote on it): at a time, or when the freeze covering it ends',
  description:
    "What moves is fixed now (the revision `from` runs now, or rev:<id>), and so is what the stage runs now (expected_revision_id; the apply is a compare-and-swap against it). When due, the rollout worker applies it through the same movePointer guard, judged then with the scheduler's rights then: it moves, opens a promotion request on a protected stage, or fails with the guard's words (a freeze that has not ended makes a freeze_end schedule wait for the new end). Exactly once across instances; audited.",
  params: { group: 'The stage to promote into', name: 'Policy name' },
  // The service's input schema, under the wire's names, with its one cross-field rule (parsed once, here).
  body: wireBody(ZSchedulePromotion, { omit: ['stage', 'policy', 'requestId'] }).superRefine(scheduleWhenRule),
  pathInput: pathInput(ZSchedulePromotion, { stage: 'group', policy: 'name' }),
  responses: {
    201: { description: dtoDescription, schema: { type: 'object' } },
    400: 'A field is invalid (named): a time in the past, freeze_end on a stage that is not frozen, nothing to change',
    403: 'The caller may not promote into the stage',
    404: 'No such stage, policy or source',
    409: 'The stage changed since the caller looked',
  },
});

export const listScheduledPromotionsRoute = defineRoute({
  method: 'GET',
  path: '/scheduled_promotions',
  summary: 'Scheduled promotions in the stages the caller may view, soonest first',
  query: z.object({
    stage: z.string().max(255).optional(),
    policy: z.string().max(255).optional(),
    status: z.enum(['pending', 'applied', 'requested', 'failed', 'cancelled'], { error: 'must be pending, applied, requested, failed or cancelled' }).optional(),
  }),
  responses: { 200: { description: `{ scheduled_promotions: [${dtoDescription}] }`, schema: { type: 'object', properties: { scheduled_promotions: { type: 'array', items: { type: 'object' } } } } } },
});

export const cancelScheduledPromotionRoute = defineRoute({
  method: 'DELETE',
  path: '/scheduled_promotions/{id}',
  summary: 'Cancel a pending scheduled promotion (whoever scheduled it, or who manages the stage)',
  params: { id: 'Scheduled promotion id' },
  pathInput: pathInput(ZCancelScheduledPromotion, { id: 'id' }),
  responses: { 200: { description: dtoDescription, schema: { type: 'object' } }, 400: 'The id is malformed', 403: 'Not the scheduler nor a manager of the stage', 404: 'No such schedule', 409: 'No longer pending' },
});
