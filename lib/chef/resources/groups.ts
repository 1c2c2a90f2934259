/**
 * Chef's groups of an organization (issue 23, step 3; erchef's oc_chef_wm_groups and
 * oc_chef_wm_named_group): the list `{ name: uri }`, one group `{ actors, users, clients, groups, orgname,
 * groupname, name }`, and PUT replacing its members (lib/services/organizations/groups.ts). Only the system groups
 * are served; `users` and `clients` are derived and refuse edits.
 */
import { getGroup, listGroups, updateGroup } from '@/lib/services/organizations';
import { jsonBody, ok, route, type ChefRoute } from '../context';

export const groupRoutes: ChefRoute[] = [
  route('GET', 'groups', async (ctx) => {
    const names = await listGroups(ctx.actor, { orgId: ctx.orgId, orgName: ctx.org });
    return ok(Object.fromEntries(names.map((n) => [n, `${ctx.orgUrl}/groups/${n}`])));
  }),
  route('GET', 'groups/:group', async (ctx) => ok(await getGroup(ctx.actor, ctx.params.group, { orgId: ctx.orgId, orgName: ctx.org }))),
  route('PUT', 'groups/:group', async (ctx) =>
    ok(await updateGroup(ctx.actor, ctx.params.group, jsonBody(ctx), { orgId: ctx.orgId, orgName: ctx.org, requestId: ctx.requestId })),
  ),
];
