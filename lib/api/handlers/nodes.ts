import { type ApiRoute, handle, json } from '@/lib/api/envelope';
import { reportNodeRoute, moveNodeRoute, listNodesRoute, stageNodesRoute, stagePolicyNodesRoute } from '@/lib/api/contracts/nodes';
import { listNodes, reportNode, moveNode } from '@/lib/services/nodes';
import { nodeRunsRoute } from '@/lib/api/contracts/rollout';
import { nodeRunHistory } from '@/lib/services/runs';
import { assertViewable } from '@/lib/auth/permissions';
import { chefGroup, groupPolicyDocument } from '@/lib/db/queries/policies';

// /api/v1/nodes/[name]
/** Registers a node or records its check-in: { policy_group, policy_name, revision_id?, platform?, platform_version?, platform_family?, os? }. */
const onReportNode = handle(reportNodeRoute, async (_req, { access, params, body }) => {
  const { status } = await reportNode(access, { ...body, name: params.name });
  const node = (await listNodes(access, { name: params.name }))[0] ?? { name: params.name };
  return json(node, { status });
});

// /api/v1/nodes/[name]/runs
const onNodeRuns = handle(nodeRunsRoute, async (_req, { access, params, query }) => json({ runs: await nodeRunHistory(access, params.name, { limit: query.limit }) }));

// /api/v1/nodes/[name]/stage
/** Issue 41: moves a node to another stage ({ stage }); node.report on both stages, audited node.move. */
const onMoveNode = handle(moveNodeRoute, async (_req, { access, params, body, requestId }) => {
  await moveNode(access, params.name, body.stage, requestId);
  const node = (await listNodes(access, { name: params.name }))[0] ?? { name: params.name };
  return json(node);
});

// /api/v1/nodes
/** ?group=&policy=&stale=true — nodes in stages the caller may view. */
const onListNodes = handle(listNodesRoute, async (_req, { access, query }) => json({ nodes: await listNodes(access, query) }));

// /api/v1/policy_groups/[group]/nodes
const onStageNodes = handle(stageNodesRoute, async (_req, { access, params, query }) => {
  // Issue 41: the right first, so a hidden stage and a missing one answer alike.
  assertViewable(access, params.group, `Cannot load policy group ${params.group}`);
  await chefGroup(params.group);
  return json({ nodes: await listNodes(access, { group: params.group, stale: query.stale }) });
});

// /api/v1/policy_groups/[group]/policies/[name]/nodes
const onStagePolicyNodes = handle(stagePolicyNodesRoute, async (_req, { access, params, query }) => {
  assertViewable(access, params.group, `Cannot load policy ${params.name} in policy group ${params.group}`);
  await groupPolicyDocument(params.group, params.name);
  return json({ nodes: await listNodes(access, { group: params.group, policy: params.name, stale: query.stale }) });
});

/** The rows of nodes: one per contract. */
export const nodesRoutes: ApiRoute[] = [onReportNode, onNodeRuns, onMoveNode, onListNodes, onStageNodes, onStagePolicyNodes];
