/**
 * Chef's organizations resource, at the server level (issue 23, step 4; erchef's oc_chef_wm_organizations):
 * `GET /organizations` (`{name: uri}`), `POST /organizations` (201 `{uri, clientname, private_key}`: the new
 * organization's validator and its key, shown once), `GET /organizations/:org` (`{name, full_name, guid}`),
 * `PUT /organizations/:org` (its full name: `knife org edit`), `DELETE /organizations/:org` (200 with that body), and
 * a user's organizations, `GET /users/:owner/organizations` (`[{"organization": {…}}]`: `knife user show -l`).
 * lib/services/organizations/organizations.ts and organization-edits.ts decide who may.
 */
import {
  createOrganization,
  deleteOrganization,
  getOrganization,
  listOrganizations,
  type OrganizationDto,
  listUserOrganizations,
  updateOrganization,
} from '@/lib/services/organizations';
import { jsonBody, ok, route, type ChefRoute, type Ctx } from '../context';

const orgUri = (ctx: Ctx, name: string) => `${ctx.req.baseUrl}/organizations/${name}`;

/** erchef's organization body (oc_chef_organization:assemble_organization_ejson). */
const orgBody = (o: OrganizationDto) => ({ name: o.name, full_name: o.fullName, guid: o.guid });

export const organizationRoutes: ChefRoute[] = [
  route('GET', 'organizations', async (ctx) => ok(Object.fromEntries((await listOrganizations(ctx.actor)).map((o) => [o.name, orgUri(ctx, o.name)])))),

  route('POST', 'organizations', async (ctx) => {
    const { organization, validator } = await createOrganization(ctx.actor, jsonBody(ctx), { requestId: ctx.requestId });
    const uri = orgUri(ctx, organization.name);
    ctx.headers.location = uri;
    return ok({ uri, clientname: validator.name, private_key: validator.privateKey }, 201);
  }),

  route('GET', 'organizations/:org', async (ctx) => ok(orgBody(await getOrganization(ctx.actor, ctx.params.org)))),

  route('PUT', 'organizations/:org', async (ctx) => ok(orgBody(await updateOrganization(ctx.actor, ctx.params.org, jsonBody(ctx), { requestId: ctx.requestId })))),

  route('DELETE', 'organizations/:org', async (ctx) => ok(orgBody(await deleteOrganization(ctx.actor, ctx.params.org, { requestId: ctx.requestId })))),

  route('GET', 'users/:owner/organizations', async (ctx) => ok((await listUserOrganizations(ctx.actor, ctx.params.owner)).map((o) => ({ organization: orgBody(o) })))),
];
