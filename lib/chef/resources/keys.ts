/** Chef's keys resource, for clients (/clients/:owner/keys) and users (/users/:owner/keys, org-scoped and server-level). */
import { createKey, deleteKey, getKey, listKeys, updateKey, type KeyDto, type KeyOwner } from '@/lib/services/keys';
import { jsonBody, ok, route, type ChefRoute, type Ctx } from '../context';

export function keyBody(k: KeyDto) {
  return { name: k.name, public_key: k.publicKey, expiration_date: k.expiresAt ? k.expiresAt.toISOString().replace(/\.\d{3}Z$/, 'Z') : 'infinity' };
}

function keyRoutes(prefix: string, kind: KeyOwner['kind'], base: (ctx: Ctx) => string): ChefRoute[] {
  // Who reads a user's keys: at the server level `user.read` (the user, administrators, org admins of the user's
  // organizations), through the organization `key.read` (public_key_read_access): chef-keys.ts decides. A client
  // at the server level is unknown there (401 when it authenticates); the org-scoped user-key path is read-only
  // (its writes are served at the server level only: 405 under an organization, before authentication).
  const owner = async (ctx: Ctx): Promise<KeyOwner> =>
    kind === 'user' && !ctx.scoped ? { kind, name: ctx.params.owner, serverLevel: true } : { kind, name: ctx.params.owner, orgId: ctx.orgId };
  return [
    route('GET', `${prefix}/:owner/keys`, async (ctx) =>
      ok((await listKeys(ctx.actor, await owner(ctx))).map((k) => ({ uri: `${base(ctx)}/${ctx.params.owner}/keys/${k.name}`, name: k.name, expired: k.expired }))),
    ),
    route('POST', `${prefix}/:owner/keys`, async (ctx) => {
      const { key, privateKey } = await createKey(ctx.actor, await owner(ctx), jsonBody(ctx), ctx.requestId);
      const uri = `${base(ctx)}/${ctx.params.owner}/keys/${key.name}`;
      ctx.headers.location = uri;
      return ok({ uri, ...(privateKey ? { private_key: privateKey } : {}) }, 201);
    }),
    route('GET', `${prefix}/:owner/keys/:key`, async (ctx) => ok(keyBody(await getKey(ctx.actor, await owner(ctx), ctx.params.key)))),
    route('PUT', `${prefix}/:owner/keys/:key`, async (ctx) => {
      const body = jsonBody(ctx) as Record<string, unknown>;
      const { key, privateKey, renamed } = await updateKey(ctx.actor, await owner(ctx), ctx.params.key, body, ctx.requestId);
      if (renamed) ctx.headers.location = `${base(ctx)}/${ctx.params.owner}/keys/${key.name}`;
      // Chef answers with the fields that were sent (a generated key: the new public and private key).
      const full = keyBody(key);
      const sent: Record<string, unknown> = {};
      if (body && typeof body === 'object') {
        if ('name' in body) sent.name = full.name;
        if ('public_key' in body || privateKey) sent.public_key = full.public_key;
        if ('expiration_date' in body) sent.expiration_date = full.expiration_date;
      }
      if (privateKey) sent.private_key = privateKey;
      return ok(sent, renamed ? 201 : 200);
    }),
    route('DELETE', `${prefix}/:owner/keys/:key`, async (ctx) => ok(keyBody(await deleteKey(ctx.actor, await owner(ctx), ctx.params.key, ctx.requestId)))),
  ];
}

export const clientKeyRoutes = keyRoutes('clients', 'client', (ctx) => `${ctx.orgUrl}/clients`);
export const userKeyRoutes = keyRoutes('users', 'user', (ctx) => (ctx.scoped ? `${ctx.orgUrl}/users` : `${ctx.req.baseUrl}/users`)).map((r) =>
  r.method === 'GET' ? r : { ...r, serverOnly: true as const },
);
