import { type ApiRoute, handle, json } from '@/lib/api/envelope';
import { stagePolicyHealthRoute, parseResumeBody, resumeAutomationRoute, getRolloutRuleRoute, putRolloutRuleRoute, rolloutHealthRoute } from '@/lib/api/contracts/rollout';
import { stageHealth, stageRuns, getStageRolloutRule, setStageRolloutRule, rolloutHealth, resumeAutomation } from '@/lib/services/runs';
import { parseRingActionBody, pauseRingRoute, resumeRingRoute, rollbackRingRoute, getRingRoute, widenRingRoute, listRingsRoute, startRingRoute } from '@/lib/api/contracts/rings';
import { pauseRingRollout, resumeRingRollout, rollBackRingRollout, getRingRollout, widenRingRollout, listRingRollouts, startRingRollout } from '@/lib/services/rings';

// /api/v1/policy_groups/[group]/policies/[name]/health
const onStagePolicyHealth = handle(stagePolicyHealthRoute, async (_req, { access, params, query }) =>
  json({ health: await stageHealth(access, params.group, params.name), runs: await stageRuns(access, params.group, params.name, { limit: query.limit }) }),
);

// /api/v1/policy_groups/[group]/rollout/resume
/** POST { reason? } (the body is optional): lifts the hold of the stage's automatic promotion (manage). */
const onResumeAutomation = handle(resumeAutomationRoute, async (_req, { access, input, text, requestId }) => {
  const b = parseResumeBody(text);
  return json(await resumeAutomation(access, { ...b, ...input, requestId }));
});

// /api/v1/policy_groups/[group]/rollout
const onGetRolloutRule = handle(getRolloutRuleRoute, async (_req, { access, params }) => json(await getStageRolloutRule(access, params.group)));

/** PUT { gate?: { enabled, min_success_pct, min_nodes, max_failure_pct, soak_minutes }, rollback?: { enabled, window_minutes, failure_pct, min_runs } } (manage). */
const onPutRolloutRule = handle(putRolloutRuleRoute, async (_req, { access, input, body, requestId }) => json(await setStageRolloutRule(access, { ...body, ...input, requestId })));

// /api/v1/rings/[id]/pause
/** POST { expected_step?, reason?, override_reason?, gate_override_reason? } (the body is optional). */
const onPauseRing = handle(pauseRingRoute, async (_req, { access, input, text, requestId }) => {
  const b = parseRingActionBody(text);
  return json({ ring: await pauseRingRollout(access, { ...b, ...input, requestId }) });
});

// /api/v1/rings/[id]/resume
/** POST { expected_step?, reason?, override_reason?, gate_override_reason? } (the body is optional). */
const onResumeRing = handle(resumeRingRoute, async (_req, { access, input, text, requestId }) => {
  const b = parseRingActionBody(text);
  return json({ ring: await resumeRingRollout(access, { ...b, ...input, requestId }) });
});

// /api/v1/rings/[id]/rollback
/** POST { expected_step?, reason?, override_reason?, gate_override_reason? } (the body is optional). */
const onRollbackRing = handle(rollbackRingRoute, async (_req, { access, input, text, requestId }) => {
  const b = parseRingActionBody(text);
  return json({ ring: await rollBackRingRollout(access, { ...b, ...input, requestId }) });
});

// /api/v1/rings/[id]
const onGetRing = handle(getRingRoute, async (_req, { access, params }) => json({ ring: await getRingRollout(access, params.id) }));

// /api/v1/rings/[id]/widen
/** POST { expected_step?, reason?, override_reason?, gate_override_reason? } (the body is optional). */
const onWidenRing = handle(widenRingRoute, async (_req, { access, input, text, requestId }) => {
  const b = parseRingActionBody(text);
  return json({ ring: await widenRingRollout(access, { ...b, ...input, requestId }) });
});

// /api/v1/rings
/** GET ?stage=&policy=&open=true */
const onListRings = handle(listRingsRoute, async (_req, { access, query }) =>
  json({ rings: await listRingRollouts(access, { stage: query.stage, policy: query.policy, open: query.open === 'true' }) }),
);

/** POST { stage, policy, revision_id, steps?, nodes?, gate_on_convergence?, soak_minutes?, reason?, ... } */
const onStartRing = handle(startRingRoute, async (_req, { access, body, requestId }) => {
  const ring = await startRingRollout(access, { ...body, requestId });
  return json({ ring }, { status: ring.request ? 202 : 201 });
});

// /api/v1/rollout/health
const onRolloutHealth = handle(rolloutHealthRoute, async (_req, { access }) => json({ health: await rolloutHealth(access) }));

/** The rows of rings: one per contract. */
export const ringsRoutes: ApiRoute[] = [onStagePolicyHealth, onResumeAutomation, onGetRolloutRule, onPutRolloutRule, onPauseRing, onResumeRing, onRollbackRing, onGetRing, onWidenRing, onListRings, onStartRing, onRolloutHealth];
