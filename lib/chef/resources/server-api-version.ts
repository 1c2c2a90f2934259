/** Chef Server's /server_api_version (server level): the API versions this server speaks. */
import { AppError } from '@/lib/errors';
import { API_MAX_VERSION, API_MIN_VERSION, ok, route, type ChefRoute } from '../context';

export const serverApiVersionRoutes: ChefRoute[] = [
  route('GET', 'server_api_version', async (ctx) => {
    if (ctx.scoped) throw new AppError('not_found', `Not found: ${ctx.req.rawPath}`);
    return ok({ min_api_version: API_MIN_VERSION, max_api_version: API_MAX_VERSION });
  }),
];
