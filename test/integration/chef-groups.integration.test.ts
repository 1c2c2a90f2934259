/**
 * Issue 23, step 3 of docs/organizations-design.md: Chef's groups (GET /groups, GET/PUT /groups/:group, erchef's
 * shape), org admins (the `admins` group) and `public_key_read_access` deciding org-scoped key reads,
 * transitively through nested groups, cycles included. One harness (users only), the tests in order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChefHarness, type ChefHarness } from '@/test/chef-harness';
import { db } from '@/lib/db/client';
import { apiRoutes, accessFor, call, tokenFor } from '@/test/helpers';
import { setOrgAdmin } from '@/lib/services/organizations';
const groupRoute = apiRoutes('/api/v1/organizations/[org]/groups/[group]');

let chef: ChefHarness;

beforeAll(async () => {
  chef = await startChefHarness({ seed: false });
  // Two clients (made by an administrator) and the validator, which is in no group.
  await chef.privateKey('client:grp-c1');
  await chef.privateKey('client:grp-c2');
  await chef.privateKey('validator');
});

afterAll(async () => {
  await chef?.close();
});

const put = (group: string, actors: { users?: string[]; clients?: string[]; groups?: string[] }, as: 'admin' | 'release' | 'viewer' = 'admin') =>
  chef.request('PUT', `groups/${group}`, { as, body: { groupname: group, actors: { users: [], clients: [], groups: [], ...actors } } });

describe('GET /groups, GET/PUT /groups/:group', () => {
  it('lists the system groups and answers erchef’s shape; users and clients are derived', async () => {
    const list = await chef.request('GET', 'groups', { as: 'viewer' });
    expect(list.status).toBe(200);
    expect(Object.keys(list.json).sort()).toEqual(['admins', 'billing-admins', 'clients', 'public_key_read_access', 'users']);
    expect(list.json.admins).toBe(`${chef.orgUrl}/groups/admins`);

    const users = await chef.request('GET', 'groups/users', { as: 'viewer' });
    expect(users.status).toBe(200);
    expect(users.json).toMatchObject({ orgname: chef.org, groupname: 'users', name: 'users', clients: [], groups: [] });
    expect(users.json.users).toEqual(expect.arrayContaining(['admin', 'viewer', 'dev']));
    expect(users.json.actors).toEqual(users.json.users);

    const clients = await chef.request('GET', 'groups/clients', { as: 'viewer' });
    expect(clients.json.clients).toEqual(expect.arrayContaining(['grp-c1', 'grp-c2']));
    expect(clients.json.clients).not.toContain(`${chef.org}-validator`);

    const pkra = await chef.request('GET', 'groups/public_key_read_access', { as: 'viewer' });
    expect(pkra.json).toEqual({ actors: [], users: [], clients: [], groups: ['clients', 'users'], orgname: chef.org, groupname: 'public_key_read_access', name: 'public_key_read_access' });
    expect((await chef.request('GET', 'groups/no-such-group', { as: 'viewer' })).status).toBe(404);
  });

  it('PUT replaces the members, dropping names that resolve to nothing (a client name under users too); audited', async () => {
    const r = await put('admins', { users: ['release', 'grp-c1', 'nobody'], clients: ['grp-c1', 'ghost'], groups: ['billing-admins', 'nope'] });
    expect(r.status).toBe(200);
    const g = (await chef.request('GET', 'groups/admins', { as: 'viewer' })).json;
    expect(g).toMatchObject({ users: ['release'], clients: ['grp-c1'], groups: ['billing-admins'], actors: ['grp-c1', 'release'] });
    // Replacing again keeps only what is sent (release, an org admin now, replaces it).
    expect((await put('admins', { users: ['release'] }, 'release')).status).toBe(200);
    expect((await chef.request('GET', 'groups/admins', { as: 'viewer' })).json).toMatchObject({ users: ['release'], clients: [], groups: [] });
    const events = await db().auditEvent.count({ where: { action: 'group.update', target: `${chef.org}/groups/admins` } });
    expect(events).toBe(2);
  });

  it('refuses edits of the derived groups, non-admins and bad bodies, storing nothing', async () => {
    const before = await db().chefGroupMember.count();
    const users = await put('users', { users: ['viewer'] });
    expect(users.status).toBe(403);
    expect(JSON.stringify(users.json)).toContain('derived');
    expect((await put('clients', { clients: ['grp-c1'] })).status).toBe(403);
    expect((await put('admins', { users: ['viewer'] }, 'viewer')).status).toBe(403);
    const bad = await chef.request('PUT', 'groups/admins', { as: 'admin', body: { actors: { users: 'viewer' } } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.json)).toContain('actors.users');
    expect((await put('no-such-group', {})).status).toBe(404);
    expect(await db().chefGroupMember.count()).toBe(before);
  });
});

describe('org admins (the admins group; release is one from here on)', () => {
  it("write clients' keys and clients; not another user's keys; a non-admin member neither", async () => {
    const post = await chef.request('POST', 'clients/grp-c2/keys', { as: 'release', body: { name: 'by-org-admin', create_key: true, expiration_date: 'infinity' } });
    expect(post.status).toBe(201);
    expect((await chef.request('DELETE', 'clients/grp-c2/keys/by-org-admin', { as: 'release' })).status).toBe(200);
    expect((await chef.request('POST', 'clients/grp-c2/keys', { as: 'viewer', body: { name: 'by-viewer', create_key: true, expiration_date: 'infinity' } })).status).toBe(403);
    expect((await chef.request('POST', '/users/dev/keys', { as: 'release', body: { name: 'by-org-admin', create_key: true, expiration_date: 'infinity' } })).status).toBe(403);

    const created = await chef.request('POST', 'clients', { as: 'release', body: { name: 'grp-made-by-org-admin', create_key: true } });
    expect(created.status).toBe(201);
    expect((await chef.request('DELETE', 'clients/grp-made-by-org-admin', { as: 'release' })).status).toBe(200);
    expect((await chef.request('POST', 'clients', { as: 'viewer', body: { name: 'grp-made-by-viewer', create_key: true } })).status).toBe(403);
  });

  it('read the server-level keys of members of an organization they administer, not of others', async () => {
    expect((await chef.request('GET', '/users/dev/keys', { as: 'release' })).status).toBe(200);
    expect((await chef.request('GET', '/users/dev/keys', { as: 'viewer' })).status).toBe(403);
    expect((await chef.request('DELETE', 'users/ops', { as: 'admin' })).status).toBe(200);
    expect((await chef.request('GET', '/users/ops/keys', { as: 'release' })).status).toBe(403);
    expect((await chef.request('GET', '/users/ops/keys', { as: 'admin' })).status).toBe(200);
  });
});

describe('public_key_read_access decides org-scoped key reads', () => {
  const reads = async (as: 'viewer' | 'dev' | 'client:grp-c1' | 'client:grp-c2', path: string) => [
    (await chef.request('GET', path, { as })).status,
    (await chef.request('GET', `${path}/default`, { as })).status,
  ];

  it('by default users and clients read; without clients a client is refused, its own keys too; one client added back reads', async () => {
    expect(await reads('viewer', 'clients/grp-c1/keys')).toEqual([200, 200]);
    expect(await reads('client:grp-c1', 'clients/grp-c1/keys')).toEqual([200, 200]);
    expect((await chef.request('GET', 'users/viewer/keys', { as: 'client:grp-c2' })).status).toBe(200);

    await put('public_key_read_access', { groups: ['users'] });
    expect(await reads('client:grp-c1', 'clients/grp-c1/keys')).toEqual([403, 403]);
    expect(await reads('client:grp-c2', 'clients/grp-c1/keys')).toEqual([403, 403]);
    expect(await reads('viewer', 'clients/grp-c1/keys')).toEqual([200, 200]);

    await put('public_key_read_access', { groups: ['users'], clients: ['grp-c1'] });
    expect(await reads('client:grp-c1', 'clients/grp-c2/keys')).toEqual([200, 200]);
    expect(await reads('client:grp-c2', 'clients/grp-c2/keys')).toEqual([403, 403]);
  });

  it('without users a user is refused; one reached through a nested group reads; a cycle ends', async () => {
    await put('public_key_read_access', { groups: ['clients'] });
    expect(await reads('viewer', 'clients/grp-c1/keys')).toEqual([403, 403]);
    expect(await reads('dev', 'clients/grp-c1/keys')).toEqual([403, 403]);

    // viewer ∈ billing-admins ∈ public_key_read_access, and public_key_read_access ∈ billing-admins (a cycle).
    await put('billing-admins', { users: ['viewer'], groups: ['public_key_read_access'] });
    await put('public_key_read_access', { groups: ['clients', 'billing-admins'] });
    expect(await reads('viewer', 'clients/grp-c1/keys')).toEqual([200, 200]);
    expect(await reads('dev', 'clients/grp-c1/keys')).toEqual([403, 403]);
    expect(await reads('client:grp-c2', 'clients/grp-c1/keys')).toEqual([200, 200]);
    // Console administrators bypass.
    expect((await chef.request('GET', 'clients/grp-c1/keys', { as: 'admin' })).status).toBe(200);

    await put('billing-admins', {});
    await put('public_key_read_access', { groups: ['clients', 'users'] });
    expect(await reads('dev', 'clients/grp-c1/keys')).toEqual([200, 200]);
  });
});

describe('dissociation and groups', () => {
  it("refuses to dissociate an org admin (erchef's text); a dissociated user leaves the organization's groups", async () => {
    await put('admins', { users: ['release'] });
    const refused = await chef.request('DELETE', 'users/release', { as: 'admin' });
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({ error: "Please remove release from this organization's admins group before removing him or her from the organization." });
    expect((await chef.request('GET', 'users/release', { as: 'admin' })).status).toBe(200);

    await put('billing-admins', { users: ['dev'] });
    // A plain member may not dissociate another; an org admin (release) may.
    expect((await chef.request('DELETE', 'users/dev', { as: 'viewer' })).status).toBe(403);
    expect((await chef.request('DELETE', 'users/dev', { as: 'release' })).status).toBe(200);
    expect((await chef.request('POST', 'users', { as: 'admin', body: { username: 'dev' } })).status).toBe(201);
    expect((await chef.request('GET', 'groups/billing-admins', { as: 'viewer' })).json.users).toEqual([]);
  });
});

describe('/api/v1/organizations/{org}/groups/{group}', () => {
  it('reads and replaces a group through the same service (admins and org admins; derived groups refuse)', async () => {
    const params = (group: string) => ({ org: chef.org, group });
    const got = await call(groupRoute.GET, 'GET', { token: await tokenFor('viewer@example.com'), params: params('public_key_read_access') });
    expect(got.status).toBe(200);
    expect(got.json).toEqual({ name: 'public_key_read_access', users: [], clients: [], groups: ['clients', 'users'], actors: [] });
    const put1 = await call(groupRoute.PUT, 'PUT', { token: await tokenFor('release@example.com'), params: params('billing-admins'), body: { users: ['viewer', 'nobody'] } });
    expect(put1.status).toBe(200);
    expect(put1.json).toMatchObject({ users: ['viewer'], clients: [], groups: [] });
    expect((await call(groupRoute.PUT, 'PUT', { token: await tokenFor('viewer@example.com'), params: params('billing-admins'), body: { users: [] } })).status).toBe(403);
    expect((await call(groupRoute.PUT, 'PUT', { token: await tokenFor('admin@example.com'), params: params('users'), body: { users: [] } })).status).toBe(403);
    expect((await call(groupRoute.PUT, 'PUT', { token: await tokenFor('admin@example.com'), params: params('billing-admins'), body: { users: 'viewer' } })).status).toBe(400);
    expect((await call(groupRoute.GET, 'GET', { token: await tokenFor('viewer@example.com'), params: { org: 'elsewhere', group: 'admins' } })).status).toBe(404);
  });
});

describe('Admin → Users "Chef organization admin" (setOrgAdmin)', () => {
  it('adds a member to admins and removes them, audited; refuses a non-member (400) and a plain member (403)', async () => {
    const dev = await db().user.findFirstOrThrow({ where: { chefName: 'dev' }, select: { id: true } });
    const ops = await db().user.findFirstOrThrow({ where: { chefName: 'ops' }, select: { id: true } });
    const events = () => db().auditEvent.count({ where: { action: 'group.update', target: `${chef.org}/groups/admins` } });
    const before = await events();
    const admin = (await accessFor('admin@example.com'))!;
    expect(await setOrgAdmin(admin, dev.id, true)).toEqual({ email: 'dev@example.com', orgAdmin: true });
    expect((await chef.request('GET', 'groups/admins', { as: 'viewer' })).json.users).toContain('dev');
    // Nothing to change: no event.
    await setOrgAdmin(admin, dev.id, true);
    expect(await events()).toBe(before + 1);
    await expect(setOrgAdmin(admin, ops.id, true)).rejects.toMatchObject({ status: 400 });
    await expect(setOrgAdmin((await accessFor('viewer@example.com'))!, dev.id, false)).rejects.toMatchObject({ status: 403 });
    expect(await setOrgAdmin(admin, dev.id, false)).toEqual({ email: 'dev@example.com', orgAdmin: false });
    expect((await chef.request('GET', 'groups/admins', { as: 'viewer' })).json.users).not.toContain('dev');
    expect(await events()).toBe(before + 2);
  });
});
