/**
 * Issue 23, step 4 of docs/organizations-design.md: Chef's organizations (`POST /organizations` makes one with
 * its validator and groups; `DELETE` removes it with its identities). Another organization holds identities
 * only: its validator registers clients that authenticate there and nowhere else, it has members and groups,
 * and its Chef-object routes answer 404. Server-level requests know no clients. One harness, tests in order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChefHarness, type ChefHarness } from '@/test/chef-harness';
import { db } from '@/lib/db/client';
import { signRequest } from '@/lib/auth/chef-signing';
import { HOME_ORG_ID } from '@/lib/domain/organizations';

let chef: ChefHarness;

beforeAll(async () => {
  chef = await startChefHarness({ seed: false });
  await chef.privateKey('client:org-home-client');
});

afterAll(async () => {
  await chef?.close();
});

/** A request signed by hand, as an actor the harness does not know (a new organization's validator and clients). */
async function signed(method: string, path: string, name: string, key: string, body?: unknown) {
  const text = body === undefined ? '' : JSON.stringify(body);
  const headers = signRequest({ protocol: '1.1', method, path, body: text, userId: name, privateKey: key, apiVersion: '1' });
  const res = await fetch(`${chef.url}${path}`, { method, headers: { ...headers, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : text });
  const raw = await res.text();
  return { status: res.status, json: raw ? JSON.parse(raw) : undefined, headers: res.headers };
}

const stored = async () => ({ orgs: await db().organization.count(), groups: await db().chefGroup.count(), clients: await db().chefClient.count(), names: await db().chefName.count() });

describe('POST /organizations', () => {
  let validatorKey = '';

  it('makes the organization, its groups and its validator, whose key is returned once', async () => {
    const r = await chef.request('POST', '/organizations', { as: 'admin', body: { name: 'acme', full_name: 'Acme, Inc.', org_type: 'Business' } });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ uri: `${chef.url}/organizations/acme`, clientname: 'acme-validator' });
    expect(r.json.private_key).toMatch(/BEGIN (RSA )?PRIVATE KEY/);
    expect(r.headers.get('location')).toBe(`${chef.url}/organizations/acme`);
    validatorKey = r.json.private_key;

    const list = await chef.request('GET', '/organizations', { as: 'admin' });
    expect(list.json).toEqual({ [chef.org]: `${chef.url}/organizations/${chef.org}`, acme: `${chef.url}/organizations/acme` });
    const one = await chef.request('GET', '/organizations/acme', { as: 'admin' });
    expect(one.json).toEqual({ name: 'acme', full_name: 'Acme, Inc.', guid: expect.any(String) });
    const groups = await chef.request('GET', '/organizations/acme/groups', { as: 'admin' });
    expect(Object.keys(groups.json).sort()).toEqual(['admins', 'billing-admins', 'clients', 'public_key_read_access', 'users']);
    const pkra = await chef.request('GET', '/organizations/acme/groups/public_key_read_access', { as: 'admin' });
    expect(pkra.json).toMatchObject({ groups: ['clients', 'users'], orgname: 'acme' });
    expect(await db().auditEvent.count({ where: { action: 'org.create', target: 'acme' } })).toBe(1);
  });

  it('refuses bad bodies naming the field, taken names and non-administrators, storing nothing', async () => {
    const before = await stored();
    const cases: [unknown, number, string][] = [
      [{ full_name: 'No name' }, 400, "Field 'name' missing"],
      [{ name: 'Acme-Upper', full_name: 'x' }, 400, 'Malformed org name'],
      [{ name: '-dash', full_name: 'x' }, 400, 'Malformed org name'],
      [{ name: 'ok-name' }, 400, "Field 'full_name' missing"],
      [{ name: 'ok-name', full_name: ' leading space' }, 400, 'Malformed org full name'],
      [{ name: 'acme', full_name: 'Again' }, 409, 'Organization already exists'],
      [{ name: chef.org, full_name: 'The home one' }, 409, 'Organization already exists'],
    ];
    for (const [body, status, text] of cases) {
      const r = await chef.request('POST', '/organizations', { as: 'admin', body });
      expect([r.status, JSON.stringify(r.json)]).toEqual([status, expect.stringContaining(text)]);
    }
    const detail = await chef.request('POST', '/organizations', { as: 'admin', body: { name: 'BAD' , full_name: 'x' }, headers: { 'x-console-error-detail': '1' } });
    expect(detail.json.errors).toEqual([expect.objectContaining({ path: '/name' })]);
    expect((await chef.request('POST', '/organizations', { as: 'viewer', body: { name: 'by-viewer', full_name: 'x' } })).status).toBe(403);
    expect((await chef.request('GET', '/organizations', { as: 'viewer' })).status).toBe(403);
    expect(await stored()).toEqual(before);
  });

  it("the new validator registers clients there; they authenticate there and nowhere else", async () => {
    const made = await signed('POST', '/organizations/acme/clients', 'acme-validator', validatorKey, { name: 'acme-node-1', create_key: true });
    expect(made.status).toBe(201);
    expect(made.json.uri).toBe(`${chef.url}/organizations/acme/clients/acme-node-1`);
    const key = made.json.chef_key.private_key as string;
    const self = await signed('GET', '/organizations/acme/clients/acme-node-1', 'acme-node-1', key);
    expect(self.status).toBe(200);
    expect(self.json).toMatchObject({ name: 'acme-node-1', orgname: 'acme', validator: false });
    const keys = await signed('GET', '/organizations/acme/clients/acme-node-1/keys', 'acme-node-1', key);
    expect(keys.json).toEqual([{ uri: `${chef.url}/organizations/acme/clients/acme-node-1/keys/default`, name: 'default', expired: false }]);

    // Elsewhere the client does not exist: 401 in the home organization and at the server level.
    expect((await signed('GET', `/organizations/${chef.org}/clients/acme-node-1`, 'acme-node-1', key)).status).toBe(401);
    expect((await signed('GET', '/users/admin', 'acme-node-1', key)).status).toBe(401);
    // The home organization's clients are not acme's: 401 there, 404 when an administrator looks them up there.
    expect((await chef.request('GET', '/organizations/acme/clients', { as: 'client:org-home-client' })).status).toBe(401);
    expect((await chef.request('GET', '/users/admin', { as: 'client:org-home-client' })).status).toBe(401);
    expect((await chef.request('GET', '/organizations/acme/clients/org-home-client', { as: 'admin' })).status).toBe(404);
    expect((await chef.request('GET', `clients/acme-node-1`, { as: 'admin' })).status).toBe(404);
    const acmeClients = await chef.request('GET', '/organizations/acme/clients', { as: 'admin' });
    expect(Object.keys(acmeClients.json).sort()).toEqual(['acme-node-1', 'acme-validator']);
    expect(Object.keys((await chef.request('GET', 'clients', { as: 'admin' })).json)).not.toContain('acme-node-1');
    // Not in the home organization's search index (search is the home organization's).
    const search = await chef.request('GET', 'search/client?q=name:acme*', { as: 'admin' });
    expect(search.json.total).toBe(0);
  });

  it('a member of acme only is refused in the home organization and served in acme; home-only routes 404 there', async () => {
    expect((await chef.request('DELETE', 'users/ops', { as: 'admin' })).status).toBe(200);
    expect((await chef.request('POST', '/organizations/acme/users', { as: 'admin', body: { username: 'ops' } })).status).toBe(201);
    const home = await chef.request('GET', 'clients', { as: 'ops' });
    expect([home.status, home.json]).toEqual([403, { error: [`'ops' not associated with organization '${chef.org}'`] }]);
    const acme = await chef.request('GET', '/organizations/acme/users', { as: 'ops' });
    expect([acme.status, acme.json]).toEqual([200, [{ user: { username: 'ops' } }]]);
    expect((await chef.request('GET', '/organizations/acme', { as: 'ops' })).status).toBe(200);
    expect((await chef.request('GET', '/organizations/acme', { as: 'viewer' })).status).toBe(403);
    // A member of the home organization only is not one of acme.
    const outsider = await chef.request('GET', '/organizations/acme/clients', { as: 'viewer' });
    expect([outsider.status, outsider.json]).toEqual([403, { error: ["'viewer' not associated with organization 'acme'"] }]);

    for (const path of ['nodes', 'policies', 'cookbook_artifacts', 'data', 'search/node', 'sandboxes']) {
      const r = await chef.request('GET', `/organizations/acme/${path}`, { as: 'admin' });
      expect([path, r.status, r.json.error[0]]).toEqual([path, 404, expect.stringContaining(`Organization 'acme' holds clients, users and groups only`)]);
    }
    const none = await chef.request('GET', '/organizations/no-such-org/nodes', { as: 'admin' });
    expect([none.status, none.json]).toEqual([404, { error: ["organization 'no-such-org' does not exist."] }]);
    expect((await chef.request('GET', '/organizations/no-such-org', { as: 'admin' })).status).toBe(404);
  });
});

describe('PUT /organizations/:org and GET /users/:user/organizations', () => {
  it("changes the full name (administrators, the organization's org admins), never the name; audited once", async () => {
    const r = await chef.request('PUT', '/organizations/acme', { as: 'admin', body: { name: 'acme', full_name: 'Acme Corporation' } });
    expect([r.status, r.json]).toEqual([200, { name: 'acme', full_name: 'Acme Corporation', guid: expect.any(String) }]);
    expect((await chef.request('PUT', '/organizations/acme', { as: 'admin', body: { full_name: 'Acme Corporation' } })).status).toBe(200);
    const renamed = await chef.request('PUT', '/organizations/acme', { as: 'admin', body: { name: 'other', full_name: 'x' } });
    expect([renamed.status, JSON.stringify(renamed.json)]).toEqual([400, expect.stringContaining('must match existing name')]);
    expect((await chef.request('PUT', '/organizations/acme', { as: 'admin', body: { full_name: ' ' } })).status).toBe(400);
    // ops is a member of acme (above), not an org admin: refused; in acme's admins group: allowed.
    expect((await chef.request('PUT', '/organizations/acme', { as: 'ops', body: { full_name: 'By ops' } })).status).toBe(403);
    expect((await chef.request('PUT', '/organizations/acme/groups/admins', { as: 'admin', body: { groupname: 'admins', actors: { users: ['ops'], clients: [], groups: [] } } })).status).toBe(200);
    expect((await chef.request('PUT', '/organizations/acme', { as: 'ops', body: { full_name: 'Acme, Inc.' } })).status).toBe(200);
    expect((await chef.request('PUT', '/organizations/no-such-org', { as: 'admin', body: { full_name: 'x' } })).status).toBe(404);
    expect(await db().organization.findUnique({ where: { name: 'acme' }, select: { fullName: true } })).toEqual({ fullName: 'Acme, Inc.' });
    expect(await db().auditEvent.count({ where: { action: 'org.update', target: 'acme' } })).toBe(2);
  });

  it("lists a user's organizations to the user, administrators and their org admins", async () => {
    const own = await chef.request('GET', '/users/ops/organizations', { as: 'ops' });
    expect([own.status, own.json]).toEqual([200, [{ organization: { name: 'acme', full_name: 'Acme, Inc.', guid: expect.any(String) } }]]);
    const viewer = await chef.request('GET', '/users/viewer/organizations', { as: 'admin' });
    expect(viewer.json.map((o: { organization: { name: string } }) => o.organization.name)).toEqual([chef.org]);
    expect((await chef.request('GET', '/users/admin/organizations', { as: 'viewer' })).status).toBe(403);
    expect((await chef.request('GET', '/users/nobody/organizations', { as: 'admin' })).status).toBe(404);
    // Back as it was for the deletion tests: ops out of acme's admins.
    expect((await chef.request('PUT', '/organizations/acme/groups/admins', { as: 'admin', body: { groupname: 'admins', actors: { users: [], clients: [], groups: [] } } })).status).toBe(200);
  });
});

describe('DELETE /organizations/:org', () => {
  it('refuses the home organization and non-administrators', async () => {
    const home = await chef.request('DELETE', `/organizations/${chef.org}`, { as: 'admin' });
    expect([home.status, JSON.stringify(home.json)]).toEqual([400, expect.stringContaining('home organization')]);
    expect((await chef.request('DELETE', '/organizations/acme', { as: 'ops' })).status).toBe(403);
    expect(await db().organization.count({ where: { id: HOME_ORG_ID } })).toBe(1);
  });

  it('removes the organization with its clients, keys, names, memberships and groups; its name can be made again', async () => {
    const org = await db().organization.findUniqueOrThrow({ where: { name: 'acme' }, select: { id: true } });
    const r = await chef.request('DELETE', '/organizations/acme', { as: 'admin' });
    expect([r.status, r.json]).toEqual([200, { name: 'acme', full_name: 'Acme, Inc.', guid: org.id }]);
    expect(await db().chefClient.count({ where: { orgId: org.id } })).toBe(0);
    expect(await db().chefName.count({ where: { name: { in: ['acme-validator', 'acme-node-1'] } } })).toBe(0);
    expect(await db().orgMember.count({ where: { orgId: org.id } })).toBe(0);
    expect(await db().chefGroup.count({ where: { orgId: org.id } })).toBe(0);
    expect(await db().chefKey.count({ where: { clientId: null, userId: null } })).toBe(0);
    expect(await db().auditEvent.count({ where: { action: 'org.delete', target: 'acme' } })).toBe(1);
    expect((await chef.request('GET', '/organizations/acme', { as: 'admin' })).status).toBe(404);
    expect((await chef.request('GET', '/organizations/acme/clients', { as: 'admin' })).status).toBe(404);
    expect((await chef.request('POST', '/organizations', { as: 'admin', body: { name: 'acme', full_name: 'Acme again' } })).status).toBe(201);
  });

  it('two requests creating one name at once: one 201, one 409, one organization', async () => {
    const answers = await Promise.all([0, 1].map(() => chef.request('POST', '/organizations', { as: 'admin', body: { name: 'raced', full_name: 'Raced' } })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    expect(await db().organization.count({ where: { name: 'raced' } })).toBe(1);
    expect(await db().chefClient.count({ where: { name: 'raced-validator' } })).toBe(1);
  });
});
