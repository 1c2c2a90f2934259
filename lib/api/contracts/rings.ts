/** Contracts of the ringed rollout routes (issue 30): canary rings inside a stage. */
import { z } from 'zod';
import { defineRoute, pathInput, wireBody } from '../contract';
import { ZRingAction, ZStartRing } from '@/lib/validation/rings';
import { parseOptionalJsonBody } from '../optional-body';

const nodeSchema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    revision_id: { type: ['string', 'null'], description: "The revision the node's last saved run applied (automatic.policy_revision)" },
    serves: { enum: ['ring', 'stage'], description: 'What the Chef policy read answers this node now' },
    named: { type: 'boolean' },
    standing: { enum: ['converged', 'failed', 'pending', 'missing'] },
    failed_resource: { type: ['string', 'null'], description: 'Issue 43: where a failed node stopped (its latest run on the ring revision)' },
    failed_cookbook: { type: ['string', 'null'] },
  },
};
const verdictSchema = {
  type: ['object', 'null'],
  description: 'Issue 43: the verdict this ring left (rolled back with failed nodes): the revision failed in this stage, with the evidence',
  properties: {
    id: { type: 'string' },
    stage: { type: 'string' },
    source: { enum: ['ring', 'rollback'] },
    nodes: { type: 'integer' },
    failed_nodes: { type: 'integer' },
    failed_resource: { type: ['string', 'null'] },
    failed_cookbook: { type: ['string', 'null'] },
    failed_node_names: { type: 'array', items: { type: 'string' } },
    summary: { type: 'string' },
    at: { type: 'string' },
    overridden: { type: ['object', 'null'], properties: { at: { type: 'string' }, by: { type: 'string' }, reason: { type: 'string' } } },
    url: { type: 'string' },
  },
};
const health = { type: 'object', properties: { ring_nodes: { type: 'integer' }, converged: { type: 'integer' }, failed: { type: 'integer' }, pending: { type: 'integer' }, missing: { type: 'integer' } } };
const ringSchema = {
  type: 'object',
  required: ['id', 'stage', 'policy', 'from_revision_id', 'to_revision_id', 'steps', 'step', 'percent', 'status'],
  properties: {
    id: { type: 'string' },
    stage: { type: 'string' },
    policy: { type: 'string' },
    from_revision_id: { type: 'string', description: 'What the stage runs, and what nodes outside the ring keep' },
    to_revision_id: { type: 'string', description: "The ring's revision" },
    steps: { type: 'array', items: { type: 'number' }, examples: [[5, 25, 100]] },
    step: { type: 'integer', description: 'Index of the current step (-1 while waiting for approval)' },
    percent: { type: 'number' },
    status: { enum: ['pending_approval', 'active', 'paused', 'completed', 'rolled_back', 'superseded'] },
    named_nodes: { type: 'array', items: { type: 'string' } },
    gate_on_convergence: { type: 'boolean' },
    rollback_on_failure: { type: 'boolean', description: 'Issue 43: rolled back automatically as soon as a ring node fails (judged when its run is reported, and by the rollout worker)' },
    soak_minutes: { type: ['integer', 'null'] },
    next_widen_at: { type: ['string', 'null'] },
    request_id: { type: ['string', 'null'] },
    health,
    ended_facts: { type: 'boolean', description: "Issue 43: true for an ended ring: `health` and each node's standing are as they stood at its end" },
    plan: { type: 'object', description: 'Issue 43: the first step\'s blast radius and what starting it does, in words', properties: { first_nodes: { type: 'integer' }, stage_nodes: { type: 'integer' }, words: { type: 'string' }, widening: { type: 'string' } } },
    widen_blockers: { type: 'object', description: 'Issue 43: what keeps it from widening now (not converged; a freeze)', properties: { unconverged: { type: 'array', items: { type: 'string' } }, freeze: { type: ['object', 'null'] } } },
    verdict: verdictSchema,
    step_nodes: { type: 'array', items: { type: 'object', properties: { percent: { type: 'number' }, state: { enum: ['done', 'current', 'next'] }, nodes: { type: 'array', items: nodeSchema } } } },
    returned_nodes: { type: 'array', items: { type: 'string' } },
    request: { type: 'object', properties: { id: { type: 'string' }, url: { type: 'string' }, approvals_required: { type: 'integer' } } },
    url: { type: 'string' },
  },
};
const envelope = { type: 'object', properties: { ring: ringSchema } };

export const listRingsRoute = defineRoute({
  method: 'GET',
  path: '/rings',
  summary: 'Ringed rollouts the caller may view, newest first',
  query: z.object({ stage: z.string().max(255).optional(), policy: z.string().max(255).optional(), open: z.enum(['true', 'false'], { error: "is 'true' or 'false'" }).optional() }),
  responses: { 200: { description: '{ rings }', schema: { type: 'object', properties: { rings: { type: 'array', items: ringSchema } } } } },
});

const startRingBody = wireBody(ZStartRing, { omit: ['requestId'] });

export const startRingRoute = defineRoute({
  method: 'POST',
  path: '/rings',
  summary: 'Start a ringed rollout of a revision on a stage (promote on the stage)',
  description:
    'Nodes in the ring (a stable hashed percentage of the stage, plus named nodes) are answered the new revision by the Chef policy read; the others keep the stage\'s revision. Passes the same guard as every promotion: a bad revision (409), a freeze (423, override_reason from a manager), the stage\'s promotion gate (409, gate_override_reason), a revision that failed in this stage before (409, verdict_override_reason from a manager; issue 43), and on a protected stage a promotion request sized by the diff (202 with `ring.request`; the ring starts when it is approved). `rollback_on_failure` (issue 43) rolls the ring back as soon as a ring node fails on its revision; left out, it is `gate_on_convergence`\'s value (as before).',
  body: startRingBody,
  responses: {
    201: { description: '{ ring } (active at its first step)', schema: envelope },
    202: { description: '{ ring } waiting for approval, with its promotion request', schema: envelope },
    400: 'A field is invalid (named)',
    404: 'No such stage, policy or revision',
    409: 'The stage runs no revision yet, already runs this one, has an open ring, changed since you looked, the revision is bad, or the gate is unmet',
    423: 'The stage is frozen',
  },
});

export const getRingRoute = defineRoute({
  method: 'GET',
  path: '/rings/{id}',
  summary: "A ringed rollout with each step's nodes, their revision and convergence",
  params: { id: 'Ring id' },
  responses: { 200: { description: '{ ring }', schema: envelope }, 404: 'No such ring (or not visible)' },
});

const ringActionBody = wireBody(ZRingAction, { omit: ['id', 'requestId'] });
const ringId = pathInput(ZRingAction, { id: 'id' });
const actionDoc = { description: 'Optional (an empty body is fine)', schema: { type: 'object', properties: { expected_step: { type: 'integer' }, reason: { type: 'string' }, override_reason: { type: 'string' }, gate_override_reason: { type: 'string' } }, additionalProperties: false } };
/** POST /rings/{id}/<action>: the ring id from the path, the optional JSON body, `{ ring }` afterwards or 404/409 (and `extra`). */
const ringActionRoute = (action: string, summary: string, extra: Record<number, string> = {}) =>
  defineRoute({
    method: 'POST',
    path: `/rings/{id}/${action}`,
    summary,
    params: { id: 'Ring id' },
    pathInput: ringId,
    bodyKind: 'text',
    bodyDoc: actionDoc,
    responses: {
      200: { description: '{ ring } afterwards', schema: envelope },
      404: 'No such ring',
      409: 'Not in a state that allows it, or it moved since you looked (expected_step)',
      ...extra,
    },
  });

export const widenRingRoute = ringActionRoute('widen', "Widen the ring to its next step; the last step makes the revision the stage's (movePointer). Exactly once across instances.", { 423: 'The stage is frozen: freezes stop widening' });

export const pauseRingRoute = ringActionRoute('pause', 'Pause: the ring keeps its nodes and does not widen');

export const resumeRingRoute = ringActionRoute('resume', 'Resume a paused ring');

export const rollbackRingRoute = ringActionRoute('rollback', "Roll the ring back: only its nodes return to the stage's revision (the pointer never moved); answers returned_nodes");

/** The optional JSON body of a ring action (empty: no fields). */
export function parseRingActionBody(text: string): z.output<typeof ringActionBody> {
  return parseOptionalJsonBody(ringActionBody, text);
}
