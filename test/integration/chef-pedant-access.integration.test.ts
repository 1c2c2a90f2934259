/**
 * Who may do what on the policy and node routes. oc-chef-pedant's policy and node specs act only as the org admin,
 * so these rows carry the console's rules from issue 11 (client and validator rights, view-only users, no
 * credentials), with pedant's analogous expectations where they exist:
 *   - pedant common_responses.rb: 401 without valid credentials; 403 `{"error":["missing <perm> permission"]}`.
 *   - pedant spec/api/clients/complete_endpoint_spec.rb: a validator may only create (non-validator) clients.
 * Seeded demo organization (stages dev, staging, production).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChefHarness, type ChefActor, type ChefHarness } from '@/test/chef-harness';
import { minimumPolicy, newNode } from '@/test/chef-pedant-helpers';

let chef: ChefHarness;
const POLICY = 'pedant_access_policy';
const REV = 'a1'.repeat(20);

beforeAll(async () => {
  chef = await startChefHarness();
  const res = await chef.request('PUT', `policy_groups/dev/policies/${POLICY}`, { as: 'admin', body: minimumPolicy(POLICY, REV) });
  expect([200, 201]).toContain(res.status);
  expect((await chef.request('POST', 'nodes', { as: 'admin', body: newNode('pedant_admin_node') })).status).toBe(201);
});

afterAll(async () => {
  await chef?.close();
});

describe('reading policies', () => {
  // console rule (issue 11): "A client may read every policy group's policy and everything a node needs to converge";
  // chef-client in policy mode: GET policy_groups/G/policies/P (toolchain README).
  it.each<[string, ChefActor, number]>([
    ['a client', 'client:pedant_node_a', 200],
    ['a view-only user', 'viewer', 200],
    ['the validator (its only right is POST /clients)', 'validator', 403],
    ['no credentials', 'anonymous', 401],
  ])('GET policy_groups/dev/policies/P as %s (%s): %i', async (_label, actor, status) => {
    const res = await chef.request('GET', `policy_groups/dev/policies/${POLICY}`, { as: actor });
    expect(res.status).toBe(status);
    if (status === 200) expect(res.json).toStrictEqual(minimumPolicy(POLICY, REV));
    if (status === 401) expect(Array.isArray(res.json.error)).toBe(true);
  });

  // console rule (issue 11): "a client may read policies/groups"
  it.each<[string, string]>([
    ['the policy list', 'policies'],
    ['a group', 'policy_groups/dev'],
    ['a revision', `policies/${POLICY}/revisions/${REV}`],
  ])('a client reads %s: 200', async (_label, path) => {
    expect((await chef.request('GET', path, { as: 'client:pedant_node_a' })).status).toBe(200);
  });
});

describe('changing policies', () => {
  // console rule (issue 11): a client may change nothing but its own node; pedant's "normal user" write failures → 'viewer' (403).
  it.each<[string, ChefActor, number]>([
    ['a client', 'client:pedant_node_a', 403],
    ['a view-only user', 'viewer', 403],
    ['the validator', 'validator', 403],
    ['no credentials', 'anonymous', 401],
  ])('PUT, DELETE and POST on policies as %s (%s): %i, nothing changes', async (_label, actor, status) => {
    const other = minimumPolicy(POLICY, 'b2'.repeat(20));
    expect((await chef.request('PUT', `policy_groups/dev/policies/${POLICY}`, { as: actor, body: other })).status).toBe(status);
    expect((await chef.request('POST', `policies/${POLICY}/revisions`, { as: actor, body: other })).status).toBe(status);
    expect((await chef.request('DELETE', `policy_groups/dev/policies/${POLICY}`, { as: actor })).status).toBe(status);
    expect((await chef.request('DELETE', `policies/${POLICY}`, { as: actor })).status).toBe(status);
    const still = await chef.request('GET', `policy_groups/dev/policies/${POLICY}`, { as: 'admin' });
    expect(still.json.revision_id).toBe(REV);
    const revs = await chef.request('GET', `policies/${POLICY}`, { as: 'admin' });
    expect(revs.json).toStrictEqual({ revisions: { [REV]: {} } });
  });
});

describe('nodes', () => {
  // console rule (issue 11): a client may "create and update its own node" — chef-client's run: GET nodes/NAME (404),
  // POST nodes, later PUT nodes/NAME with policy_name, policy_group and automatic data (toolchain README).
  it('a client creates, reads and updates its own node', async () => {
    const actor = 'client:pedant_node_b' as const;
    expect((await chef.request('GET', 'nodes/pedant_node_b', { as: actor })).status).toBe(404);
    const created = await chef.request('POST', 'nodes', { as: actor, body: newNode('pedant_node_b') });
    expect(created.status).toBe(201);
    expect(created.json).toStrictEqual({ uri: `${chef.orgUrl}/nodes/pedant_node_b` });
    const saved = newNode('pedant_node_b', {
      policy_name: POLICY,
      policy_group: 'dev',
      automatic: { platform: 'ubuntu', policy_revision: REV },
    });
    expect((await chef.request('PUT', 'nodes/pedant_node_b', { as: actor, body: saved })).status).toBe(200);
    const got = await chef.request('GET', 'nodes/pedant_node_b', { as: actor });
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({ policy_name: POLICY, policy_group: 'dev', automatic: { policy_revision: REV } });
  });

  // console rule (issue 11): "… its own node, and nothing else" — other nodes, and deleting, are refused.
  it.each<[string, string, string, unknown]>([
    ['creating another node', 'POST', 'nodes', newNode('pedant_not_mine')],
    ['updating another node', 'PUT', 'nodes/pedant_admin_node', newNode('pedant_admin_node', { normal: { hacked: true } })],
    ['deleting another node', 'DELETE', 'nodes/pedant_admin_node', undefined],
  ])('a client %s: 403', async (_label, method, path, body) => {
    const res = await chef.request(method, path, { as: 'client:pedant_node_c', body });
    expect(res.status).toBe(403);
    const admins = await chef.request('GET', 'nodes/pedant_admin_node', { as: 'admin' });
    expect(admins.status).toBe(200);
    expect(admins.json.normal).toEqual({ is_anyone: 'no' });
    expect((await chef.request('GET', 'nodes/pedant_not_mine', { as: 'admin' })).status).toBe(404);
  });

  it.each<[string, ChefActor, number]>([
    // pedant's "normal user" write failures → 'viewer' (403)
    ['a view-only user', 'viewer', 403],
    // the validator's only right is POST /clients
    ['the validator', 'validator', 403],
    ['no credentials', 'anonymous', 401],
  ])('node writes as %s (%s): %i', async (_label, actor, status) => {
    expect((await chef.request('POST', 'nodes', { as: actor, body: newNode('pedant_by_other') })).status).toBe(status);
    expect((await chef.request('PUT', 'nodes/pedant_admin_node', { as: actor, body: newNode('pedant_admin_node') })).status).toBe(status);
    expect((await chef.request('DELETE', 'nodes/pedant_admin_node', { as: actor })).status).toBe(status);
    expect((await chef.request('GET', 'nodes/pedant_admin_node', { as: 'admin' })).status).toBe(200);
    expect((await chef.request('GET', 'nodes/pedant_by_other', { as: 'admin' })).status).toBe(404);
  });

  // pedant: spec/api/nodes/complete_endpoint_spec.rb "GET /nodes" — a view-only user may view: the list and a node
  it('a view-only user lists and reads nodes', async () => {
    const list = await chef.request('GET', 'nodes', { as: 'viewer' });
    expect(list.status).toBe(200);
    expect(list.json.pedant_admin_node).toBe(`${chef.orgUrl}/nodes/pedant_admin_node`);
    expect((await chef.request('GET', 'nodes/pedant_admin_node', { as: 'viewer' })).status).toBe(200);
  });
});

describe('another organization', () => {
  // pedant: spec/api/account/account_association_spec.rb "when the organization does not exist" (body_exact
  // {"error":["organization 'bad_org' does not exist."]}); issue 11: "Another org name answers a JSON 404".
  it.each([
    ['GET', '/organizations/bad_org/policies'],
    ['GET', '/organizations/bad_org/nodes/pedant_admin_node'],
    ['PUT', `/organizations/bad_org/policy_groups/dev/policies/${POLICY}`],
  ])('%s %s: 404 organization does not exist', async (method, path) => {
    const res = await chef.request(method, path, { as: 'admin', body: method === 'PUT' ? minimumPolicy(POLICY, REV) : undefined });
    expect(res.status).toBe(404);
    expect(res.json.error).toEqual(["organization 'bad_org' does not exist."]);
  });
});
