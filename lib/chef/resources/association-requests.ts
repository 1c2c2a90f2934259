/**
 * Chef's association requests (issue 23; erchef's oc_chef_wm_org_invites and the user's invitation resources):
 * how `knife org user add ORG USER` associates a user (Chef::Org#associate_user: an invitation, then its
 * acceptance). Under every organization: `association_requests` (list, invite) and `association_requests/:id`
 * (cancel). At the server level only: a user's `users/:user/association_requests` (list), `…/count` and
 * `…/:id` (accept or reject). lib/services/organizations/invitations.ts holds the rules.
 */
import { AppError } from '@/lib/errors';
import {
  cancelInvitation,
  countUserInvitations,
  createInvitation,
  listOrgInvitations,
  listUserInvitations,
  respondToInvitation,
} from '@/lib/services/organizations';
import { jsonBody, ok, route, serverLevelOnly, type ChefRoute } from '../context';

/** Served under every organization (routes.ts wraps them with `everyOrganization`). */
export const orgAssociationRequestRoutes: ChefRoute[] = [
  route('GET', 'association_requests', async (ctx) =>
    ok((await listOrgInvitations(ctx.actor, { orgId: ctx.orgId, orgName: ctx.org })).map((i) => ({ id: i.id, username: i.username }))),
  ),

  route('POST', 'association_requests', async (ctx) => {
    const body = jsonBody(ctx) as { user?: unknown } | null;
    const name = body && typeof body === 'object' && !Array.isArray(body) && typeof body.user === 'string' ? body.user : null;
    if (!name) throw new AppError('bad_request', "Field 'user' missing", [{ path: '/user', message: 'must be a user name' }]);
    const inv = await createInvitation(ctx.actor, name, { orgId: ctx.orgId, orgName: ctx.org, requestId: ctx.requestId });
    const uri = `${ctx.orgUrl}/association_requests/${inv.id}`;
    ctx.headers.location = uri;
    const [first] = inv.user.displayName.split(' ');
    // erchef's invitation_response: the URI (knife reads the id from its last segment), the inviter, the organization, the user.
    return ok({ uri, organization_user: { username: inv.inviter }, organization: { name: inv.organization }, user: { email: inv.user.email, first_name: first } }, 201);
  }),

  route('DELETE', 'association_requests/:id', async (ctx) => ok(await cancelInvitation(ctx.actor, ctx.params.id, { orgId: ctx.orgId, orgName: ctx.org, requestId: ctx.requestId }))),
];

/** A user's own invitations: served at the server level only (under an organization these paths are 404). */
export const userAssociationRequestRoutes: ChefRoute[] = serverLevelOnly([
  route('GET', 'users/:user/association_requests', async (ctx) => ok(await listUserInvitations(ctx.actor, ctx.params.user))),
  route('GET', 'users/:user/association_requests/count', async (ctx) => ok({ value: await countUserInvitations(ctx.actor, ctx.params.user) })),
  route('PUT', 'users/:user/association_requests/:id', async (ctx) => {
    const { organization } = await respondToInvitation(ctx.actor, ctx.params.user, ctx.params.id, jsonBody(ctx), { requestId: ctx.requestId });
    return ok({ organization: { name: organization } });
  }),
]);
