import { type ApiRoute, handle, json } from '@/lib/api/envelope';
import { deleteFreezeRoute, addFreezeRoute, listFreezesRoute, getGuardStateRoute, deleteProtectionRoute, getProtectionRoute, putProtectionRoute } from '@/lib/api/contracts/guarded';
import { deleteFreezeWindow, addFreezeWindow, listFreezeWindows, getStageGuardState, getStageProtection, liftStageProtection, setStageProtection } from '@/lib/services/guards';
import { gateStateRoute } from '@/lib/api/contracts/rollout';
import { gateState } from '@/lib/services/runs';
import { stageValidatorRoute } from '@/lib/api/contracts/stages';
import { assertCan } from '@/lib/auth/permissions';
import { chefOrg } from '@/lib/config';
import { rotateValidatorFor } from '@/lib/services/clients';

// /api/v1/policy_groups/[group]/freezes/[id]
const onDeleteFreeze = handle(deleteFreezeRoute, async (_req, { access, input, requestId }) => json(await deleteFreezeWindow(access, { ...input, requestId })));

// /api/v1/policy_groups/[group]/freezes
const onListFreezes = handle(listFreezesRoute, async (_req, { access, params }) => json({ freezes: await listFreezeWindows(access, params.group) }));

/** POST { starts_at, ends_at, reason, weekly? } (manage) → 201 { freeze }. */
const onAddFreeze = handle(addFreezeRoute, async (_req, { access, input, body, requestId }) => json({ freeze: await addFreezeWindow(access, { ...body, ...input, requestId }) }, { status: 201 }));

// /api/v1/policy_groups/[group]/guard
const onGetGuardState = handle(getGuardStateRoute, async (_req, { access, params }) => json(await getStageGuardState(access, params.group)));

// /api/v1/policy_groups/[group]/policies/[name]/gate
const onGateState = handle(gateStateRoute, async (_req, { access, params, query }) =>
  json({ gate: await gateState(access, { stage: params.group, policy: params.name, revisionId: query.revision_id, fromStage: query.from }) }),
);

// /api/v1/policy_groups/[group]/protection
const onGetProtection = handle(getProtectionRoute, async (_req, { access, params }) => json(await getStageProtection(access, params.group)));

/** PUT { approvals_required, rules, approvers?, protected? } (manage). */
const onPutProtection = handle(putProtectionRoute, async (_req, { access, input, body, requestId }) => json(await setStageProtection(access, { ...body, ...input, requestId })));

const onDeleteProtection = handle(deleteProtectionRoute, async (_req, { access, input, requestId }) => json(await liftStageProtection(access, { ...input, requestId })));

// /api/v1/policy_groups/[group]/validator
/** Issue 41: the stage's validator, created or its key rotated (administrators); the private key is returned once. */
const onStageValidator = handle(stageValidatorRoute, async (_req, { access, params }) => {
  // A stage the caller may not view answers as a missing one (assertCan first: 403 for both to non-viewers).
  assertCan(access, 'stage.view', { stage: params.group });
  const v = await rotateValidatorFor(access, chefOrg(), { stage: params.group });
  return json({ name: v.name, private_key: v.privateKey, stage: v.stage, created: v.created }, { status: 201 });
});

/** The rows of guards: one per contract. */
export const guardsRoutes: ApiRoute[] = [onDeleteFreeze, onListFreezes, onAddFreeze, onGetGuardState, onGateState, onGetProtection, onPutProtection, onDeleteProtection, onStageValidator];
