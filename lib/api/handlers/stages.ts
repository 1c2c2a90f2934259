import { type ApiRoute, handle, json, raw } from '@/lib/api/envelope';
import { setStageGrantRoute, historyRoute, deleteStagePolicyRoute, getStagePolicyRoute, putStagePolicyRoute, deleteStageRoute, getStageRoute, putStageRoute, listStagesRoute } from '@/lib/api/contracts/stages';
import { setStageGrant, pointerHistory, removeGroupPolicy, setGroupPolicy, deleteStage, putStage } from '@/lib/services/stages';
import { assertViewable } from '@/lib/auth/permissions';
import { groupPolicyBytes, chefGroup, chefGroupList } from '@/lib/db/queries/policies';
import { stageTimelineRoute } from '@/lib/api/contracts/rollout';
import { stageTimeline } from '@/lib/services/runs';

// /api/v1/policy_groups/[group]/permissions
/** PUT { subject: { type: "user", email } | { type: "team", name }, level: "view" | "promote" | "manage" | "none" } (manage or admin). */
const onSetStageGrant = handle(setStageGrantRoute, async (_req, { access, input, body, requestId }) =>
  json(await setStageGrant(access, { ...body, ...input, requestId })),
);

// /api/v1/policy_groups/[group]/policies/[name]/history
/** Every pointer change of a policy in a stage, newest first, under the contract's (snake_case) names. */
const onHistory = handle(historyRoute, async (_req, { access, params }) => {
  assertViewable(access, params.group, `Cannot load policy group ${params.group}`);
  const history = (await pointerHistory(params.group, params.name)).map((h) => ({
    id: h.id,
    at: h.at,
    kind: h.kind,
    from_revision_id: h.fromRevisionId,
    to_revision_id: h.toRevisionId,
    actor: h.actor,
    reason: h.reason,
    convergence: h.convergence && { nodes: h.convergence.nodes, converged: h.convergence.converged, last_converged_at: h.convergence.lastConvergedAt },
  }));
  return json({ history });
});

// /api/v1/policy_groups/[group]/policies/[name]
const jsonText = (text: string, status = 200) => raw(text, { status, headers: { 'content-type': 'application/json' } });

/** The node read path: serves the stored bytes, no parsing or re-serialising. */
const onGetStagePolicy = handle(getStagePolicyRoute, async (_req, { access, params }) => {
  // A stage hidden from the reader answers as a missing one (404, as on the Chef door).
  assertViewable(access, params.group, `Cannot load policy ${params.name} in policy group ${params.group}`);
  const bytes = await groupPolicyBytes(params.group, params.name);
  return raw(new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.length), { headers: { 'content-type': 'application/json' } });
});

/** PUT a lock (?override_reason= overrides a freeze window, manage on the stage). Into a protected stage: 202 { request } and the pointer does not move. */
const onPutStagePolicy = handle(putStagePolicyRoute, async (_req, { access, params, query, text, requestId }) => {
  const result = await setGroupPolicy(access, { group: params.group, policy: params.name, text, ownerTeam: query.owner_team, requestId, freezeOverrideReason: query.override_reason });
  if (result.request) return json({ request: result.request }, { status: 202 });
  return jsonText(result.document, result.status);
});

const onDeleteStagePolicy = handle(deleteStagePolicyRoute, async (_req, { access, params, query, requestId }) => {
  const result = await removeGroupPolicy(access, { group: params.group, policy: params.name, requestId, freezeOverrideReason: query.override_reason });
  if (result.request) return json({ request: result.request }, { status: 202 });
  return jsonText(result.document);
});

// /api/v1/policy_groups/[group]
const onGetStage = handle(getStageRoute, async (_req, { access, params }) => {
  // Issue 41: the right first, so a hidden stage and a missing one answer alike.
  assertViewable(access, params.group, `Cannot load policy group ${params.group}`);
  return json(await chefGroup(params.group));
});

/** Creates a stage (admin) or updates its position/description (manage). Body: { position?, description?, require_artifacts?, open_enrollment? }. */
const onPutStage = handle(putStageRoute, async (_req, { access, params, body, requestId }) => {
  const result = await putStage(access, { ...body, name: params.group }, requestId);
  return json(await chefGroup(result.name), { status: result.status });
});

const onDeleteStage = handle(deleteStageRoute, async (_req, { access, params, requestId }) => json(await deleteStage(access, params.group, requestId)));

// /api/v1/policy_groups/[group]/timeline
/** GET ?policy=&limit=: the stage's timeline, newest first (view). */
const onStageTimeline = handle(stageTimelineRoute, async (_req, { access, params, query }) => json(await stageTimeline(access, { stage: params.group, policy: query.policy, limit: query.limit })));

// /api/v1/policy_groups
/** Stages the caller may view, in stage order. */
const onListStages = handle(listStagesRoute, async (_req, { access }) => json(await chefGroupList(access)));

/** The rows of stages: one per contract. */
export const stagesRoutes: ApiRoute[] = [onSetStageGrant, onHistory, onGetStagePolicy, onPutStagePolicy, onDeleteStagePolicy, onGetStage, onPutStage, onDeleteStage, onStageTimeline, onListStages];
