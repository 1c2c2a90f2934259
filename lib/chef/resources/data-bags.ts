/** Chef's data bags: /data, /data/:bag (its items), /data/:bag/:item. */
import {
  createDataBag,
  createDataBagItem,
  deleteDataBag,
  deleteDataBagItem,
  getDataBagItem,
  listDataBagItems,
  listDataBags,
  updateDataBagItem,
} from '@/lib/services/data-bags';
import { AppError, isAppError } from '@/lib/errors';
import { jsonBody, ok, raw, route as baseRoute, type ChefRoute, type Ctx, type Handler } from '../context';

/** Chef's error bodies here are exactly `{"error": [message]}` (pedant compares them whole): the message names the field, the field list stays out. */
function route(method: string, path: string, handler: Handler): ChefRoute {
  return baseRoute(method, path, async (ctx) => {
    try {
      return await handler(ctx);
    } catch (e) {
      if (isAppError(e) && e.errors.length) throw new AppError(e.code, e.message, [], e.details);
      throw e;
    }
  });
}

const bagUrl = (ctx: Ctx, bag: string) => `${ctx.orgUrl}/data/${bag}`;

export const dataBagRoutes: ChefRoute[] = [
  route('GET', 'data', async (ctx) => ok(Object.fromEntries((await listDataBags(ctx.actor)).map((b) => [b, bagUrl(ctx, b)])))),

  route('POST', 'data', async (ctx) => {
    const name = await createDataBag(ctx.actor, jsonBody(ctx), ctx.requestId);
    const uri = bagUrl(ctx, name);
    ctx.headers.location = uri;
    return ok({ uri }, 201);
  }),

  route('GET', 'data/:bag', async (ctx) => {
    const bag = ctx.params.bag;
    return ok(Object.fromEntries((await listDataBagItems(ctx.actor, bag)).map((i) => [i, `${bagUrl(ctx, bag)}/${i}`])));
  }),

  route('POST', 'data/:bag', async (ctx) => {
    const item = await createDataBagItem(ctx.actor, ctx.params.bag, ctx.req.body.toString('utf8'), ctx.requestId);
    ctx.headers.location = `${bagUrl(ctx, ctx.params.bag)}/${item.id as string}`;
    return ok(item, 201);
  }),

  route('DELETE', 'data/:bag', async (ctx) => ok(await deleteDataBag(ctx.actor, ctx.params.bag, ctx.requestId))),

  route('GET', 'data/:bag/:item', async (ctx) => raw(await getDataBagItem(ctx.actor, ctx.params.bag, ctx.params.item))),

  route('PUT', 'data/:bag/:item', async (ctx) => ok(await updateDataBagItem(ctx.actor, ctx.params.bag, ctx.params.item, ctx.req.body.toString('utf8'), ctx.requestId))),

  route('DELETE', 'data/:bag/:item', async (ctx) => ok(await deleteDataBagItem(ctx.actor, ctx.params.bag, ctx.params.item, ctx.requestId))),
];
