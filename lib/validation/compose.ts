/** The compose request's parts, shared by the HTTP route's schema and the service's input. */
import { z } from 'zod';
import { cookbookName, expectedRevisionId, overrideReason, policyName, reason, repositoryName, requestId, revisionId, stageName } from './fields';

const attrs = z.record(z.string(), z.unknown());

/** The parent: an existing revision of the policy, or a run list with optional cookbooks and attributes. */
export const ZParentInput = z.union([
  z.object({ revision: revisionId }).strict(),
  z
    .object({
      run_list: z.array(z.string().max(500)).max(5000),
      named_run_lists: z.record(z.string(), z.array(z.string().max(500))).optional(),
      cookbook_locks: z.record(cookbookName, z.object({ version: z.string(), identifier: z.string() }).passthrough()).optional(),
      default_attributes: attrs.optional(),
      override_attributes: attrs.optional(),
      solution_dependencies: z.object({}).passthrough().optional(),
    })
    .strict(),
]);

export const ZIncludeSource = z.discriminatedUnion('type', [
  z.object({ type: z.literal('server'), policy: policyName, group: stageName.optional(), revision: revisionId.optional() }).refine((s) => !!s.group !== !!s.revision, { message: 'give either group or revision' }),
  z.object({
    type: z.literal('upload'),
    lock: z.union([z.string().max(8 * 1024 * 1024), z.record(z.string(), z.unknown())]),
    /** Where the lock lives relative to the composed policy, as in `include_policy "x", path: "…"`: recorded in source_options, and its path cookbooks are located relative to it (chef-cli's LocalLockFetcher). */
    path: z.string().min(1, 'is required').max(1000).optional(),
  }),
  z.object({ type: z.literal('git'), repository: repositoryName, path: z.string().min(1, 'is required').max(1000), ref: z.string().min(1, 'is required').max(200) }),
]);
export type IncludeSource = z.infer<typeof ZIncludeSource>;

/** One include: its name (as in `include_policy "name"`) and where its lock comes from. */
export const ZIncludeEntry = z.object({ name: z.string().trim().min(1, 'is required').max(100), source: ZIncludeSource });



/**
 * A compose request (issue 22: one schema per input): the HTTP contract derives its snake_case body from
 * it (`wireBody`); the service takes the parsed result. The parent is validated here and handed on as read
 * (losslessly), so its numbers and key order reach the composed lock as written.
 */
export const ZComposeInput = z.object({
  policy: policyName,
  parent: ZParentInput,
  includes: z.array(ZIncludeEntry).max(50).default([]),
  save: z.boolean().optional(),
  group: stageName.optional().describe('With save: point this stage at the composed revision (through the promotion guard). Without save (issue 29): the preview carries `guard`, what saving into this stage would do now'),
  expectedRevisionId: expectedRevisionId.optional(),
  reason: reason.optional(),
  /** Owning team when saving creates the policy (see chooseOwnerTeam). */
  ownerTeam: z.string().min(1).max(255).nullable().optional().describe('With save, when the policy is new: the owning team (required for a user in several teams)'),
  requestId: requestId.optional(),
  /** Issue 29: saving into a stage moves the pointer through the same guard as a promotion: its override reasons. */
  overrideReason: overrideReason.optional().describe('With save and group: a written reason to go ahead although cookbook artifacts are missing or the stage is frozen (a freeze needs manage on the stage); audited'),
  freezeOverrideReason: overrideReason.optional(),
  gateOverrideReason: overrideReason.optional().describe("With save and group: a written reason to move although the stage's promotion gate is not met (manage on the stage); audited"),
});
export type ComposeInput = z.output<typeof ZComposeInput>;
