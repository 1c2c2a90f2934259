/** Contracts of the rollout routes (issue 26): run history, health, promotion gates and rollback rules. */
import { z } from 'zod';
import { defineRoute, pathInput, wireBody } from '../contract';
import { ZResumeAutomation, ZSetStageRolloutRule } from '@/lib/validation/rollout-rules';
import { parseOptionalJsonBody } from '../optional-body';
import { revisionId, stageName } from '@/lib/validation/fields';

const limit = z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number').min(1, 'must be at least 1').max(500, 'must be at most 500').optional();

const runSchema = {
  type: 'object',
  properties: {
    run_id: { type: 'string' },
    node: { type: 'string' },
    stage: { type: ['string', 'null'] },
    policy: { type: ['string', 'null'] },
    revision_id: { type: ['string', 'null'] },
    status: { type: 'string', enum: ['started', 'success', 'failure'] },
    start_time: { type: 'string' },
    end_time: { type: ['string', 'null'] },
    duration_ms: { type: ['integer', 'null'] },
    total_resources: { type: 'integer' },
    updated_resources: { type: 'integer' },
    failed_resources: { type: 'integer' },
    error: { type: ['object', 'null'], properties: { class: { type: ['string', 'null'] }, message: { type: ['string', 'null'] }, resource: { type: ['string', 'null'] }, cookbook: { type: ['string', 'null'] }, recipe: { type: ['string', 'null'] } } },
    changed: { type: 'array', items: { type: 'object' } },
    deprecations: { type: 'integer' },
  },
};
const healthSchema = {
  type: 'object',
  properties: {
    stage: { type: 'string' },
    policy: { type: 'string' },
    revisionId: { type: ['string', 'null'] },
    nodes: { type: 'integer' },
    converged: { type: 'integer' },
    failed: { type: 'integer' },
    pending: { type: 'integer' },
    missing: { type: 'integer' },
    failures: { type: 'array', items: { type: 'object', properties: { cookbook: { type: ['string', 'null'] }, resource: { type: ['string', 'null'] }, nodes: { type: 'integer' } } } },
  },
};
const automationSchema = {
  type: 'object',
  properties: {
    state: { type: 'string', enum: ['off', 'on', 'waiting', 'held'] },
    held: { type: ['object', 'null'], properties: { at: { type: 'string' }, by: { type: 'string' }, reason: { type: 'string' }, source: { type: 'string', enum: ['rollback', 'promotion', 'ring'] } } },
    waiting: { type: 'array', items: { type: 'object', properties: { policy: { type: 'string' }, revision_id: { type: 'string' }, waiting_for: { type: 'string' }, until: { type: ['string', 'null'] }, at: { type: 'string' } } } },
  },
};
const ruleSchema = {
  type: 'object',
  properties: {
    stage: { type: 'string' },
    gate: {
      type: 'object',
      properties: {
        enabled: { type: 'boolean' },
        min_success_pct: { type: 'integer' },
        min_nodes: { type: 'integer' },
        max_failure_pct: { type: 'integer' },
        soak_minutes: { type: 'integer' },
        checks: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, kind: { type: 'string', enum: ['http', 'prometheus'] }, url: { type: 'string' } } } },
      },
    },
    auto_promote: { type: 'object', properties: { enabled: { type: 'boolean' }, soak_minutes: { type: ['integer', 'null'] } } },
    automation: automationSchema,
    rollback: { type: 'object', properties: { enabled: { type: 'boolean' }, window_minutes: { type: 'integer' }, failure_pct: { type: 'integer' }, min_runs: { type: 'integer' } } },
    gate_from_stage: { type: ['string', 'null'] },
    updated_by: { type: ['string', 'null'] },
    updated_at: { type: ['string', 'null'] },
  },
};

export const nodeRunsRoute = defineRoute({
  method: 'GET',
  path: '/nodes/{name}/runs',
  summary: "A node's chef-client runs, newest first, with the failure and the resources that changed (view on its stage)",
  params: { name: 'Node name' },
  query: z.object({ limit }),
  responses: { 200: { description: '{ runs }', schema: { type: 'object', properties: { runs: { type: 'array', items: runSchema } } } }, 404: 'No such node (or not visible)' },
});

export const rolloutHealthRoute = defineRoute({
  method: 'GET',
  path: '/rollout/health',
  summary: 'Rollout health of every stage and policy the caller may view: converged, failed (top failures by cookbook and resource), not yet run, missing',
  responses: { 200: { description: '{ health: { "<stage>/<policy>": Health } }', schema: { type: 'object', properties: { health: { type: 'object', additionalProperties: healthSchema } } } } },
});

export const stagePolicyHealthRoute = defineRoute({
  method: 'GET',
  path: '/policy_groups/{group}/policies/{name}/health',
  summary: 'Rollout health of one stage and policy, with its latest runs',
  params: { group: 'Stage name', name: 'Policy name' },
  query: z.object({ limit }),
  responses: { 200: { description: '{ health, runs }', schema: { type: 'object', properties: { health: healthSchema, runs: { type: 'array', items: runSchema } } } }, 404: 'No such stage or policy' },
});

export const gateStateRoute = defineRoute({
  method: 'GET',
  path: '/policy_groups/{group}/policies/{name}/gate',
  summary: "The promotion gate's state for moving a revision into the stage (met, or what is missing); null when the stage has no gate",
  params: { group: 'Stage name', name: 'Policy name' },
  query: z.object({ revision_id: revisionId.optional(), from: stageName.optional().describe('The stage whose current revision would be promoted') }),
  responses: { 200: { description: '{ gate: GateEvaluation | null }' }, 404: 'No such stage or policy' },
});

export const getRolloutRuleRoute = defineRoute({
  method: 'GET',
  path: '/policy_groups/{group}/rollout',
  summary: "The stage's promotion gate and automatic rollback rule (view)",
  params: { group: 'Stage name' },
  responses: { 200: { description: 'The rule', schema: ruleSchema }, 404: 'No such stage' },
});

export const putRolloutRuleRoute = defineRoute({
  method: 'PUT',
  path: '/policy_groups/{group}/rollout',
  summary: 'Set the promotion gate into the stage and its automatic rollback rule (manage); omitted numbers keep their value',
  description:
    'Gate: promote into this stage only a revision that, in the stage before it (by position), converged successfully on ≥ min_success_pct % of at least min_nodes nodes, with at most max_failure_pct % failures, for at least soak_minutes. Rollback: if, within window_minutes after a change, ≥ failure_pct % of at least min_runs NODES that ran the new revision fail on it (issue 41: distinct nodes, each by its latest run in the window; the field keeps its name), the stage moves back to the revision it ran before, and the new one is recorded as failed in this stage (a stage verdict with the evidence: moving it there again needs a written override from a manager; other stages are told, not refused).',
  params: { group: 'Stage name' },
  body: wireBody(ZSetStageRolloutRule, { omit: ['stage', 'requestId'] }),
  pathInput: pathInput(ZSetStageRolloutRule, { stage: 'group' }),
  responses: {
    200: { description: 'The rule as stored', schema: ruleSchema },
    400: 'A number is out of range or a check is invalid (the pointer names it, e.g. /gate/min_success_pct, /auto_promote/soak_minutes, /gate/checks/0/url)',
    403: "Not a manager of the stage, or changing the gate's checks without being an administrator",
    404: 'No such stage',
  },
});

const resumeBody = wireBody(ZResumeAutomation, { omit: ['stage', 'requestId'] });

/** Issue 47: the optional body of resume ({ reason? }). */
export function parseResumeBody(text: string): z.output<typeof resumeBody> {
  return parseOptionalJsonBody(resumeBody, text);
}

export const resumeAutomationRoute = defineRoute({
  method: 'POST',
  path: '/policy_groups/{group}/rollout/resume',
  summary: "Lift the hold of the stage's automatic promotion (manage)",
  description:
    'Automatic promotion is held by a manual rollback, a manual promotion of another revision than the stage before runs, or a ring rolled back for failures (who and why are in the rule\'s `automation.held`). Resuming is audited, on the stage\'s timeline and announced (`automation.resumed`).',
  params: { group: 'Stage name' },
  pathInput: pathInput(ZResumeAutomation, { stage: 'group' }),
  bodyKind: 'text',
  bodyDoc: { description: 'Optional (an empty body is fine)', schema: { type: 'object', properties: { reason: { type: 'string' } }, additionalProperties: false } },
  responses: { 200: { description: '{ stage, automation }', schema: { type: 'object', properties: { stage: { type: 'string' }, automation: automationSchema } } }, 403: 'Not a manager of the stage', 404: 'No such stage', 409: 'Not held' },
});

export const stageTimelineRoute = defineRoute({
  method: 'GET',
  path: '/policy_groups/{group}/timeline',
  summary: 'What happened in the stage and why, newest first: pushed, promoted, converged, failed, soaked, checked, auto-promoted, requested, held, resumed, rolled back (view)',
  params: { group: 'Stage name' },
  query: z.object({ policy: z.string().max(255).optional(), limit }),
  responses: {
    200: {
      description: '{ stage, policy, entries }',
      schema: {
        type: 'object',
        properties: {
          stage: { type: 'string' },
          policy: { type: ['string', 'null'] },
          entries: { type: 'array', items: { type: 'object', properties: { at: { type: 'string' }, kind: { type: 'string' }, policy: { type: ['string', 'null'] }, revision_id: { type: ['string', 'null'] }, summary: { type: 'string' }, actor: { type: ['string', 'null'] } } } },
        },
      },
    },
    404: 'No such stage',
  },
});

