/** Contracts of the node routes. */
import { z } from 'zod';
import { defineRoute, ref } from '../contract';
import { policyName, queryFlag, revisionId, stageName } from '@/lib/validation/fields';

const nodeList = { description: '{ nodes: Node[] }', schema: { type: 'object', properties: { nodes: { type: 'array', items: ref('Node') } } } };
const stale = queryFlag.describe("true: only nodes not on the stage's active revision");

export const listNodesRoute = defineRoute({
  method: 'GET',
  path: '/nodes',
  summary: 'Nodes in stages the caller may view',
  query: z.object({ group: stageName.optional(), policy: policyName.optional(), stale }),
  responses: { 200: nodeList },
});

export const reportNodeRoute = defineRoute({
  method: 'PUT',
  path: '/nodes/{name}',
  summary: 'Register a node or record a check-in (node.report on the stage)',
  params: { name: 'Node name' },
  body: z
    .object({
      name: z.string().optional().describe('Ignored: the path names the node'),
      policy_group: stageName,
      policy_name: policyName,
      revision_id: revisionId.optional(),
      platform: z.string().max(100).optional(),
      platform_version: z.string().max(100).optional(),
      platform_family: z.string().max(100).optional(),
      os: z.string().max(100).optional(),
    })
    .strict()
    .transform(({ name: _ignored, ...rest }) => rest),
  responses: { 201: { description: 'Registered', schema: ref('Node') }, 200: { description: 'Updated', schema: ref('Node') }, 404: 'Unknown stage or policy' },
});

export const moveNodeRoute = defineRoute({
  method: 'PUT',
  path: '/nodes/{name}/stage',
  summary: "Move a node to another stage (issue 41: a user with node.report on the stage it leaves and the one it enters; the node object is kept, only its policy_group changes)",
  params: { name: 'Node name' },
  body: z.object({ stage: stageName.describe('The stage the node moves to') }).strict(),
  responses: { 200: { description: 'Moved (or already there)', schema: ref('Node') }, 403: 'No right on one of the stages (a hidden stage: as a missing one)', 404: 'No such node' },
});

export const stageNodesRoute = defineRoute({
  method: 'GET',
  path: '/policy_groups/{group}/nodes',
  summary: 'Nodes in a stage',
  params: { group: 'Stage name' },
  query: z.object({ stale }),
  responses: { 200: nodeList, 404: 'No such stage (or it is hidden from the caller)' },
});

export const stagePolicyNodesRoute = defineRoute({
  method: 'GET',
  path: '/policy_groups/{group}/policies/{name}/nodes',
  summary: 'Nodes running a policy in a stage',
  params: { group: 'Stage name', name: 'Policy name' },
  query: z.object({ stale }),
  responses: { 200: nodeList, 404: 'No association (or the stage is hidden from the caller)' },
});
