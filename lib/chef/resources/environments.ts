/**
 * Chef's environments, as far as a Policyfile console has them: the nodes of
 * one environment (/environments/:env/nodes). The console stores no
 * environment objects (policy groups are its stages); see
 * listChefNodesInEnvironment.
 */
import { listChefNodesInEnvironment } from '@/lib/services/nodes';
import { ok, route, type ChefRoute } from '../context';

export const environmentRoutes: ChefRoute[] = [
  route('GET', 'environments/:env/nodes', async (ctx) => ok(Object.fromEntries((await listChefNodesInEnvironment(ctx.actor, ctx.params.env)).map((n) => [n, `${ctx.orgUrl}/nodes/${n}`])))),
];
