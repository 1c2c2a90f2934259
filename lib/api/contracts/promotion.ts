/** Contracts of the promotion routes: promote, rollback, promote one cookbook. */
import { z } from 'zod';
import { defineRoute } from '../contract';
import { promotionRequestSchema, requestEnvelope } from './guarded-schemas';
import { cookbookName, expectedRevisionId, overrideReason, policyName, reason, requiredReason, revisionId, stageName } from '@/lib/validation/fields';

const stageAndPolicy = { group: 'Stage name', name: 'Policy name' };

export const rollbackRoute = defineRoute({
  method: 'POST',
  path: '/policy_groups/{group}/policies/{name}/rollback',
  summary: 'Point a stage back at a revision it held before (stage.promote); a written reason is required',
  params: stageAndPolicy,
  body: z
    .object({
      to_revision_id: revisionId,
      expected_revision_id: expectedRevisionId,
      reason: requiredReason('a rollback'),
      override_reason: overrideReason.optional(),
    })
    .strict()
    .transform((b) => ({ toRevisionId: b.to_revision_id, expectedRevisionId: b.expected_revision_id, reason: b.reason, overrideReason: b.override_reason, freezeOverrideReason: b.override_reason })),
  responses: {
    200: 'The pointer moved (or already pointed there): { from_revision_id, to_revision_id, changed, … }',
    400: 'A field is invalid, or the stage never ran that revision (pointer /to_revision_id)',
    404: 'No such stage or policy',
    202: { description: 'The stage is protected: a promotion request was opened instead, nothing moved', schema: requestEnvelope },
    409: 'The stage changed since the caller looked (expected_revision_id), cookbook artifacts are missing without an override reason, or the revision is marked bad',
    423: 'The stage is frozen (the window’s reason and end); override_reason from a manager overrides',
  },
});

export const promoteRoute = defineRoute({
  method: 'POST',
  path: '/policy_groups/{group}/promote',
  summary: 'Promote policies from one stage into this one, all or nothing (stage.promote on the target)',
  params: { group: 'The target stage' },
  body: z
    .object({
      from: stageName.describe('The stage whose revisions are promoted'),
      policies: z.union([z.literal('all'), z.array(policyName).min(1, 'must name at least one policy').max(1000)]).describe("Policy names, or 'all': every policy of from whose revision differs"),
      expected: z.record(z.string(), expectedRevisionId).describe('For each promoted policy, the revision the caller saw in the target stage (null: none)'),
      reason: reason.optional(),
      override_reason: overrideReason.optional().describe('A written reason to go ahead although cookbook artifacts are missing or the stage is frozen (a freeze needs manage on the stage); audited'),
      gate_override_reason: overrideReason.optional().describe('Issue 26: a written reason to promote although the stage\'s promotion gate is not met (manage on the stage); audited'),
    })
    .strict()
    .transform((b) => ({ from: b.from, policies: b.policies, expected: b.expected, reason: b.reason, overrideReason: b.override_reason, freezeOverrideReason: b.override_reason, gateOverrideReason: b.gate_override_reason })),
  responses: {
    200: 'Every pointer moved: { promoted: [...], requests: [] }',
    202: { description: 'The target is protected: a promotion request for each policy whose change needs approvals (those did not move): { promoted, requests, request? (when exactly one) }', schema: { type: 'object', properties: { requests: { type: 'array', items: promotionRequestSchema }, request: promotionRequestSchema } } },
    404: 'No such stage or policy',
    409: 'A stage changed since the caller looked (nothing moved), cookbook artifacts are missing without an override reason, a revision is marked bad, or the promotion gate is not met (`gate`: its numbers)',
    423: 'The target stage is frozen; override_reason from a manager overrides',
  },
});

export const promoteCookbookRoute = defineRoute({
  method: 'POST',
  path: '/policy_groups/{group}/policies/{name}/promote-cookbook',
  summary: "Take one cookbook from another stage's lock into this stage's lock, as a new derived revision (stage.promote)",
  params: stageAndPolicy,
  body: z
    .object({
      from: stageName.describe('The stage whose cookbook version is taken'),
      cookbook: cookbookName,
      expected_revision_id: expectedRevisionId,
      reason: reason.optional(),
      override_reason: overrideReason.optional().describe('A written reason to go ahead although cookbook artifacts are missing or the stage is frozen (a freeze needs manage on the stage); audited'),
      gate_override_reason: overrideReason.optional().describe('Issue 26: a written reason to promote although the stage\'s promotion gate is not met (manage on the stage); audited'),
      dry_run: z.boolean().optional().describe('Only build and check the lock; store nothing'),
    })
    .strict()
    .transform((b) => ({ from: b.from, cookbook: b.cookbook, expectedRevisionId: b.expected_revision_id, reason: b.reason, overrideReason: b.override_reason, freezeOverrideReason: b.override_reason, gateOverrideReason: b.gate_override_reason, dryRun: b.dry_run })),
  responses: {
    201: 'The derived revision was stored and the stage points at it',
    200: 'A no-op (the stage already runs that cookbook version) or a dry run',
    400: 'A field is invalid, or a dependency constraint fails',
    404: 'No such stage, policy or cookbook',
    202: { description: 'The stage is protected: the derived revision is stored and a promotion request opened, nothing moved', schema: requestEnvelope },
    409: 'The stage changed since the caller looked, cookbook artifacts are missing without an override reason, the revision is marked bad, or the promotion gate is not met (`gate`: its numbers)',
    423: 'The stage is frozen; override_reason from a manager overrides',
  },
});
