import { type ApiRoute, handle, json } from '@/lib/api/envelope';
import { dependentsRoute, promoteWithDependentsRoute, rebuildDependentsRoute } from '@/lib/api/contracts/dependents';
import { listDependents, promoteWithDependents, rebuildDependents } from '@/lib/services/dependents';
import { movePreviewRoute } from '@/lib/api/contracts/move-preview';
import {
  previewMove,
  promoteCookbook,
  rollback,
  schedulePromotion,
  cancelScheduledPromotion,
  listScheduledPromotions,
  promotePolicies,
  approvePromotionRequest,
  rejectPromotionRequest,
  getPromotionRequest,
  withdrawPromotionRequest,
  listPromotionRequests,
} from '@/lib/services/promotion';
import { promoteCookbookPreviewRoute } from '@/lib/api/contracts/promote-cookbook-preview';
import { promoteCookbookRoute, rollbackRoute, promoteRoute } from '@/lib/api/contracts/promotion';
import { schedulePromotionRoute, cancelScheduledPromotionRoute, listScheduledPromotionsRoute } from '@/lib/api/contracts/schedules';
import { approveBody, approveRequestRoute, rejectRequestRoute, getRequestRoute, withdrawRequestRoute, listRequestsRoute } from '@/lib/api/contracts/guarded';
import { parseOptionalJsonBody } from '@/lib/api/optional-body';

// /api/v1/policy_groups/[group]/policies/[name]/dependents
/** Issue 48: every policy whose revision in this stage includes the policy, at any depth, with what each carries. */
const onDependents = handle(dependentsRoute, async (_req, { access, params }) => json(await listDependents(access, { stage: params.group, policy: params.name })));

// /api/v1/policy_groups/[group]/policies/[name]/preview
/** POST { kind, from?, cookbook?, to_revision_id? } → what confirming the move would do now (issue 29; nothing stored). */
const onMovePreview = handle(movePreviewRoute, async (_req, { access, input, body }) => json(await previewMove(access, { ...body, ...input })));

// /api/v1/policy_groups/[group]/policies/[name]/promote-cookbook/preview
/** GET ?from=&cookbook=&expected_revision_id= → the dry run of promoting one cookbook into this stage (nothing stored). */
const onPromoteCookbookPreview = handle(promoteCookbookPreviewRoute, async (_req, { access, input, query, requestId }) =>
  json(await promoteCookbook(access, { ...query, ...input, dryRun: true, requestId })),
);

// /api/v1/policy_groups/[group]/policies/[name]/promote-cookbook
/** POST { from, cookbook, expected_revision_id, reason?, override_reason?, dry_run? } → 201 with the derived revision (200 for a no-op or dry run). */
const onPromoteCookbook = handle(promoteCookbookRoute, async (_req, { access, input, body, requestId }) => {
  const result = await promoteCookbook(access, { ...body, ...input, requestId });
  // Issue 15: into a protected stage the derived revision is stored and a promotion request opened (202 { request }).
  if ('request' in result && result.request) return json({ request: result.request, revisionId: result.revisionId }, { status: 202 });
  return json(result, { status: result.noop || result.dryRun ? 200 : 201 });
});

// /api/v1/policy_groups/[group]/policies/[name]/promote-with-dependents
/** Issue 48: the policy and its dependents into the next stage together (dry_run: the guard's answer). 202: one request covers them all. */
const onPromoteWithDependents = handle(promoteWithDependentsRoute, async (_req, { access, input, body, requestId }) => {
  const result = await promoteWithDependents(access, { ...body, ...input, requestId });
  return json(result, { status: result.request ? 202 : 200 });
});

// /api/v1/policy_groups/[group]/policies/[name]/rebuild-dependents
/** Issue 48: rebuild the dependents on the revision the stage runs (dry_run: the preview). 201 stored, 202 a request opened. */
const onRebuildDependents = handle(rebuildDependentsRoute, async (_req, { access, input, body, requestId }) => {
  const result = await rebuildDependents(access, { ...body, ...input, requestId });
  return json(result, { status: result.request ? 202 : result.written ? 201 : 200 });
});

// /api/v1/policy_groups/[group]/policies/[name]/rollback
/** POST { to_revision_id, expected_revision_id, reason, override_reason? } — back to a revision this stage held before (202 { request } into a protected stage). */
const onRollback = handle(rollbackRoute, async (_req, { access, input, body, requestId }) => {
  const result = await rollback(access, { ...body, ...input, requestId });
  // Issue 15: into a protected stage the rollback becomes a promotion request (202 { request }).
  if (result.request) return json({ request: result.request }, { status: 202 });
  return json(result);
});

// /api/v1/policy_groups/[group]/policies/[name]/schedule
/** Issue 29: POST { from, when: at|freeze_end, at?, expected_revision_id, reason? } → 201 the scheduled promotion. */
const onSchedulePromotion = handle(schedulePromotionRoute, async (_req, { access, input, body, requestId }) =>
  json(await schedulePromotion(access, { ...body, ...input, requestId }), { status: 201 }),
);

// /api/v1/policy_groups/[group]/promote
/**
 * POST { from, policies: [..] | "all", expected: { policy: revision_id | null }, reason?, override_reason? } — all or nothing.
 * `override_reason` overrides a freeze window (manage on the stage) and missing artifacts. Into a protected stage,
 * each policy whose change needs approvals gets a promotion request instead of moving: 202 with `requests`
 * (and `request` when there is exactly one).
 */
const onPromote = handle(promoteRoute, async (_req, { access, input, body, requestId }) => {
  const result = await promotePolicies(access, { ...body, ...input, requestId });
  if (result.requests.length) return json({ ...result, ...(result.requests.length === 1 ? { request: result.requests[0] } : {}) }, { status: 202 });
  return json(result);
});

// /api/v1/promotion_requests/[id]/approve
/** The body is optional (an empty body approves without a comment), so it is read as text and parsed with the contract's schema here. */
const parseApproveBody = (text: string) => parseOptionalJsonBody(approveBody, text);

/** POST { comment?, override_reason? } (an approver of the stage, not the requester). */
const onApproveRequest = handle(approveRequestRoute, async (_req, { access, input, text, requestId }) => {
  const b = parseApproveBody(text);
  return json({ request: await approvePromotionRequest(access, { ...b, ...input, requestId }) });
});

// /api/v1/promotion_requests/[id]/reject
/** POST { comment } (an approver of the stage, not the requester). */
const onRejectRequest = handle(rejectRequestRoute, async (_req, { access, input, body, requestId }) => json({ request: await rejectPromotionRequest(access, { ...body, ...input, requestId }) }));

// /api/v1/promotion_requests/[id]
const onGetRequest = handle(getRequestRoute, async (_req, { access, params }) => json({ request: await getPromotionRequest(access, params.id) }));

// /api/v1/promotion_requests/[id]/withdraw
/** POST (the requester, or a manager of the stage). */
const onWithdrawRequest = handle(withdrawRequestRoute, async (_req, { access, input, requestId }) => json({ request: await withdrawPromotionRequest(access, { ...input, requestId }) }));

// /api/v1/promotion_requests
/** GET ?stage=&status=(a status)|all&policy=&scope=all|mine|to_approve&limit= */
const onListRequests = handle(listRequestsRoute, async (_req, { access, query: { status, ...query } }) =>
  json({ requests: await listPromotionRequests(access, { ...query, ...(status && status !== 'all' ? { status } : {}) }) }),
);

// /api/v1/scheduled_promotions/[id]
/** Issue 29: cancel a pending scheduled promotion (its scheduler, or who manages the stage). */
const onCancelScheduledPromotion = handle(cancelScheduledPromotionRoute, async (_req, { access, input, requestId }) => json(await cancelScheduledPromotion(access, { ...input, requestId })));

// /api/v1/scheduled_promotions
/** Issue 29: scheduled promotions in the stages the caller may view (?stage=&policy=&status=). */
const onListScheduledPromotions = handle(listScheduledPromotionsRoute, async (_req, { access, query }) => json({ scheduled_promotions: await listScheduledPromotions(access, query) }));

/** The rows of promotion: one per contract. */
export const promotionRoutes: ApiRoute[] = [onDependents, onMovePreview, onPromoteCookbookPreview, onPromoteCookbook, onPromoteWithDependents, onRebuildDependents, onRollback, onSchedulePromotion, onPromote, onApproveRequest, onRejectRequest, onGetRequest, onWithdrawRequest, onListRequests, onCancelScheduledPromotion, onListScheduledPromotions];
