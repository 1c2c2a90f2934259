/**
 * The /api/v1 route table (issue 44 step 4): one line per handler file, as lib/chef/routes.ts lists the Chef
 * resources. Every contract of API_CONTRACTS has exactly one row (lib/api/openapi-coverage.test.ts).
 */
import type { ApiRoute } from './envelope';
import { composeRoutes } from './handlers/compose';
import { consoleRoutes } from './handlers/console';
import { cookbooksRoutes } from './handlers/cookbooks';
import { guardsRoutes } from './handlers/guards';
import { nodesRoutes } from './handlers/nodes';
import { organizationsRoutes } from './handlers/organizations';
import { policiesRoutes } from './handlers/policies';
import { promotionRoutes } from './handlers/promotion';
import { ringsRoutes } from './handlers/rings';
import { stagesRoutes } from './handlers/stages';
import { webhooksRoutes } from './handlers/webhooks';

export const API_ROUTES: readonly ApiRoute[] = [
  ...policiesRoutes,
  ...stagesRoutes,
  ...promotionRoutes,
  ...guardsRoutes,
  ...ringsRoutes,
  ...nodesRoutes,
  ...organizationsRoutes,
  ...composeRoutes,
  ...cookbooksRoutes,
  ...webhooksRoutes,
  ...consoleRoutes,
];
