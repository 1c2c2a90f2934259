'use server';

import { setStageRolloutRule, ZSetStageRolloutRule, resumeAutomation } from '@/lib/services/runs';
import { ZResumeAutomation } from '@/lib/validation/rollout-rules';
import { serviceAction } from '../safe-action';

/**
 * Issue 26, Admin → Stages: a stage's promotion gate and automatic rollback rule
 * ({ stage, gate?: { enabled, min_success_pct, min_nodes, max_failure_pct, soak_minutes },
 * rollback?: { enabled, window_minutes, failure_pct, min_runs } }), through the
 * same service (and audit event) as PUT /api/v1/policy_groups/:group/rollout.
 */
export const setStageRolloutRuleAction = serviceAction({ input: ZSetStageRolloutRule.omit({ requestId: true }), run: setStageRolloutRule, revalidate: ['/', 'layout'] });

/** Issue 47: lifts the hold of a stage's automatic promotion ({ stage, reason? }), as POST /api/v1/policy_groups/:group/rollout/resume. */
export const resumeAutomationAction = serviceAction({ input: ZResumeAutomation.omit({ requestId: true }), run: resumeAutomation, revalidate: ['/', 'layout'] });
