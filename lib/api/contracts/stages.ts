/** Contracts of the stage (policy group) routes. */
import { z } from 'zod';
import { defineRoute, pathInput, ref, wireBody } from '../contract';
import { ZPutStageInput, ZSetStageGrantInput } from '@/lib/validation/stages';
import { overrideReason, stageName } from '@/lib/validation/fields';
import { requestEnvelope } from './guarded-schemas';

const groupParam = { group: 'Stage name' };
const stageAndPolicy = { group: 'Stage name', name: 'Policy name' };
const lockResponse = (description: string) => ({ description, schema: ref('PolicyLock') });

export const listStagesRoute = defineRoute({
  method: 'GET',
  path: '/policy_groups',
  summary: 'Stages the caller may view, in stage order',
  responses: { 200: { description: '{ group: { uri, position, description, policies?: { name: { revision_id } } } }', schema: { type: 'object', additionalProperties: ref('Stage') } } },
});

export const getStageRoute = defineRoute({
  method: 'GET',
  path: '/policy_groups/{group}',
  summary: 'One stage',
  params: groupParam,
  responses: { 200: { description: 'The stage', schema: ref('Stage') }, 404: 'No such stage (or it is hidden from the caller)' },
});

export const putStageRoute = defineRoute({
  method: 'PUT',
  path: '/policy_groups/{group}',
  summary: 'Create (admin) or update (manage) a stage',
  params: groupParam,
  body: wireBody(ZPutStageInput, { omit: ['name'], ignored: { name: stageName.optional().describe('Ignored: the path names the stage (knife sends it)') } }),
  pathInput: pathInput(ZPutStageInput, { name: 'group' }),
  responses: { 201: { description: 'Created', schema: ref('Stage') }, 200: { description: 'Updated', schema: ref('Stage') } },
});

export const stageValidatorRoute = defineRoute({
  method: 'POST',
  path: '/policy_groups/{group}/validator',
  summary: "Issue 41: create the stage's validator <org>-validator-<stage>, or rotate its key (administrators); its clients may place their node only in this stage",
  params: groupParam,
  responses: { 201: { description: '{ name, private_key, stage } (the private key is shown once)', schema: { type: 'object', properties: { name: { type: 'string' }, private_key: { type: 'string' }, stage: { type: 'string' }, created: { type: 'boolean' } } } }, 404: 'No such stage' },
});

export const deleteStageRoute = defineRoute({
  method: 'DELETE',
  path: '/policy_groups/{group}',
  summary: 'Delete a stage and its associations (manage); revisions stay',
  params: groupParam,
  responses: { 200: 'The deleted stage', 404: 'No such stage' },
});

export const getStagePolicyRoute = defineRoute({
  method: 'GET',
  path: '/policy_groups/{group}/policies/{name}',
  summary: 'The lock a stage runs (the node read path: the stored bytes)',
  description: 'Bearer-token calls (nodes) take a one-query path; signed and session calls the general one. Both answer the same.',
  params: stageAndPolicy,
  responses: { 200: lockResponse('The document'), 404: 'Cannot load policy N in policy group G (also when the stage is hidden from the caller)' },
});

export const putStagePolicyRoute = defineRoute({
  method: 'PUT',
  path: '/policy_groups/{group}/policies/{name}',
  summary: 'Store the lock if new and point the stage at it (promote; owner for new revisions)',
  params: stageAndPolicy,
  query: z.object({
    owner_team: z.string().min(1).max(255).optional().describe('Owner team when the policy is new and the caller is in several teams'),
    override_reason: overrideReason.optional().describe('Overrides a freeze window (manage on the stage); audited'),
  }),
  bodyKind: 'text',
  bodyDoc: { description: 'A Policyfile lock (JSON)', schema: ref('PolicyLock') },
  responses: {
    201: lockResponse('New association'),
    200: lockResponse('Replaced the association'),
    202: { description: 'The stage is protected: a promotion request was opened (the revision is stored), nothing moved', schema: requestEnvelope },
    400: 'Invalid lock: every violation with its JSON pointer',
    409: 'Same revision id, different content; or the revision is marked bad (who and why)',
    423: 'The stage is frozen: the window’s reason and end',
  },
});

export const deleteStagePolicyRoute = defineRoute({
  method: 'DELETE',
  path: '/policy_groups/{group}/policies/{name}',
  summary: 'Remove the association (promote)',
  params: stageAndPolicy,
  query: z.object({ override_reason: overrideReason.optional().describe('Overrides a freeze window (manage on the stage); audited') }),
  responses: { 200: lockResponse('The revision it held'), 202: { description: 'The stage is protected: a promotion request to remove it', schema: requestEnvelope }, 404: 'No association', 423: 'The stage is frozen' },
});

export const historyRoute = defineRoute({
  method: 'GET',
  path: '/policy_groups/{group}/policies/{name}/history',
  summary: 'Every pointer change of a policy in a stage, newest first',
  params: stageAndPolicy,
  responses: { 200: '{ history: [{ id, at, kind, from_revision_id, to_revision_id, actor, reason, convergence: { nodes, converged, last_converged_at } | null }] }', 404: 'No such stage (or it is hidden from the caller)' },
});

export const setStageGrantRoute = defineRoute({
  method: 'PUT',
  path: '/policy_groups/{group}/permissions',
  summary: "Set (or, with level 'none', remove) a user's or team's level on a stage (manage or admin)",
  params: groupParam,
  body: wireBody(ZSetStageGrantInput, { omit: ['stage', 'requestId'] }),
  pathInput: pathInput(ZSetStageGrantInput, { stage: 'group' }),
  responses: { 200: 'The grant as stored', 404: 'No such stage, user or team' },
});
