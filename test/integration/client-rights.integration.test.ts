/**
 * Chef's default client rights and the organization setting "stage isolation" (issue 23's client rights, built in
 * issue 22's one permission table). Chef's defaults (chef-server's org policy, oc_chef_authz_org_creator): the
 * clients group reads every node and creates nodes; a client reads, updates and deletes itself. With stage
 * isolation on, a client reads only its own stage's nodes (its stage: its node's policy_group); its own node always.
 * Seeded demo organization (stages dev, qa, staging, production).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChefHarness, type ChefHarness } from '@/test/chef-harness';
import { newNode } from '@/test/chef-pedant-helpers';
import { apiRoutes, call, tokenFor } from '@/test/helpers';
import { db } from '@/lib/db/client';
const settingsRoute = apiRoutes('/api/v1/settings');

let chef: ChefHarness;
const DEV_CLIENT = 'client:iso_dev_client' as const;
const NOSTAGE_CLIENT = 'client:iso_nostage_client' as const;

async function setIsolation(on: boolean) {
  const res = await call(settingsRoute.PUT, 'PUT', { token: await tokenFor('admin@example.com'), body: { stage_isolation: on } });
  expect(res.status).toBe(200);
  expect(res.json.stage_isolation).toBe(on);
}

beforeAll(async () => {
  chef = await startChefHarness();
  for (const [name, group] of [['iso_prod_node', 'production'], ['iso_dev_node', 'dev'], ['iso_nostage_node', null]] as const) {
    const body = newNode(name, group ? { policy_name: 'webapp', policy_group: group } : {});
    expect((await chef.request('POST', 'nodes', { as: 'admin', body })).status).toBe(201);
  }
  // The client's own node, saved by chef-client: its stage is dev.
  expect((await chef.request('POST', 'nodes', { as: DEV_CLIENT, body: newNode('iso_dev_client', { policy_name: 'webapp', policy_group: 'dev' }) })).status).toBe(201);
});

afterAll(async () => {
  await chef?.close();
});

describe("Chef's default client rights (stage isolation off)", () => {
  it('a client reads every node, in any stage or none, and lists them all', async () => {
    for (const node of ['iso_prod_node', 'iso_dev_node', 'iso_nostage_node']) {
      const res = await chef.request('GET', `nodes/${node}`, { as: DEV_CLIENT });
      expect(res.status).toBe(200);
      expect(res.json.name).toBe(node);
    }
    const list = await chef.request('GET', 'nodes', { as: DEV_CLIENT });
    expect(list.status).toBe(200);
    expect(Object.keys(list.json)).toEqual(expect.arrayContaining(['iso_prod_node', 'iso_dev_node', 'iso_nostage_node', 'iso_dev_client']));
  });

  it('a client reads and updates itself, and changes no other node', async () => {
    expect((await chef.request('GET', 'clients/iso_dev_client', { as: DEV_CLIENT })).status).toBe(200);
    expect((await chef.request('PUT', 'clients/iso_dev_client', { as: DEV_CLIENT, body: { name: 'iso_dev_client', validator: false } })).status).toBe(200);
    // Another client that exists (a missing one is 404 for everyone, as erchef loads it first).
    await chef.privateKey(NOSTAGE_CLIENT);
    expect((await chef.request('GET', 'clients/iso_nostage_client', { as: DEV_CLIENT })).status).toBe(403);
    expect((await chef.request('GET', 'clients/no_such_client', { as: DEV_CLIENT })).status).toBe(404);
    expect((await chef.request('PUT', 'nodes/iso_prod_node', { as: DEV_CLIENT, body: newNode('iso_prod_node', { normal: { changed: true } }) })).status).toBe(403);
    expect((await chef.request('DELETE', 'nodes/iso_prod_node', { as: DEV_CLIENT })).status).toBe(403);
    expect((await chef.request('GET', 'nodes/iso_prod_node', { as: 'admin' })).json.normal).toEqual({ is_anyone: 'no' });
  });

  it('a client may not make itself a validator', async () => {
    expect((await chef.request('PUT', 'clients/iso_dev_client', { as: DEV_CLIENT, body: { name: 'iso_dev_client', validator: true } })).status).toBe(403);
    expect((await chef.request('GET', 'clients/iso_dev_client', { as: 'admin' })).json.validator).toBe(false);
  });

  it('the validator reads no nodes (403)', async () => {
    expect((await chef.request('GET', 'nodes', { as: 'validator' })).status).toBe(403);
    expect((await chef.request('GET', 'nodes/iso_dev_node', { as: 'validator' })).status).toBe(403);
  });
});

describe('stage isolation on', () => {
  beforeAll(() => setIsolation(true));
  afterAll(() => setIsolation(false));

  it("a client reads its own stage's nodes and its own node; another stage's node or one in no stage is not found (404)", async () => {
    expect((await chef.request('GET', 'nodes/iso_dev_node', { as: DEV_CLIENT })).status).toBe(200);
    expect((await chef.request('GET', 'nodes/iso_dev_client', { as: DEV_CLIENT })).status).toBe(200);
    for (const node of ['iso_prod_node', 'iso_nostage_node']) {
      const res = await chef.request('GET', `nodes/${node}`, { as: DEV_CLIENT });
      expect(res.status).toBe(404);
      expect(res.json.error).toEqual([`node '${node}' not found`]);
      expect((await chef.request('HEAD', `nodes/${node}`, { as: DEV_CLIENT })).status).toBe(404);
    }
  });

  it("the node list shows only the client's stage", async () => {
    const list = await chef.request('GET', 'nodes', { as: DEV_CLIENT });
    expect(list.status).toBe(200);
    expect(Object.keys(list.json)).toEqual(expect.arrayContaining(['iso_dev_node', 'iso_dev_client']));
    expect(Object.keys(list.json)).not.toContain('iso_prod_node');
    expect(Object.keys(list.json)).not.toContain('iso_nostage_node');
  });

  it('a client with no node yet sees no other node, and may still register its own (chef-client first run)', async () => {
    expect((await chef.request('GET', 'nodes/iso_nostage_client', { as: NOSTAGE_CLIENT })).status).toBe(404);
    expect((await chef.request('GET', 'nodes/iso_dev_node', { as: NOSTAGE_CLIENT })).status).toBe(404);
    expect((await chef.request('POST', 'nodes', { as: NOSTAGE_CLIENT, body: newNode('iso_nostage_client') })).status).toBe(201);
    expect((await chef.request('GET', 'nodes/iso_nostage_client', { as: NOSTAGE_CLIENT })).status).toBe(200);
  });

  it('users keep their own rights (stage grants), unaffected by the setting', async () => {
    expect((await chef.request('GET', 'nodes/iso_prod_node', { as: 'viewer' })).status).toBe(200);
    expect((await chef.request('GET', 'nodes/iso_nostage_node', { as: 'viewer' })).status).toBe(200);
  });

  it('policies a node converges from stay readable in every stage', async () => {
    expect((await chef.request('GET', 'policy_groups', { as: DEV_CLIENT })).status).toBe(200);
    expect((await chef.request('GET', 'policies', { as: DEV_CLIENT })).status).toBe(200);
  });
});

describe('the setting through /api/v1/settings', () => {
  it('every signed-in user reads it', async () => {
    const res = await call(settingsRoute.GET, 'GET', { token: await tokenFor('viewer@example.com') });
    expect(res.status).toBe(200);
    expect(typeof res.json.stage_isolation).toBe('boolean');
  });

  it('only an admin changes it (403 otherwise, nothing changed)', async () => {
    const res = await call(settingsRoute.PUT, 'PUT', { token: await tokenFor('release@example.com'), body: { stage_isolation: true } });
    expect(res.status).toBe(403);
    expect((await call(settingsRoute.GET, 'GET', { token: await tokenFor('admin@example.com') })).json.stage_isolation).toBe(false);
  });

  it('a bad body is a 400 naming the field; an unknown field is refused', async () => {
    const token = await tokenFor('admin@example.com');
    const bad = await call(settingsRoute.PUT, 'PUT', { token, body: { stage_isolation: 'yes' } });
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0].path).toBe('/stage_isolation');
    const extra = await call(settingsRoute.PUT, 'PUT', { token, body: { stage_isolation: true, other: 1 } });
    expect(extra.status).toBe(400);
    expect((await call(settingsRoute.GET, 'GET', { token })).json.stage_isolation).toBe(false);
  });

  it('a change is audited with before and after, and shows who changed it', async () => {
    await setIsolation(true);
    await setIsolation(false);
    const events = await db().auditEvent.findMany({ where: { action: 'org.settings' }, orderBy: { createdAt: 'asc' }, select: { actorEmail: true, before: true, after: true } });
    expect(events.slice(-2).map((e) => [e.actorEmail, JSON.parse(e.before!), JSON.parse(e.after!)])).toEqual([
      ['admin@example.com', { stage_isolation: false }, { stage_isolation: true }],
      ['admin@example.com', { stage_isolation: true }, { stage_isolation: false }],
    ]);
    const now = await call(settingsRoute.GET, 'GET', { token: await tokenFor('admin@example.com') });
    expect(now.json.updated_by).toBe('admin@example.com');
  });
});
