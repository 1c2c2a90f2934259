/** Contracts of the policy routes: policies, revisions, artifacts check, compose. */
import { z } from 'zod';
import { defineRoute, pathInput, ref, wireBody } from '../contract';
import { queryFlag, stageName } from '@/lib/validation/fields';
import { ZComposeInput } from '@/lib/validation/compose';

const policyParam = { name: 'Policy name' };
const revisionsMap = { type: 'object', properties: { revisions: { type: 'object', additionalProperties: { type: 'object' } } } };
const lockResponse = (description: string) => ({ description, schema: ref('PolicyLock') });
/** A comparison side: a stage name, or `rev:<revision id>`. */
export const compareSide = z.string().min(1, 'is required').max(300, 'is at most 300 characters').describe("A stage name, or 'rev:<revision id>'");

export const listPoliciesRoute = defineRoute({
  method: 'GET',
  path: '/policies',
  summary: 'List policies and their revision ids',
  responses: { 200: { description: '{ name: { uri, revisions: { id: {} } } }', schema: { type: 'object', additionalProperties: revisionsMap } } },
});

export const getPolicyRoute = defineRoute({
  method: 'GET',
  path: '/policies/{name}',
  summary: 'A policy and its revision ids',
  params: policyParam,
  responses: { 200: { description: '{ revisions: { id: {} } }', schema: revisionsMap }, 404: 'No such policy' },
});

export const deletePolicyRoute = defineRoute({
  method: 'DELETE',
  path: '/policies/{name}',
  summary: 'Delete a policy, its revisions and its stage associations (admin)',
  params: policyParam,
  responses: { 200: { description: 'The deleted policy: { revisions }', schema: revisionsMap }, 404: 'No such policy' },
});

export const listRevisionsRoute = defineRoute({
  method: 'GET',
  path: '/policies/{name}/revisions',
  summary: 'Revision ids; ?orphans=true lists those active in no stage',
  params: policyParam,
  query: z.object({ orphans: queryFlag.describe('true: only revisions no stage runs') }),
  responses: { 200: { description: '{ revisions: { id: {} | { created_at } } }', schema: revisionsMap }, 404: 'No such policy' },
});

export const uploadRevisionRoute = defineRoute({
  method: 'POST',
  path: '/policies/{name}/revisions',
  summary: 'Upload a revision (policy owner team)',
  description: 'The body is a Policyfile lock, validated whole: every violation is reported with its JSON pointer into the lock. The stored bytes are the bytes sent.',
  params: { name: 'Policy name (must equal the document name)' },
  query: z.object({
    owner_team: z.string().min(1).max(255).optional().describe('Owner team when the policy is new and the uploader is in several teams (see chooseOwnerTeam)'),
    team: z.string().min(1).max(255).optional().describe('Older name of owner_team'),
  }),
  bodyKind: 'text',
  bodyDoc: { description: 'A Policyfile lock (JSON)', schema: ref('PolicyLock') },
  responses: {
    201: lockResponse('Stored; the body is echoed byte-for-byte'),
    200: lockResponse('The same content was already stored under this id'),
    400: 'Invalid lock: every violation with its JSON pointer',
    409: "Policy 'N' with revision_id 'R' already exists. (different content)",
  },
});

export const getRevisionRoute = defineRoute({
  method: 'GET',
  path: '/policies/{name}/revisions/{rev}',
  summary: 'The stored document plus policy_group_list; ?raw=true downloads the stored document alone',
  params: { name: 'Policy name', rev: 'Revision id' },
  query: z.object({ raw: queryFlag.describe('true: the stored bytes as an attachment') }),
  responses: { 200: lockResponse('The document'), 404: 'No such revision' },
});

export const revisionJourneyRoute = defineRoute({
  method: 'GET',
  path: '/policies/{name}/revisions/{rev}/journey',
  summary: "Issue 29: the revision's journey across stages",
  description:
    'Where it was first stored (by whom, through which tool: console, API token, chef push / Chef API, import), each move of a stage onto it and off it (who, when, kind, the promotion request with its approvals, freeze / gate / artifact overrides, automatic rollback), the time spent in each stage (soak_ms), and from run reports how each stage\'s nodes converged it. Only stages the reader may view.',
  params: { name: 'Policy name', rev: 'Revision id' },
  responses: {
    200: {
      description: '{ policy, revision_id, created: { at, by, origin, tool, tool_label, via }, steps: [{ stage, entered_at, by, kind, tool, from_revision_id, reason, request: { id, requester, approvals_required, approvals: [{ by, at, decision, comment }] } | null, overrides: { freeze?, gate?, artifacts? }, automatic_rollback, left_at, left, soak_ms, current }], convergence: [{ stage, nodes_converged, nodes_failed, successful_runs, failed_runs, first_success_at, last_first_success_at, converged_after_ms }], pending_requests, current_stages, scheduled: [{ id, stage, when, run_at, scheduled_by }] }',
      schema: { type: 'object', properties: { policy: { type: 'string' }, revision_id: { type: 'string' }, created: { type: 'object' }, steps: { type: 'array', items: { type: 'object' } }, convergence: { type: 'array', items: { type: 'object' } }, pending_requests: { type: 'array', items: { type: 'object' } }, scheduled: { type: 'array', items: { type: 'object' } }, current_stages: { type: 'array', items: { type: 'string' } } } },
    },
    404: 'No such revision',
  },
});

export const deleteRevisionRoute = defineRoute({
  method: 'DELETE',
  path: '/policies/{name}/revisions/{rev}',
  summary: 'Delete a revision no stage runs (policy owner)',
  params: { name: 'Policy name', rev: 'Revision id' },
  responses: { 200: lockResponse('The deleted document'), 404: 'No such revision', 409: 'Still active in a stage' },
});

export const artifactCheckRoute = defineRoute({
  method: 'GET',
  path: '/policies/{name}/artifacts',
  summary: "The cookbooks of what `to` would run that are not on the server (the promote dialog's warning)",
  params: policyParam,
  query: z.object({ from: compareSide, to: stageName, cookbook: z.string().min(1).max(255).optional().describe('Only this cookbook (a cookbook promotion)') }),
  responses: {
    200: { description: '{ missing_artifacts: ["name identifier"…], to_requires_artifacts }', schema: { type: 'object', properties: { missing_artifacts: { type: 'array', items: { type: 'string' } }, to_requires_artifacts: { type: 'boolean' } } } },
    404: 'No such policy, stage or revision',
  },
});

export const composeRoute = defineRoute({
  method: 'POST',
  path: '/policies/{name}/compose',
  summary: 'Compose a lock from a parent and included locks: a preview (200), or saved (201) with save: true',
  description: 'Numbers and key order of the parent are kept as written (the body is read losslessly). A 409 lists every conflict, each with a JSON pointer.',
  params: policyParam,
  bodyKind: 'lossless',
  body: wireBody(ZComposeInput, { omit: ['policy', 'requestId'], alias: { freezeOverrideReason: 'overrideReason' } }),
  pathInput: pathInput(ZComposeInput, { policy: 'name' }),
  responses: {
    200: 'The merged lock and its provenance (a preview; nothing stored)',
    201: 'Saved (and, with group, promoted)',
    202: 'Saved; the group is protected, so moving it there opened a promotion request (`request`), and nothing moved',
    409: 'Every conflict, each with a JSON pointer; or the stage changed since the caller looked',
  },
});
