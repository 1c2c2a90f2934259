/** Chef's nodes resource: /nodes, /nodes/:name. */
import { createChefNode, deleteChefNode, getChefNode, listChefNodes, updateChefNode } from '@/lib/services/chef-nodes';
import { jsonBody, ok, route, type ChefRoute } from '../context';

export const nodeRoutes: ChefRoute[] = [
  route('GET', 'nodes', async (ctx) => ok(Object.fromEntries((await listChefNodes(ctx.actor)).map((n) => [n, `${ctx.orgUrl}/nodes/${n}`])))),

  route('POST', 'nodes', async (ctx) => {
    const node = await createChefNode(ctx.actor, jsonBody(ctx), ctx.requestId);
    const uri = `${ctx.orgUrl}/nodes/${node.name}`;
    ctx.headers.location = uri;
    return ok({ uri }, 201);
  }),

  route('GET', 'nodes/:name', async (ctx) => ok(await getChefNode(ctx.actor, ctx.params.name))),
  route('HEAD', 'nodes/:name', async (ctx) => {
    await getChefNode(ctx.actor, ctx.params.name);
    return { status: 200 };
  }),
  route('PUT', 'nodes/:name', async (ctx) => ok(await updateChefNode(ctx.actor, ctx.params.name, jsonBody(ctx), ctx.requestId))),
  route('DELETE', 'nodes/:name', async (ctx) => ok(await deleteChefNode(ctx.actor, ctx.params.name, ctx.requestId))),
];
