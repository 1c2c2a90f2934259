/** Chef's clients resource: /clients, /clients/:name (their keys: keys.ts). */
import { createClient, deleteClient, getClient, listClients, updateClient, type ClientDto } from '@/lib/services/chef-clients';
import { chefOrg, jsonBody, ok, route, type ChefRoute } from '../context';
import { keyBody } from './keys';

function clientBody(c: ClientDto) {
  return { name: c.name, clientname: c.name, orgname: chefOrg(), validator: c.validator, json_class: 'Chef::ApiClient', chef_type: 'client' };
}

export const clientRoutes: ChefRoute[] = [
  route('GET', 'clients', async (ctx) => ok(Object.fromEntries((await listClients(ctx.actor)).map((c) => [c.name, `${ctx.orgUrl}/clients/${c.name}`])))),

  route('POST', 'clients', async (ctx) => {
    const { client, key, privateKey } = await createClient(ctx.actor, jsonBody(ctx), { apiVersion: ctx.apiVersion, requestId: ctx.requestId });
    const uri = `${ctx.orgUrl}/clients/${client.name}`;
    ctx.headers.location = uri;
    if (ctx.apiVersion === 0) return ok({ uri, ...(key ? { public_key: key.publicKey } : {}), ...(privateKey ? { private_key: privateKey } : {}) }, 201);
    const body: Record<string, unknown> = { uri };
    if (key) body.chef_key = { ...keyBody(key), uri: `${uri}/keys/${key.name}`, ...(privateKey ? { private_key: privateKey } : {}) };
    return ok(body, 201);
  }),

  route('GET', 'clients/:name', async (ctx) => ok(clientBody(await getClient(ctx.actor, ctx.params.name)))),

  route('PUT', 'clients/:name', async (ctx) => {
    const { client, renamed, privateKey } = await updateClient(ctx.actor, ctx.params.name, jsonBody(ctx), { apiVersion: ctx.apiVersion, requestId: ctx.requestId });
    if (renamed) ctx.headers.location = `${ctx.orgUrl}/clients/${client.name}`;
    return ok({ ...clientBody(client), ...(privateKey ? { private_key: privateKey } : {}) }, renamed ? 201 : 200);
  }),

  route('DELETE', 'clients/:name', async (ctx) => ok(clientBody(await deleteClient(ctx.actor, ctx.params.name, ctx.requestId)))),
];
