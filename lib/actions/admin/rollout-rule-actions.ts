'use server';

import { revalidatePath } from 'next/cache';
import { setStageRolloutRule, ZSetStageRolloutRule, resumeAutomation } from '@/lib/services/runs';
import { ZResumeAutomation } from '@/lib/validation/rollout-rules';
import { authedAction } from '../safe-action';

/**
 * Issue 26, Admin → Stages: a stage's promotion gate and automatic rollback rule
 * ({ stage, gate?: { enabled, min_success_pct, min_nodes, max_failure_pct, soak_minutes },
 * rollback?: { enabled, window_minutes, failure_pct, min_runs } }), through the
 * same service (and audit event) as PUT /api/v1/policy_groups/:group/rollout.
 */
export const setStageRolloutRuleAction = authedAction.inputSchema(ZSetStageRolloutRule.omit({ requestId: true })).action(async ({ parsedInput, ctx }) => {
  const result = await setStageRolloutRule(ctx.access, parsedInput);
  revalidatePath('/', 'layout');
  return result;
});

/** Issue 47: lifts the hold of a stage's automatic promotion ({ stage, reason? }), as POST /api/v1/policy_groups/:group/rollout/resume. */
export const resumeAutomationAction = authedAction.inputSchema(ZResumeAutomation.omit({ requestId: true })).action(async ({ parsedInput, ctx }) => {
  const result = await resumeAutomation(ctx.access, parsedInput);
  revalidatePath('/', 'layout');
  return result;
});
