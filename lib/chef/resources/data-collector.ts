/**
 * Issue 26: chef-client's data collector, POST /organizations/<org>/data-collector
 * (chef-client's default `data_collector.server_url`, signed with the node's
 * client key). Replaces the 404 chef-client used to get (and stop reporting
 * after). Automate's token form is served on /data-collector/v0 (see
 * app/data-collector/v0/route.ts).
 */
import { ingestRunMessage } from '@/lib/services/runs';
import { dataCollectorMaxBytes } from '@/lib/config';
import { AppError } from '@/lib/errors';
import { jsonBody, ok, route, type ChefRoute } from '../context';

export const dataCollectorRoutes: ChefRoute[] = [
  route('POST', 'data-collector', async (ctx) => {
    const max = dataCollectorMaxBytes();
    if (ctx.req.body.length > max) throw new AppError('too_large', `A data collector message is at most ${max} bytes (DATA_COLLECTOR_MAX_BYTES); this one has ${ctx.req.body.length}`);
    const r = await ingestRunMessage({ kind: 'actor', actor: ctx.actor }, jsonBody(ctx), { requestId: ctx.requestId });
    return ok(r, 201);
  }),
];
