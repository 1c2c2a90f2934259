/**
 * The input of a stage's promotion gate and automatic rollback rule (issue 26), one definition: the admin
 * action parses with it, the /api/v1 contract (lib/api/contracts/rollout.ts) derives its body and path field
 * from it, and lib/services/rollout.ts takes its parsed output (the ranges are the rules engine's,
 * validateGateRule / validateRollbackRule). Pure zod.
 */
import { z } from 'zod';
import { chefName } from './fields';

const int = z.number({ error: 'must be a whole number' }).int('must be a whole number');
export const ZSetStageRolloutRule = z.object({
  stage: chefName(),
  gate: z
    .object({ enabled: z.boolean({ error: 'must be true or false' }), min_success_pct: int.optional(), min_nodes: int.optional(), max_failure_pct: int.optional(), soak_minutes: int.optional() })
    .strict()
    .optional(),
  rollback: z.object({ enabled: z.boolean({ error: 'must be true or false' }), window_minutes: int.optional(), failure_pct: int.optional(), min_runs: int.optional() }).strict().optional(),
  requestId: z.string().max(100).optional(),
});
