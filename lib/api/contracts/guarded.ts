/** Contracts of the guarded-stage routes (issue 15): protection, freezes, promotion requests, bad revisions, webhooks. */
import { z } from 'zod';
import { defineRoute, pathInput, wireBody } from '../contract';
import { ZMarkBad, ZUnmarkBad } from '@/lib/validation/bad-revisions';
import { ZApproveRequest, ZRejectRequest, ZWithdrawRequest } from '@/lib/validation/promotion-requests';
import { ZAddFreeze, ZDeleteFreeze, ZSetStageProtection } from '@/lib/validation/stage-guards';
import { ZCreateWebhook } from '@/lib/validation/webhooks';
import { policyName, stageName } from '@/lib/validation/fields';
import { badRevisionSchema, freezeWindowSchema, promotionRequestSchema, requestEnvelope, stageGuardStateSchema, stageProtectionSchema, webhookSchema } from './guarded-schemas';

const groupParam = { group: 'Stage name' };
const requestParam = { id: 'Promotion request id' };

export const getGuardStateRoute = defineRoute({
  method: 'GET',
  path: '/policy_groups/{group}/guard',
  summary: 'The stage’s guard state: protection, approvers, freezes (now and next), pending requests and what the caller may do (view)',
  description: 'The same shape the board and Admin → Stages show. Whether one given change would move at once or open a request is answered by POST /policy_groups/{group}/policies/{name}/preview.',
  params: groupParam,
  responses: { 200: { description: 'The guard state', schema: stageGuardStateSchema }, 403: 'You may not view the stage', 404: 'No such stage' },
});

export const getProtectionRoute = defineRoute({
  method: 'GET',
  path: '/policy_groups/{group}/protection',
  summary: 'The stage’s protection, approval rules and approvers (view)',
  params: groupParam,
  responses: { 200: { description: 'The protection', schema: stageProtectionSchema }, 404: 'No such stage' },
});

export const putProtectionRoute = defineRoute({
  method: 'PUT',
  path: '/policy_groups/{group}/protection',
  summary: 'Require approval for changes into the stage (manage)',
  description:
    'Every pointer move into a protected stage (promotion, single cookbook, bulk, rollback, PUT/DELETE here or on the Chef organization routes) becomes a promotion request when the rules ask for approvals: promotions answer 202 { request }, the Chef routes 403 naming the request’s URL.',
  params: groupParam,
  body: wireBody(ZSetStageProtection, { omit: ['stage', 'requestId'] }),
  pathInput: pathInput(ZSetStageProtection, { stage: 'group' }),
  responses: { 200: { description: 'The protection as stored', schema: stageProtectionSchema }, 400: 'A field is invalid (the pointer names it, e.g. /rules/0/patterns)', 404: 'No such stage, user or team' },
});

export const deleteProtectionRoute = defineRoute({
  method: 'DELETE',
  path: '/policy_groups/{group}/protection',
  summary: 'Lift the protection (manage); approver grants stay',
  params: groupParam,
  pathInput: pathInput(ZSetStageProtection, { stage: 'group' }),
  responses: { 200: { description: 'The protection (protected: false)', schema: stageProtectionSchema } },
});

export const listFreezesRoute = defineRoute({
  method: 'GET',
  path: '/policy_groups/{group}/freezes',
  summary: 'Freeze windows of the stage, past ones included (view)',
  params: groupParam,
  responses: { 200: { description: '{ freezes }', schema: { type: 'object', properties: { freezes: { type: 'array', items: freezeWindowSchema } } } } },
});

export const addFreezeRoute = defineRoute({
  method: 'POST',
  path: '/policy_groups/{group}/freezes',
  summary: 'Add a freeze window (manage)',
  description:
    'Times are UTC. One-off: [starts_at, ends_at). weekly: that range repeats every 7 days from its first occurrence (same weekday and time of day in UTC; shorter than 7 days). During a freeze, moves into the stage (and the application of approved requests) answer 423 with the window’s reason and end, unless someone who manages the stage gives override_reason.',
  params: groupParam,
  body: wireBody(ZAddFreeze, { omit: ['stage', 'requestId'] }),
  pathInput: pathInput(ZAddFreeze, { stage: 'group' }),
  responses: { 201: { description: '{ freeze }', schema: { type: 'object', properties: { freeze: freezeWindowSchema } } }, 400: 'A field is invalid (e.g. /ends_at before /starts_at)' },
});

export const deleteFreezeRoute = defineRoute({
  method: 'DELETE',
  path: '/policy_groups/{group}/freezes/{id}',
  summary: 'Delete a freeze window (manage)',
  params: { group: 'Stage name', id: 'Freeze window id' },
  pathInput: pathInput(ZDeleteFreeze, { stage: 'group', id: 'id' }),
  responses: { 200: '{ deleted: true }', 404: 'No such window' },
});

export const listRequestsRoute = defineRoute({
  method: 'GET',
  path: '/promotion_requests',
  summary: 'Promotion requests in the stages the caller may view, newest first',
  query: z.object({
    stage: stageName.optional(),
    status: z
      .enum(['pending', 'applied', 'rejected', 'withdrawn', 'outdated', 'expired', 'all'], { error: 'must be pending, applied, rejected, withdrawn, outdated, expired or all' })
      .optional()
      .describe('all (or absent): every status'),
    policy: policyName.optional(),
    scope: z.enum(['all', 'mine', 'to_approve'], { error: 'must be all, mine or to_approve' }).optional().describe('mine: asked by me; to_approve: pending, I may approve and have not decided'),
    limit: z.coerce.number({ error: 'must be a number' }).int('must be a whole number').min(1, 'must be at least 1').max(500, 'must be at most 500').optional(),
  }),
  responses: { 200: { description: '{ requests }', schema: { type: 'object', properties: { requests: { type: 'array', items: promotionRequestSchema } } } } },
});

export const getRequestRoute = defineRoute({
  method: 'GET',
  path: '/promotion_requests/{id}',
  summary: 'One promotion request',
  params: requestParam,
  responses: { 200: { description: '{ request }', schema: requestEnvelope }, 404: 'No such request (or its stage is hidden from the caller)' },
});

/** The approve body: optional, and may be empty. Parsed by the route (text body) with this schema. */
export const approveBody = wireBody(ZApproveRequest, { omit: ['id', 'requestId'] });

export const approveRequestRoute = defineRoute({
  method: 'POST',
  path: '/promotion_requests/{id}/approve',
  summary: 'Approve (an approver of the stage, never the requester)',
  description:
    'The approval that reaches the required number applies the request through the same compare-and-swap as any promotion, with the revision the request was made against; if the stage moved meanwhile the request becomes outdated and nothing moves. Concurrent approvals apply a request exactly once.',
  params: requestParam,
  pathInput: pathInput(ZApproveRequest, { id: 'id' }),
  bodyKind: 'text',
  bodyDoc: { description: 'Optional (an empty body is an approval without comment)', schema: { type: 'object', properties: { comment: { type: 'string', maxLength: 2000 }, override_reason: { type: 'string', maxLength: 1000 } }, additionalProperties: false } },
  responses: {
    200: { description: '{ request } as it stands afterwards (pending, applied or outdated)', schema: requestEnvelope },
    409: 'Not pending (applied, rejected, withdrawn, outdated, expired), already decided by you, or the revision is marked bad',
    423: 'The stage is frozen: the approval is not recorded (override_reason from a manager applies it)',
  },
});

export const rejectRequestRoute = defineRoute({
  method: 'POST',
  path: '/promotion_requests/{id}/reject',
  summary: 'Reject with a comment (an approver of the stage, never the requester)',
  params: requestParam,
  pathInput: pathInput(ZRejectRequest, { id: 'id' }),
  body: wireBody(ZRejectRequest, { omit: ['id', 'requestId'] }),
  responses: { 200: { description: '{ request }', schema: requestEnvelope }, 400: 'comment is required', 409: 'Not pending' },
});

export const withdrawRequestRoute = defineRoute({
  method: 'POST',
  path: '/promotion_requests/{id}/withdraw',
  summary: 'Withdraw a pending request (its requester, or a manager of the stage)',
  params: requestParam,
  pathInput: pathInput(ZWithdrawRequest, { id: 'id' }),
  responses: { 200: { description: '{ request }', schema: requestEnvelope }, 409: 'Not pending' },
});

const revisionParams = { name: 'Policy name', rev: 'Revision id' };

export const markBadRoute = defineRoute({
  method: 'PUT',
  path: '/policies/{name}/revisions/{rev}/bad',
  summary: 'Mark a revision bad: it cannot be promoted or rolled back to anywhere (409 naming who marked it and why) until unmarked',
  description: 'Allowed: those with promote on a stage that runs the revision now, the policy’s owner team, administrators.',
  params: revisionParams,
  body: wireBody(ZMarkBad, { omit: ['policy', 'revisionId', 'requestId'] }),
  pathInput: pathInput(ZMarkBad, { policy: 'name', revisionId: 'rev' }),
  responses: { 200: { description: '{ bad_revision }', schema: { type: 'object', properties: { bad_revision: badRevisionSchema } } }, 400: 'reason is required', 404: 'No such revision', 409: 'Already marked bad' },
});

export const unmarkBadRoute = defineRoute({
  method: 'DELETE',
  path: '/policies/{name}/revisions/{rev}/bad',
  summary: 'Unmark a bad revision (same permission as marking)',
  params: revisionParams,
  pathInput: pathInput(ZUnmarkBad, { policy: 'name', revisionId: 'rev' }),
  responses: { 200: '{ policy, revision_id, bad: false }', 404: 'No such revision, or it is not marked' },
});

export const listWebhooksRoute = defineRoute({
  method: 'GET',
  path: '/webhooks',
  summary: 'Webhook subscriptions (admin); secrets are never returned',
  responses: { 200: { description: '{ webhooks }', schema: { type: 'object', properties: { webhooks: { type: 'array', items: webhookSchema } } } } },
});

export const createWebhookRoute = defineRoute({
  method: 'POST',
  path: '/webhooks',
  summary: 'Subscribe a URL to events (admin)',
  description:
    'Each event is written to an outbox in the transaction of the change and POSTed by a worker with X-Policy-Console-Signature: sha256=<hex HMAC-SHA256 of the raw body with the secret>, X-Policy-Console-Event and X-Policy-Console-Delivery; retried with exponential backoff; redirects are not followed; several instances never send one delivery twice.',
  body: ZCreateWebhook,
  responses: { 201: { description: '{ webhook, secret }: the secret is returned only here', schema: { type: 'object', properties: { webhook: webhookSchema, secret: { type: 'string' } } } }, 400: 'A field is invalid' },
});

export const getWebhookRoute = defineRoute({
  method: 'GET',
  path: '/webhooks/{id}',
  summary: 'One subscription (admin)',
  params: { id: 'Subscription id' },
  responses: { 200: { description: '{ webhook }', schema: { type: 'object', properties: { webhook: webhookSchema } } }, 404: 'No such subscription' },
});

export const deleteWebhookRoute = defineRoute({
  method: 'DELETE',
  path: '/webhooks/{id}',
  summary: 'Delete a subscription and its delivery log (admin)',
  params: { id: 'Subscription id' },
  responses: { 200: '{ deleted: true }', 404: 'No such subscription' },
});

export const webhookDeliveriesRoute = defineRoute({
  method: 'GET',
  path: '/webhooks/{id}/deliveries',
  summary: 'The delivery log (admin): each delivery with every attempt’s status code, error and time, newest first',
  params: { id: 'Subscription id' },
  query: z.object({ limit: z.coerce.number({ error: 'must be a number' }).int('must be a whole number').min(1, 'must be at least 1').max(500, 'must be at most 500').optional() }),
  responses: { 200: '{ deliveries: [{ id, event, status, attempts, last_status_code, last_error, log: [{ attempt, status_code, error, duration_ms, at }] }] }', 404: 'No such subscription' },
});

export const testWebhookRoute = defineRoute({
  method: 'POST',
  path: '/webhooks/{id}/test',
  summary: 'Queue a test event to this subscription (admin)',
  params: { id: 'Subscription id' },
  responses: { 202: '{ queued }', 404: 'No such subscription' },
});

