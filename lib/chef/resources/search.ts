/** Chef's search resource (issue 25): /search, /search/:index (GET: full rows, POST: partial search). */
import { listSearchIndexes, partialSearch, search, type SearchParams } from '@/lib/services/search';
import { serializeJson } from '@/lib/domain';
import { jsonBody, ok, raw, route, type ChefRoute, type Ctx } from '../context';
import { chefOrg } from '@/lib/config';

function params(ctx: Ctx): SearchParams {
  const q = ctx.req.query;
  return { q: q.get('q'), rows: q.get('rows'), start: q.get('start'), sort: q.get('sort') };
}

export const searchRoutes: ChefRoute[] = [
  route('GET', 'search', async (ctx) => ok(Object.fromEntries((await listSearchIndexes(ctx.actor)).map((i) => [i, `${ctx.orgUrl}/search/${i}`])))),

  route('GET', 'search/:index', async (ctx) => {
    const r = await search(ctx.actor, ctx.params.index, params(ctx), { org: chefOrg(), apiVersion: ctx.apiVersion });
    // Issue 42: nodes and items with their numbers as sent (lossless rows, written with their lexemes).
    return raw(serializeJson({ total: r.total, start: r.start, rows: r.hits.map((h) => h.row) }));
  }),

  route('POST', 'search/:index', async (ctx) => {
    const r = await partialSearch(ctx.actor, ctx.params.index, params(ctx), jsonBody(ctx), { org: chefOrg(), apiVersion: ctx.apiVersion });
    return ok({ total: r.total, start: r.start, rows: r.rows.map((x) => ({ url: `${ctx.orgUrl}/${x.path}`, data: x.data })) });
  }),
];
