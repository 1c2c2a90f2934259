/**
 * Chef's nodes resource: /nodes, /nodes/:name. Issue 42: bodies are read losslessly and nodes answered as
 * stored, so a number keeps the lexeme chef-client sent (`"run_time_limit": 1.0` stays a Float in recipes).
 */
import { serializeJson } from '@/lib/domain';
import { createChefNode, deleteChefNode, getChefNode, getChefNodeDocument, listChefNodes, updateChefNode } from '@/lib/services/nodes';
import { losslessJsonBody, ok, raw, route, type ChefRoute } from '../context';

export const nodeRoutes: ChefRoute[] = [
  route('GET', 'nodes', async (ctx) => ok(Object.fromEntries((await listChefNodes(ctx.actor)).map((n) => [n, `${ctx.orgUrl}/nodes/${n}`])))),

  route('POST', 'nodes', async (ctx) => {
    const node = await createChefNode(ctx.actor, losslessJsonBody(ctx), ctx.requestId);
    const uri = `${ctx.orgUrl}/nodes/${node.name}`;
    ctx.headers.location = uri;
    return ok({ uri }, 201);
  }),

  route('GET', 'nodes/:name', async (ctx) => raw(await getChefNodeDocument(ctx.actor, ctx.params.name))),
  route('HEAD', 'nodes/:name', async (ctx) => {
    await getChefNode(ctx.actor, ctx.params.name);
    return { status: 200 };
  }),
  route('PUT', 'nodes/:name', async (ctx) => raw(serializeJson(await updateChefNode(ctx.actor, ctx.params.name, losslessJsonBody(ctx), ctx.requestId)))),
  route('DELETE', 'nodes/:name', async (ctx) => ok(await deleteChefNode(ctx.actor, ctx.params.name, ctx.requestId))),
];
