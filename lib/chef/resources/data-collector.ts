/**
 * Issue 26: chef-client's data collector, in both of its forms, each message at most DATA_COLLECTOR_MAX_BYTES
 * (the router refuses a larger one with 413 before any handler; open question 7: the signed form takes this limit
 * too, not Chef's JSON limit).
 * - POST /organizations/<org>/data-collector: chef-client's default `data_collector.server_url`, signed with the
 *   node's client key. Replaces the 404 chef-client used to get (and stop reporting after).
 * - POST /data-collector/v0: Chef Automate's token form, for a fleet re-pointed from Automate, with
 *   `x-data-collector-token: <token>` (what chef-client sends, unsigned, when `data_collector.token` is set). The
 *   token is the console's DATA_COLLECTOR_TOKEN, checked by the router (auth 'collector-token'); without it this path
 *   answers 404 and only signed reports are taken. A token-form message is trusted for the node it names, as
 *   Automate trusts it: keep the token secret, or use the signed form.
 */
import { ingestRunMessage } from '@/lib/services/runs';
import { DATA_COLLECTOR_LIMIT, jsonBody, ok, route, type ChefRoute } from '../context';

export const dataCollectorRoutes: ChefRoute[] = [
  {
    ...route('POST', 'data-collector', async (ctx) => ok(await ingestRunMessage({ kind: 'actor', actor: ctx.actor }, jsonBody(ctx), { requestId: ctx.requestId }), 201)),
    bodyLimit: DATA_COLLECTOR_LIMIT,
  },
  {
    method: 'POST',
    path: 'data-collector/v0',
    serverOnly: true,
    auth: 'collector-token',
    bodyLimit: DATA_COLLECTOR_LIMIT,
    handler: async (ctx) => ok(await ingestRunMessage({ kind: 'token' }, jsonBody(ctx), { requestId: ctx.requestId }), 201),
  },
];
