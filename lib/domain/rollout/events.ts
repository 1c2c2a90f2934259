/** Webhook events of rollouts (issue 26), beside the guarded stages' (approval/events.ts). */
export const ROLLOUT_EVENT_NAMES = ['rollout.failed', 'rollout.rolled_back', 'rollout.converged'] as const;
