/** Contracts of the promotion routes: promote, rollback, promote one cookbook. */
import { defineRoute, pathInput, wireBody } from '../contract';
import { ZPromoteCookbookInput, ZPromotePoliciesInput, ZRollbackInput } from '@/lib/validation/promotion';
import { promotionRequestSchema, requestEnvelope } from './guarded-schemas';

const stageAndPolicy = { group: 'Stage name', name: 'Policy name' };

export const rollbackRoute = defineRoute({
  method: 'POST',
  path: '/policy_groups/{group}/policies/{name}/rollback',
  summary: 'Point a stage back at a revision it held before (stage.promote); a written reason is required',
  params: stageAndPolicy,
  body: wireBody(ZRollbackInput, { omit: ['policy', 'group', 'requestId'], alias: { freezeOverrideReason: 'overrideReason' } }),
  pathInput: pathInput(ZRollbackInput, { policy: 'name', group: 'group' }),
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
  body: wireBody(ZPromotePoliciesInput, { omit: ['to', 'requestId'], alias: { freezeOverrideReason: 'overrideReason' } }),
  pathInput: pathInput(ZPromotePoliciesInput, { to: 'group' }),
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
  body: wireBody(ZPromoteCookbookInput, { omit: ['policy', 'to', 'requestId'], alias: { freezeOverrideReason: 'overrideReason' } }),
  pathInput: pathInput(ZPromoteCookbookInput, { policy: 'name', to: 'group' }),
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
