/**
 * The inputs of the promotions (promote one policy, promote several, roll back, promote one cookbook), one
 * definition each: the server actions (lib/actions/promotion/*) parse with them, the /api/v1 contracts
 * (lib/api/contracts/promotion.ts) derive their bodies and path fields from them, and the services
 * (lib/services/promotion/promote-policy.ts, promote-policies.ts, rollback.ts, promote-cookbook.ts) take their parsed
 * output; what stays in the services are the rules that need the database. Pure zod.
 */
import { z } from 'zod';
import { chefName, cookbookName, expectedRevisionId as expectedRevisionIdField, overrideReason as overrideReasonField, reason as reasonField, requestId as requestIdField, requiredReason, revisionId as revisionIdField } from './fields';

const name = chefName();

export const ZPromotePolicyInput = z.object({
  policy: name,
  /** A stage, or `rev:<revision_id>` to start a revision that runs nowhere yet (a fresh upload). */
  from: name,
  to: name,
  /** What the user saw in `to`: a revision id, or null for "nothing". Required: promotions never overwrite blindly. */
  expectedRevisionId: expectedRevisionIdField,
  reason: reasonField.optional(),
  /** A written reason to promote into a stage that requires artifacts although some are missing (audited). */
  overrideReason: overrideReasonField.optional(),
  /** Issue 15: a written reason to move during a freeze window (needs manage on the stage). */
  freezeOverrideReason: overrideReasonField.optional(),
  /** Issue 26: a written reason to promote although the stage's promotion gate is not met (needs manage on the stage; audited). */
  gateOverrideReason: overrideReasonField.optional(),
  /** Issues 43 and 41: a written reason to move a revision that failed in the target stage before (a stage verdict; needs manage on the stage; audited). */
  verdictOverrideReason: overrideReasonField.optional().describe('Issues 43 and 41: a written reason to move a revision that failed in the target stage before (a canary ring rolled back for failures, or the stage\'s automatic rollback); manage on the stage; audited'),
  requestId: requestIdField.optional(),
});
export type PromotePolicyInput = z.output<typeof ZPromotePolicyInput>;

export const ZPromotePoliciesInput = z.object({
  from: name.describe('The stage whose revisions are promoted'),
  to: name,
  policies: z.union([z.literal('all'), z.array(name).min(1, 'must name at least one policy').max(1000)]).describe("Policy names, or 'all': every policy of from whose revision differs"),
  /** For each policy, what the user saw in `to` (null: nothing). Every promoted policy needs one. */
  expected: z.record(z.string(), expectedRevisionIdField).describe('For each promoted policy, the revision the caller saw in the target stage (null: none)'),
  reason: reasonField.optional(),
  /** A written reason to promote into a stage that requires artifacts although some are missing (audited). */
  overrideReason: overrideReasonField.optional().describe('A written reason to go ahead although cookbook artifacts are missing or the stage is frozen (a freeze needs manage on the stage); audited'),
  /** Issue 15: a written reason to move during a freeze window (needs manage on the stage). */
  freezeOverrideReason: overrideReasonField.optional(),
  /** Issue 26: a written reason to promote although the stage's promotion gate is not met (needs manage on the stage; audited). */
  gateOverrideReason: overrideReasonField.optional().describe("Issue 26: a written reason to promote although the stage's promotion gate is not met (manage on the stage); audited"),
  /** Issues 43 and 41: a written reason to move a revision that failed in the target stage before (a stage verdict; needs manage on the stage; audited). */
  verdictOverrideReason: overrideReasonField.optional().describe('Issues 43 and 41: a written reason to move a revision that failed in the target stage before (a canary ring rolled back for failures, or the stage\'s automatic rollback); manage on the stage; audited'),
  requestId: requestIdField.optional(),
});
export type PromotePoliciesInput = z.output<typeof ZPromotePoliciesInput>;

export const ZRollbackInput = z.object({
  policy: name,
  group: name,
  toRevisionId: revisionIdField,
  expectedRevisionId: expectedRevisionIdField,
  reason: requiredReason('a rollback'),
  /** A written reason to promote into a stage that requires artifacts although some are missing (audited). */
  overrideReason: overrideReasonField.optional(),
  /** Issue 15: a written reason to move during a freeze window (needs manage on the stage). */
  freezeOverrideReason: overrideReasonField.optional(),
  /** Issues 43 and 41: a written reason to move a revision that failed in the target stage before (a stage verdict; needs manage on the stage; audited). */
  verdictOverrideReason: overrideReasonField.optional().describe('Issues 43 and 41: a written reason to move a revision that failed in the target stage before (a canary ring rolled back for failures, or the stage\'s automatic rollback); manage on the stage; audited'),
  requestId: requestIdField.optional(),
});
export type RollbackInput = z.output<typeof ZRollbackInput>;

export const ZPromoteCookbookInput = z.object({
  policy: name,
  cookbook: cookbookName,
  from: name.describe('The stage whose cookbook version is taken'),
  to: name,
  expectedRevisionId: expectedRevisionIdField,
  reason: reasonField.optional(),
  /** A written reason to promote into a stage that requires artifacts although some are missing (audited). */
  overrideReason: overrideReasonField.optional().describe('A written reason to go ahead although cookbook artifacts are missing or the stage is frozen (a freeze needs manage on the stage); audited'),
  /** Issue 15: a written reason to move during a freeze window (needs manage on the stage). */
  freezeOverrideReason: overrideReasonField.optional(),
  /** Issue 26: a written reason to promote although the stage's promotion gate is not met (needs manage on the stage; audited). */
  gateOverrideReason: overrideReasonField.optional().describe("Issue 26: a written reason to promote although the stage's promotion gate is not met (manage on the stage); audited"),
  /** Issues 43 and 41: a written reason to move a revision that failed in the target stage before (a stage verdict; needs manage on the stage; audited). */
  verdictOverrideReason: overrideReasonField.optional().describe('Issues 43 and 41: a written reason to move a revision that failed in the target stage before (a canary ring rolled back for failures, or the stage\'s automatic rollback); manage on the stage; audited'),
  /** Only check: build and verify the lock, write nothing (the dialog's preview). */
  dryRun: z.boolean().optional().describe('Only build and check the lock; store nothing'),
  requestId: requestIdField.optional(),
});
export type PromoteCookbookInput = z.output<typeof ZPromoteCookbookInput>;
