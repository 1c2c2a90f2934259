/**
 * Chef's users resource: the server-level /users and /users/:name (create,
 * list, read, update, delete; lib/services/chef-users.ts maps them onto the
 * console's users), and through the organization /users (its members: every
 * console user) and /users/:name (a member's profile). Their keys: keys.ts.
 */
import { userProfile } from '@/lib/db/queries/users';
import { AppError, chefStringError, notFound } from '@/lib/errors';
import { createChefUser, deleteChefUser, getChefUser, listChefUsers, updateChefUser, type ChefUserDto } from '@/lib/services/chef-users';
import { jsonBody, ok, route, userAccess, type ChefRoute, type Ctx } from '../context';

/** erchef's user JSON; API v0 adds the default key's `public_key` (null without one). */
function userBody(u: ChefUserDto, apiVersion: number) {
  const [first, ...rest] = u.displayName.split(' ');
  const base = { username: u.username, email: u.email, display_name: u.displayName, first_name: first, last_name: rest.join(' ') };
  return apiVersion === 0 ? { ...base, public_key: u.publicKey } : base;
}

function serverLevel(ctx: Ctx) {
  if (ctx.scoped) throw new AppError('method_not_allowed' as never, `Method ${ctx.req.method} is not allowed on ${ctx.req.rawPath}`);
}

export const userRoutes: ChefRoute[] = [
  // Server level: { name: uri }; through the organization: its members, as erchef lists an org's users.
  route('GET', 'users', async (ctx) => {
    const names = await listChefUsers(ctx.actor);
    if (ctx.scoped) return ok(names.map((username) => ({ user: { username } })));
    return ok(Object.fromEntries(names.map((n) => [n, `${ctx.req.baseUrl}/users/${n}`])));
  }),

  route('POST', 'users', async (ctx) => {
    if (ctx.scoped) {
      // Associating a user with the organization: every console user is a member already (Chef's 409 text).
      const body = jsonBody(ctx) as { username?: unknown } | null;
      const name = body && typeof body === 'object' && typeof body.username === 'string' ? body.username : null;
      if (!name) throw new AppError('bad_request', "Field 'username' missing");
      await getChefUser(ctx.actor, name);
      throw chefStringError('conflict', 'The association already exists.');
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
    // Through the organization, every member reads a member's profile.
    userAccess(ctx, 'read users');
    const u = await userProfile(ctx.params.owner);
    if (!u) throw notFound(`Could not find user '${ctx.params.owner}'`);
    const [first, ...rest] = u.name.split(' ');
    return ok({ username: u.chefName, display_name: u.name, email: u.email, first_name: first, last_name: rest.join(' ') });
  }),

  route('PUT', 'users/:owner', async (ctx) => {
    serverLevel(ctx);
    const { user, echo, privateKey } = await updateChefUser(ctx.actor, ctx.params.owner, jsonBody(ctx), { apiVersion: ctx.apiVersion, requestId: ctx.requestId });
    if (ctx.apiVersion === 0) return ok({ ...echo, public_key: user.publicKey, ...(privateKey ? { private_key: privateKey } : {}) });
    return ok(echo);
  }),

  route('DELETE', 'users/:owner', async (ctx) => {
    serverLevel(ctx);
    return ok(userBody(await deleteChefUser(ctx.actor, ctx.params.owner, ctx.requestId), ctx.apiVersion));
  }),
];
