/** Chef's policy groups resource (the console's stages): /policy_groups[/:group[/policies/:name]]. */
import { assertViewable, can } from '@/lib/auth/permissions';
import { AppError, notFound } from '@/lib/errors';
import { chefGroupRows, groupPolicyBytes } from '@/lib/db/queries/policies';
import { deleteStage, assertStageClaim, removeGroupPolicy, setGroupPolicy } from '@/lib/services/stages';
import type { PromotionRequestDto } from '@/lib/services/promotion';
import { ok, policyReader, raw, route, userAccess, type ChefRoute, type Ctx } from '../context';
import { chefValidated } from './policies';

/** Chef's group body: a named group always has `policies` (maybe `{}`); in the list an empty group has only its `uri`. */
function groupBody(ctx: Ctx, g: { name: string; policies: { policy: string; revisionId: string }[] }, inList = false) {
  const uri = `${ctx.orgUrl}/policy_groups/${g.name}`;
  if (inList && !g.policies.length) return { uri };
  return { uri, policies: Object.fromEntries(g.policies.map((p) => [p.policy, { revision_id: p.revisionId }])) };
}

/**
 * Issue 15: a push into a protected stage opens a promotion request (the
 * revision is stored, the pointer does not move) and answers 403 naming the
 * request's URL, so `chef push` tells its user where to get approval.
 */
function approvalRequired(request: PromotionRequestDto): AppError {
  const why = request.reasons[0]?.message ?? `${request.approvals_required} approval(s)`;
  return new AppError(
    'forbidden',
    `Policy group '${request.stage}' requires approval for this change (${why}). Promotion request ${request.id} was opened instead and nothing changed; get it approved at ${request.url}`,
    [],
    { request: { id: request.id, url: request.url, status: request.status, approvals_required: request.approvals_required } },
  );
}

export const policyGroupRoutes: ChefRoute[] = [
  route('GET', 'policy_groups', async (ctx) => {
    const reader = policyReader(ctx, 'list policy groups');
    const groups = (await chefGroupRows()).filter((g) => can(reader, 'stage.view', { stage: g.name }));
    return ok(Object.fromEntries(groups.map((g) => [g.name, groupBody(ctx, g, true)])));
  }),

  route('GET', 'policy_groups/:group', async (ctx) => {
    const reader = policyReader(ctx, 'read policy groups');
    const g = (await chefGroupRows(ctx.params.group))[0];
    if (!g || !can(reader, 'stage.view', { stage: g.name })) throw notFound(`policy_group '${ctx.params.group}' not found`);
    return ok(groupBody(ctx, g));
  }),

  route('DELETE', 'policy_groups/:group', async (ctx) => {
    const access = userAccess(ctx, 'delete policy groups');
    const g = (await chefGroupRows(ctx.params.group))[0];
    if (!g || !can(access, 'stage.view', { stage: g.name })) throw notFound(`policy_group '${ctx.params.group}' not found`);
    await deleteStage(access, ctx.params.group, ctx.requestId);
    return ok(groupBody(ctx, g));
  }),

  route('GET', 'policy_groups/:group/policies/:name', async (ctx) => {
    // The validator is told it may not read, others see nothing.
    const reader = policyReader(ctx, 'read policies');
    assertViewable(reader, ctx.params.group, `Cannot load policy ${ctx.params.name} in policy group ${ctx.params.group}`);
    // Issue 41: a node's client reads its node's stage only (or, before its node has one, a stage it may enroll into).
    await assertStageClaim(reader, ctx.params.group, 'policy read');
    // Issue 30: a node (the signing client) is answered its ring's revision when a ringed rollout holds it.
    return { status: 200, bytes: await groupPolicyBytes(ctx.params.group, ctx.params.name, reader.kind === 'client' && !reader.validator ? reader.name : null) };
  }),

  route('PUT', 'policy_groups/:group/policies/:name', async (ctx) => {
    const access = userAccess(ctx, 'change policy groups');
    const result = await setGroupPolicy(access, { group: ctx.params.group, policy: ctx.params.name, text: chefValidated(ctx, ctx.params.name), ownerTeam: ctx.req.query.get('owner_team') ?? undefined, requestId: ctx.requestId });
    if (result.request) throw approvalRequired(result.request);
    if (result.status === 201) ctx.headers.location = `${ctx.orgUrl}/policy_groups/${ctx.params.group}/policies/${ctx.params.name}`;
    return raw(result.document, result.status);
  }),

  route('DELETE', 'policy_groups/:group/policies/:name', async (ctx) => {
    const access = userAccess(ctx, 'change policy groups');
    const result = await removeGroupPolicy(access, { group: ctx.params.group, policy: ctx.params.name, requestId: ctx.requestId });
    if (result.request) throw approvalRequired(result.request);
    return raw(result.document);
  }),
];
