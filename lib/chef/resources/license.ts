/**
 * Chef Server's /license (server level), as an unlicensed-limit server
 * answers it: the console has no node limit (knife and chef-manage read it).
 */
import { AppError } from '@/lib/errors';
import { db } from '@/lib/db/client';
import { ok, route, userAccess, type ChefRoute } from '../context';

export const licenseRoutes: ChefRoute[] = [
  route('GET', 'license', async (ctx) => {
    if (ctx.scoped) throw new AppError('not_found', `Not found: ${ctx.req.rawPath}`);
    userAccess(ctx, 'read the license');
    const nodes = await db().node.count();
    return ok({ limit_exceeded: false, node_license: 0, node_count: nodes, upgrade_url: '' });
  }),
];
