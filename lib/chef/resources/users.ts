/**
 * Chef's users resource: the server-level /users and /users/:name (create,
 * list, read, update, delete; lib/services/users/chef-users.ts maps them onto the
 * console's users), and through the organization its associations (issue 23,
 * lib/services/organizations/members.ts, erchef's oc_chef_wm_org_associations): /users
 * lists the members and associates a user (POST), /users/:name reads a
 * member's profile and dissociates one (DELETE). Their keys: keys.ts.
 */
import { AppError } from '@/lib/errors';
import { createChefUser, deleteChefUser, getChefUser, listChefUsers, updateChefUser, type ChefUserDto } from '@/lib/services/users';
import { associateUser, dissociateUser, getOrgMember, listOrgMembers, type OrgMemberDto } from '@/lib/services/organizations';
import { jsonBody, ok, route, type ChefRoute } from '../context';

/** erchef's user JSON; API v0 adds the default key's `public_key` (null without one). */
function userBody(u: ChefUserDto, apiVersion: number) {
  const [first, ...rest] = u.displayName.split(' ');
  // Issue 42: the names as sent (POST/PUT, an import) when known; else the display name's words, as before.
  const base = { username: u.username, email: u.email, display_name: u.displayName, first_name: u.firstName ?? first, last_name: u.lastName ?? rest.join(' ') };
  return apiVersion === 0 ? { ...base, public_key: u.publicKey } : base;
}

/** A member's profile as erchef answers it through the organization (chef_user:assemble_user_ejson). */
function memberBody(u: OrgMemberDto) {
  const [first, ...rest] = u.displayName.split(' ');
  return { username: u.username ?? '', display_name: u.displayName, email: u.email, first_name: first, last_name: rest.join(' ') };
}

export const userRoutes: ChefRoute[] = [
  // Server level: { name: uri }; through the organization: its members, as erchef lists an org's users.
  route('GET', 'users', async (ctx) => {
    if (ctx.scoped) {
      // The organization's members with a Chef name, as erchef lists them: [{ user: { username } }].
      const members = await listOrgMembers(ctx.actor, { orgId: ctx.orgId, orgName: ctx.org });
      return ok(members.filter((m) => m.username).map((m) => ({ user: { username: m.username } })));
    }
    const names = await listChefUsers(ctx.actor);
    return ok(Object.fromEntries(names.map((n) => [n, `${ctx.req.baseUrl}/users/${n}`])));
  }),

  route('POST', 'users', async (ctx) => {
    if (ctx.scoped) {
      // Associating a user with the organization (Chef's superuser): 201, 409 for a member, 404 for no such user.
      const body = jsonBody(ctx) as { username?: unknown } | null;
      const name = body && typeof body === 'object' && typeof body.username === 'string' ? body.username : null;
      if (!name) throw new AppError('bad_request', "Field 'username' missing", [{ path: '/username', message: 'must be a user name' }]);
      const u = await associateUser(ctx.actor, { username: name }, { orgId: ctx.orgId, orgName: ctx.org, requestId: ctx.requestId });
      const uri = `${ctx.orgUrl}/users/${u.username}`;
      ctx.headers.location = uri;
      return ok({ uri }, 201);
    }
    const { user, privateKey } = await createChefUser(ctx.actor, jsonBody(ctx), { apiVersion: ctx.apiVersion, requestId: ctx.requestId });
    const uri = `${ctx.req.baseUrl}/users/${user.username}`;
    ctx.headers.location = uri;
    if (ctx.apiVersion === 0) return ok({ uri, ...(privateKey ? { private_key: privateKey } : {}) }, 201);
    const key = user.publicKey ? { chef_key: { name: 'default', public_key: user.publicKey, expiration_date: 'infinity', uri: `${uri}/keys/default`, ...(privateKey ? { private_key: privateKey } : {}) } } : {};
    return ok({ uri, ...key }, 201);
  }),

  route('GET', 'users/:owner', async (ctx) => {
    if (!ctx.scoped) return ok(userBody(await getChefUser(ctx.actor, ctx.params.owner), ctx.apiVersion));
    // Through the organization, a member reads a member's profile (a user who is not a member: 404).
    return ok(memberBody(await getOrgMember(ctx.actor, { username: ctx.params.owner }, { orgId: ctx.orgId, orgName: ctx.org })));
  }),

  // Server level only (under an organization: 405, before authentication).
  {
    ...route('PUT', 'users/:owner', async (ctx) => {
      const { user, echo, privateKey } = await updateChefUser(ctx.actor, ctx.params.owner, jsonBody(ctx), { apiVersion: ctx.apiVersion, requestId: ctx.requestId });
      if (ctx.apiVersion === 0) return ok({ ...echo, public_key: user.publicKey, ...(privateKey ? { private_key: privateKey } : {}) });
      return ok(echo);
    }),
    serverOnly: true,
  },

  route('DELETE', 'users/:owner', async (ctx) => {
    // Through the organization: dissociation (an administrator, or the user themselves); 200 with the user.
    if (ctx.scoped) return ok(memberBody(await dissociateUser(ctx.actor, { username: ctx.params.owner }, { orgId: ctx.orgId, orgName: ctx.org, requestId: ctx.requestId })));
    return ok(userBody(await deleteChefUser(ctx.actor, ctx.params.owner, ctx.requestId), ctx.apiVersion));
  }),
];
