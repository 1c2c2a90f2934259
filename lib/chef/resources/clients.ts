/** Chef's clients resource: /clients, /clients/:name (their keys: keys.ts). */
import { clientJson, createClient, deleteClient, getClient, listClients, updateClient, type ClientDto } from '@/lib/services/clients';
import { jsonBody, ok, route, type ChefRoute, type Ctx } from '../context';
import { keyBody } from './keys';

/** erchef's client JSON (clientJson: the same body search rows carry). */
function clientBody(c: ClientDto, ctx: Ctx) {
  return clientJson(c, ctx.org, ctx.apiVersion);
}

/** The URL's organization, for the clients service (issue 23: clients belong to one organization). */
const inOrg = (ctx: Ctx) => ({ orgId: ctx.orgId });

/**
 * API v0's answer to PUT /clients/:name, as erchef builds it: the body sent,
 * with the name from the URL when absent, Chef's defaults, the key the client
 * now has, and `private_key` (the new private key when one was generated,
 * else false).
 */
function v0UpdateBody(sent: unknown, c: ClientDto, privateKey: string | undefined) {
  const b = sent && typeof sent === 'object' && !Array.isArray(sent) ? (sent as Record<string, unknown>) : {};
  const { id: _id, ...rest } = b;
  return {
    ...rest,
    name: c.name,
    clientname: c.name,
    json_class: rest.json_class ?? 'Chef::ApiClient',
    chef_type: rest.chef_type ?? 'client',
    validator: c.validator,
    ...(c.publicKey ? { public_key: c.publicKey } : {}),
    private_key: privateKey ?? false,
  };
}

export const clientRoutes: ChefRoute[] = [
  route('GET', 'clients', async (ctx) => ok(Object.fromEntries((await listClients(ctx.actor, inOrg(ctx))).map((c) => [c.name, `${ctx.orgUrl}/clients/${c.name}`])))),

  route('POST', 'clients', async (ctx) => {
    const { client, key, privateKey } = await createClient(ctx.actor, jsonBody(ctx), { apiVersion: ctx.apiVersion, requestId: ctx.requestId, ...inOrg(ctx) });
    const uri = `${ctx.orgUrl}/clients/${client.name}`;
    ctx.headers.location = uri;
    if (ctx.apiVersion === 0) return ok({ uri, ...(key ? { public_key: key.publicKey } : {}), ...(privateKey ? { private_key: privateKey } : {}) }, 201);
    const body: Record<string, unknown> = { uri };
    if (key) body.chef_key = { ...keyBody(key), uri: `${uri}/keys/${key.name}`, ...(privateKey ? { private_key: privateKey } : {}) };
    return ok(body, 201);
  }),

  route('GET', 'clients/:name', async (ctx) => ok(clientBody(await getClient(ctx.actor, ctx.params.name, inOrg(ctx)), ctx))),

  route('PUT', 'clients/:name', async (ctx) => {
    const sent = jsonBody(ctx);
    const { client, renamed, privateKey } = await updateClient(ctx.actor, ctx.params.name, sent, { apiVersion: ctx.apiVersion, requestId: ctx.requestId, ...inOrg(ctx) });
    if (renamed) ctx.headers.location = `${ctx.orgUrl}/clients/${client.name}`;
    if (ctx.apiVersion === 0) return ok(v0UpdateBody(sent, client, privateKey), renamed ? 201 : 200);
    return ok({ ...clientBody(client, ctx), ...(privateKey ? { private_key: privateKey } : {}) }, renamed ? 201 : 200);
  }),

  route('DELETE', 'clients/:name', async (ctx) => ok(clientBody(await deleteClient(ctx.actor, ctx.params.name, ctx.requestId, inOrg(ctx)), ctx))),
];
