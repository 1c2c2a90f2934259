/**
 * Issue 48, the inputs of the dependents feature, one definition each: the /api/v1 contracts
 * (lib/api/contracts/dependents.ts) derive their bodies and path fields from them, the server actions
 * (lib/actions/dependents/*) parse with them, and lib/services/dependents takes their parsed output. Pure zod.
 */
import { z } from 'zod';
import { chefName, expectedRevisionId, overrideReason, reason, requestId } from './fields';

const name = chefName();

/** For each policy, the revision the caller saw (null: none): a changed stage is a 409, never a silent overwrite. */
const expectedMap = z.record(z.string(), expectedRevisionId);

export const ZRebuildDependentsInput = z.object({
  /** The stage whose dependents are rebuilt. */
  stage: name,
  /** The included policy (what moved). */
  policy: name,
  /** Compute and show everything, store nothing. */
  dryRun: z.boolean().optional().describe('Compute every rebuild and its diff, store nothing (the preview)'),
  /** Only these dependents (default: every dependent that carries an older revision). */
  policies: z.array(name).min(1, 'must name at least one policy').max(1000).optional().describe('Only these dependents (default: every one that carries an older revision)'),
  /** What the caller saw in the stage (the preview answers it as `expected`): the included policy and each dependent. */
  expected: expectedMap.optional().describe('For the included policy and each dependent, the revision the caller saw in the stage (the preview answers it as `expected`); a mismatch is a 409'),
  reason: reason.optional(),
  overrideReason: overrideReason.optional().describe('A written reason to go ahead although cookbook artifacts are missing or the stage is frozen (a freeze needs manage on the stage); audited'),
  freezeOverrideReason: overrideReason.optional(),
  gateOverrideReason: overrideReason.optional().describe("A written reason to move although the stage's promotion gate is not met (manage on the stage); audited"),
  requestId: requestId.optional(),
});
export type RebuildDependentsInput = z.output<typeof ZRebuildDependentsInput>;

export const ZPromoteWithDependentsInput = z.object({
  /** The stage the revisions come from. */
  stage: name,
  /** The included policy. */
  policy: name,
  /** The target stage (default: the next stage in promotion order). */
  to: name.optional().describe('The target stage (default: the next stage in promotion order)'),
  /** Whether the included policy itself moves too (when the target runs another revision of it). Default true. */
  includePolicy: z.boolean().optional().describe('Move the included policy too when the target runs another revision of it (default true)'),
  /** Only these dependents (default: every dependent that carries the stage's revision and differs in the target). */
  policies: z.array(name).min(1, 'must name at least one policy').max(1000).optional().describe("Only these dependents (default: every one that carries the stage's revision and differs in the target)"),
  dryRun: z.boolean().optional().describe('The guard’s answer for the joint move (members, approvals sized by the combined diff), nothing moves'),
  /** For each member, the revision the caller saw in the target (null: none). Required unless dry run. */
  expected: expectedMap.optional().describe('For each member, the revision the caller saw in the target stage (null: none); required unless dry_run'),
  reason: reason.optional(),
  overrideReason: overrideReason.optional().describe('A written reason to go ahead although cookbook artifacts are missing or the stage is frozen (a freeze needs manage on the stage); audited'),
  freezeOverrideReason: overrideReason.optional(),
  gateOverrideReason: overrideReason.optional().describe("A written reason to promote although the target's promotion gate is not met (manage on the stage); audited"),
  verdictOverrideReason: overrideReason.optional().describe('A written reason to move a member that failed in the target stage before (a stage verdict); manage on the stage; audited'),
  requestId: requestId.optional(),
});
export type PromoteWithDependentsInput = z.output<typeof ZPromoteWithDependentsInput>;
