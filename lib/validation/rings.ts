/**
 * The inputs of the ringed rollouts (issue 30), one definition each: the server actions (lib/actions/rings/ring-actions.ts)
 * parse with them, the /api/v1 contracts (lib/api/contracts/rings.ts) derive their bodies and path fields from them,
 * and lib/services/rings/rings.ts takes their parsed output (the steps are checked by the domain's validateRingSteps). Pure zod.
 */
import { z } from 'zod';
import { chefName, revisionId } from './fields';

export const ZStartRing = z.object({
  stage: chefName(),
  policy: chefName(),
  revision_id: revisionId,
  steps: z.array(z.number()).optional(),
  /** Nodes in the ring from the first step, whatever their bucket. */
  nodes: z.array(chefName()).max(1000, 'at most 1000 named nodes').optional(),
  gate_on_convergence: z.boolean().optional(),
  /** Issue 43: roll the ring back automatically as soon as a ring node fails on its revision (left out: the same as gate_on_convergence, as before). */
  rollback_on_failure: z.boolean().optional(),
  soak_minutes: z.number().int('is a whole number of minutes').min(1, 'is at least 1').max(10_080, 'is at most 10080 (a week)').nullable().optional(),
  reason: z.string().trim().max(1000, 'is at most 1000 characters').optional(),
  /** What the caller saw in the stage (409 when it changed). */
  expected_revision_id: z.string().nullable().optional(),
  override_reason: z.string().trim().max(1000, 'is at most 1000 characters').optional(),
  gate_override_reason: z.string().trim().max(1000, 'is at most 1000 characters').optional(),
  /** Issue 43: a written reason to roll out a revision that failed in this stage before (manage on the stage). */
  verdict_override_reason: z.string().trim().max(1000, 'is at most 1000 characters').optional(),
  requestId: z.string().max(100).optional(),
});
export type StartRingInput = z.output<typeof ZStartRing>;

export const ZRingAction = z.object({
  id: z.string().min(1).max(100),
  /** Widen: the step the caller saw (409 when the ring moved since). */
  expected_step: z.number().int().optional(),
  reason: z.string().trim().max(1000, 'is at most 1000 characters').optional(),
  /** A freeze override (needs `manage` on the stage). */
  override_reason: z.string().trim().max(1000, 'is at most 1000 characters').optional(),
  /** Widen before the ring converged (needs `manage` on the stage). */
  gate_override_reason: z.string().trim().max(1000, 'is at most 1000 characters').optional(),
  requestId: z.string().max(100).optional(),
});
export type RingActionInput = z.output<typeof ZRingAction>;
