/** Webhook events of rollouts (issue 26), beside the guarded stages' (approval/events.ts). */
/** Issue 47: automatic promotion (`promotion.automatic`), its holds and the gate's outside checks. */
export const ROLLOUT_EVENT_NAMES = ['rollout.failed', 'rollout.rolled_back', 'rollout.converged', 'promotion.automatic', 'automation.held', 'automation.resumed', 'check.failed'] as const;
