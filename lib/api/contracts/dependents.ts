/** Issue 48: the dependents of a policy in a stage, their rebuild, and their joint promotion. */
import { defineRoute, pathInput, wireBody } from '../contract';
import { ZPromoteWithDependentsInput, ZRebuildDependentsInput } from '@/lib/validation/dependents';
import { requestEnvelope } from './guarded-schemas';

const stageAndPolicy = { group: 'Stage name', name: 'The included policy' };

export const dependentsRoute = defineRoute({
  method: 'GET',
  path: '/policy_groups/{group}/policies/{name}/dependents',
  summary: 'Every policy whose current revision in this stage includes the policy, at any depth through included_policy_locks (stage.view)',
  params: stageAndPolicy,
  responses: {
    200: '{ stage, policy, revision_id (what the stage runs of it, or null), dependents: [{ policy, revision_id, depth, current, carries: [{ revision_id, current (the one the stage runs), via: [policies between], include_name, source (its source_options) }] }], older (how many carry an older revision), next_stage }',
    403: 'The caller may not view the stage',
    404: 'No such stage or policy',
  },
});

export const rebuildDependentsRoute = defineRoute({
  method: 'POST',
  path: '/policy_groups/{group}/policies/{name}/rebuild-dependents',
  summary:
    "Rebuild the policy's dependents in this stage on the revision the stage runs, as chef-cli's `chef update` of `include_policy \"<name>\", server: …, policy_group: \"<stage>\"` computes them (the include re-resolved, nothing else re-solved): dry_run shows each one's semantic diff, where each change comes from and any conflict, and stores nothing (stage.view); otherwise every rebuilt revision is stored and they move into the stage together through the guard (stage.promote). A conflicting dependent is listed and nothing is written for it.",
  params: stageAndPolicy,
  body: wireBody(ZRebuildDependentsInput, { omit: ['stage', 'policy', 'requestId'], alias: { freezeOverrideReason: 'overrideReason' } }),
  pathInput: pathInput(ZRebuildDependentsInput, { stage: 'group', policy: 'name' }),
  responses: {
    200: "A dry run, or nothing to store: { stage, policy, revision_id, dry_run, caused_by { audit_id, from_revision_id, to_revision_id, at, by }, expected (send it back), rebuilds: [{ policy, status: rebuilt|unchanged|conflict|blocked|pinned, from_revision_id, to_revision_id, message, includes[], diff (LockDiff), changes: [{ kind, text, from: { policy, revision_id, via } }], conflicts[], warnings[], problems[] }], written, moved, guard (dry run: the joint move's guard answer) }",
    201: 'Rebuilt revisions stored and moved into the stage: the same shape, `written` and `moved` counted, each item `created`',
    202: { description: 'The stage is protected: the rebuilt revisions are stored and one promotion request covers moving all of them (`request`); nothing moved', schema: requestEnvelope },
    400: 'A field is invalid (named), the stage runs no revision of the policy, or a named policy is not a dependent',
    403: 'The caller may not view the stage (or, to write, promote into it)',
    404: 'No such stage or policy',
    409: 'The stage changed since the caller looked (`expected`), a rebuilt revision is marked bad, cookbook artifacts are missing without an override reason, or the promotion gate is not met',
    423: 'The stage is frozen; override_reason from a manager overrides',
  },
});

export const promoteWithDependentsRoute = defineRoute({
  method: 'POST',
  path: '/policy_groups/{group}/policies/{name}/promote-with-dependents',
  summary:
    'Promote the policy and its dependents (those carrying the revision this stage runs) from this stage to the next one (or `to`) together: one atomic multi-policy promotion through the guard, approvals sized by the combined change, one promotion request covering every member on a protected stage, refused whole when one member is stale (stage.promote on the target, stage.view here)',
  params: { group: 'The stage the revisions come from', name: 'The included policy' },
  body: wireBody(ZPromoteWithDependentsInput, { omit: ['stage', 'policy', 'requestId'], alias: { freezeOverrideReason: 'overrideReason' } }),
  pathInput: pathInput(ZPromoteWithDependentsInput, { stage: 'group', policy: 'name' }),
  responses: {
    200: '{ from, to, policy, dry_run, guard: { stage, outcome: unchanged|move|request|blocked, action, summary, approvals_required, reasons[], blocked_by[], needs[], members: [{ policy, role: included|dependent, from_revision_id, to_revision_id, preview }] }, left_out: [{ policy, reason }], expected (send it back), promoted: [{ policy, from_revision_id, to_revision_id, changed, audit_id }] }',
    202: { description: 'The target is protected: one promotion request covering every member (`request`); nothing moved', schema: requestEnvelope },
    400: 'A field is invalid (named), there is no next stage, the stage runs no revision of the policy, or a member has no expected revision',
    403: 'The caller may not view the stages, or promote into the target',
    404: 'No such stage or policy',
    409: 'A member changed in the target since the caller looked (nothing moved), a revision is marked bad, cookbook artifacts are missing without an override reason, or the promotion gate is not met',
    423: 'The target is frozen; override_reason from a manager overrides',
  },
});
