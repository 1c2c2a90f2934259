/** Issue 43: webhook events of ringed rollouts, beside the rollouts' (rollout/events.ts) and the guarded stages' (approval/events.ts). */
export const RING_EVENT_NAMES = ['ring.started', 'ring.widened', 'ring.rolled_back', 'ring.completed'] as const;
