/**
 * The input of a stage's promotion gate and automatic rollback rule (issue 26), one definition: the admin
 * action parses with it, the /api/v1 contract (lib/api/contracts/rollout.ts) derives its body and path field
 * from it, and lib/services/runs/health.ts takes its parsed output (the ranges are the rules engine's,
 * validateGateRule / validateRollbackRule). Pure zod.
 */
import { z } from 'zod';
import { chefName } from './fields';

const int = z.number({ error: 'must be a whole number' }).int('must be a whole number');
const checkName = z.string({ error: 'must be a string' }).trim().min(1, 'is required').max(100, 'is at most 100 characters');
const checkUrl = z.string({ error: 'must be a string' }).trim().min(1, 'is required').max(2000, 'is at most 2000 characters');
const timeoutMs = int.min(100, 'must be at least 100').max(30_000, 'must be at most 30000').optional();
const allowPrivate = z.boolean({ error: 'must be true or false' }).optional();
/** Issue 47: a gate's outside check (the URL's target is checked by the service, as a webhook's). */
export const ZGateCheck = z.discriminatedUnion(
  'kind',
  [
    z
      .object({
        name: checkName,
        kind: z.literal('http'),
        url: checkUrl,
        expect_status: z.array(int.min(100, 'must be an HTTP status').max(599, 'must be an HTTP status')).min(1, 'must name at least one status').max(20).optional(),
        timeout_ms: timeoutMs,
        allow_private_targets: allowPrivate,
      })
      .strict(),
    z
      .object({
        name: checkName,
        kind: z.literal('prometheus'),
        url: checkUrl,
        query: z.string({ error: 'must be a string' }).trim().min(1, 'is required').max(4000, 'is at most 4000 characters'),
        min: z.number({ error: 'must be a number' }).optional(),
        max: z.number({ error: 'must be a number' }).optional(),
        timeout_ms: timeoutMs,
        allow_private_targets: allowPrivate,
      })
      .strict(),
  ],
  { error: "kind must be 'http' or 'prometheus'" },
);
export const ZSetStageRolloutRule = z.object({
  stage: chefName(),
  gate: z
    .object({
      enabled: z.boolean({ error: 'must be true or false' }),
      min_success_pct: int.optional(),
      min_nodes: int.optional(),
      max_failure_pct: int.optional(),
      soak_minutes: int.optional(),
      /** Issue 47: outside checks (only an administrator registers their URLs); omitted: unchanged. */
      checks: z.array(ZGateCheck).max(10, 'at most 10 checks').optional(),
    })
    .strict()
    .optional(),
  /** Issue 47: promote into this stage automatically once the revision the stage before runs meets the gate (and soaked soak_minutes). */
  auto_promote: z.object({ enabled: z.boolean({ error: 'must be true or false' }), soak_minutes: int.optional() }).strict().optional(),
  rollback: z.object({ enabled: z.boolean({ error: 'must be true or false' }), window_minutes: int.optional(), failure_pct: int.optional(), min_runs: int.optional() }).strict().optional(),
  requestId: z.string().max(100).optional(),
});

/** Issue 47: lifting the hold of a stage's automatic promotion. */
export const ZResumeAutomation = z.object({
  stage: chefName(),
  reason: z.string({ error: 'must be a string' }).trim().max(1000, 'is at most 1000 characters').optional(),
  requestId: z.string().max(100).optional(),
});
