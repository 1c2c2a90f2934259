/** Chef's users resource (what the console serves of it): /users/:name (their keys: keys.ts). */
import { userProfile } from '@/lib/db/queries/users';
import { notFound } from '@/lib/errors';
import { ok, route, userAccess, type ChefRoute } from '../context';

export const userRoutes: ChefRoute[] = [
  route('GET', 'users/:owner', async (ctx) => {
    userAccess(ctx, 'read users');
    const u = await userProfile(ctx.params.owner);
    if (!u) throw notFound(`Could not find user '${ctx.params.owner}'`);
    const [first, ...rest] = u.name.split(' ');
    return ok({ username: u.chefName, display_name: u.name, email: u.email, first_name: first, last_name: rest.join(' ') });
  }),
];
