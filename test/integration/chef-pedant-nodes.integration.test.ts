/**
 * oc-chef-pedant, ported: Chef node objects on the organization routes.
 * Source: chef/chef-server oc-chef-pedant/spec/api/nodes/complete_endpoint_spec.rb ("Testing the Nodes API endpoint"),
 * spec/api/nodes_spec.rb ("Private Chef Nodes API endpoint"), helpers lib/pedant/rspec/node_util.rb and validations.rb.
 * Pedant assumes an empty organization and acts as the org admin: `seed: false`, as 'admin'.
 * Left out: respects_maximum_payload_size,
 * and most of the attribute / run-list value permutations (a representative subset is kept).
 * Expectations: docs/pedant-notes.md.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { useChefHarness } from '@/test/chef-harness';
import { newNode, testingNode, uniq, without } from '@/test/chef-pedant-helpers';

const chef = useChefHarness({ seed: false });

const as = 'admin' as const;
const ALL_VALID_NODE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqurstuvwxyz0123456789-_:';
const ALL_VALID_ENV = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqurstuvwxyz0123456789-_';
const ALL_VALID_POLICY = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqurstuvwxyz0123456789-_:.';

const get = (name: string) => chef.request('GET', `nodes/${encodeURIComponent(name)}`, { as });
const post = (body: unknown) => chef.request('POST', 'nodes', { as, body });
const put = (name: string, body: unknown) => chef.request('PUT', `nodes/${encodeURIComponent(name)}`, { as, body });
const del = (name: string) => chef.request('DELETE', `nodes/${encodeURIComponent(name)}`, { as });

async function resetNodes(): Promise<void> {
  const list = await chef.request('GET', 'nodes', { as });
  for (const name of Object.keys(list.json ?? {})) await del(name);
}

/** pedant "with temporary testing node": a fresh node for the example, created as admin. */
async function temporaryNode(): Promise<Record<string, any>> {
  const node = testingNode(uniq('pedant_node_test'));
  expect((await post(node)).status).toBe(201);
  return node;
}

describe('GET /nodes', () => {
  beforeEach(resetNodes);

  // pedant: spec/api/nodes/complete_endpoint_spec.rb "GET /nodes" "with no nodes on the server" "returns a 200 with an empty hash"
  it('returns {} with no nodes on the server', async () => {
    const res = await chef.request('GET', 'nodes', { as });
    expect(res.status).toBe(200);
    expect(res.json).toStrictEqual({});
  });

  // pedant: spec/api/nodes/complete_endpoint_spec.rb "GET /nodes" "with #{num} nodes on the server" "should return a hash with #{num} nodes" (num 1..7; 1 and 7 kept)
  it.each([1, 7])('returns name → uri for %i nodes', async (num) => {
    const names = Array.from({ length: num }, (_, i) => uniq(`pedant_node_list_test_${i + 1}`));
    for (const n of names) expect((await post(newNode(n))).status).toBe(201);
    const res = await chef.request('GET', 'nodes', { as });
    expect(res.status).toBe(200);
    expect(res.json).toStrictEqual(Object.fromEntries(names.map((n) => [n, `${chef.orgUrl}/nodes/${n}`])));
  });
});

describe('GET /environments/<environment_name>/nodes', () => {
  beforeEach(resetNodes);

  // pedant: spec/api/nodes/complete_endpoint_spec.rb "GET /environments/<environment_name>/nodes" "with no nodes on the server"
  it('_default with no nodes: 200 {}', async () => {
    const res = await chef.request('GET', 'environments/_default/nodes', { as });
    expect(res.status).toBe(200);
    expect(res.json).toStrictEqual({});
  });

  // The console keeps no environment objects: an environment exists while a node names it (_default always).
  it('lists the nodes of one environment; an environment no node names is 404', async () => {
    const inDefault = uniq('env_node_default');
    const inStaging = uniq('env_node_staging');
    expect((await post(newNode(inDefault))).status).toBe(201);
    expect((await post({ ...newNode(inStaging), chef_environment: 'staging' })).status).toBe(201);
    expect((await chef.request('GET', 'environments/_default/nodes', { as })).json).toStrictEqual({ [inDefault]: `${chef.orgUrl}/nodes/${inDefault}` });
    expect((await chef.request('GET', 'environments/staging/nodes', { as })).json).toStrictEqual({ [inStaging]: `${chef.orgUrl}/nodes/${inStaging}` });
    const none = await chef.request('GET', 'environments/nowhere/nodes', { as });
    expect(none.status).toBe(404);
    expect(none.json.error).toEqual(['Cannot load environment nowhere']);
  });
});

describe('GET and HEAD /nodes/<name>', () => {
  // pedant: spec/api/nodes/complete_endpoint_spec.rb "GET /nodes/<name>" "for a nonexistent node" "returns a 404"
  it('GET of a nonexistent node: 404 with Chef\'s message', async () => {
    const res = await get('nonexistent_pedant_node');
    expect(res.status).toBe(404);
    expect(res.json.error).toEqual(["node 'nonexistent_pedant_node' not found"]);
  });

  // pedant: spec/api/nodes/complete_endpoint_spec.rb "GET /nodes/<name>" "for an existing node" "returns a 200 and the node"
  it('GET of an existing node: 200 and the node', async () => {
    const node = await temporaryNode();
    const res = await get(node.name);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject(node);
  });

  // pedant: spec/api/nodes/complete_endpoint_spec.rb "HEAD /nodes/<name>" "for a nonexistent node" "returns a 404"
  it('HEAD of a nonexistent node: 404', async () => {
    const res = await chef.request('HEAD', 'nodes/nonexistent_pedant_node', { as });
    expect(res.status).toBe(404);
    expect(res.text).toBe('');
  });

  // pedant: spec/api/nodes/complete_endpoint_spec.rb "HEAD /nodes/<name>" "for an existing node" "returns a 200"
  it('HEAD of an existing node: 200, no body', async () => {
    const node = await temporaryNode();
    const res = await chef.request('HEAD', `nodes/${node.name}`, { as });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
  });
});

describe('POST /nodes', () => {
  // pedant: spec/api/nodes/complete_endpoint_spec.rb "POST /nodes" "without existing node name" (resource_created_exact_response)
  it('creates a node: 201 {"uri"} exactly, and the node can be read', async () => {
    const name = uniq('testing_node');
    const res = await post(newNode(name));
    expect(res.status).toBe(201);
    expect(res.json).toStrictEqual({ uri: `${chef.orgUrl}/nodes/${name}` });
    const got = await get(name);
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject(newNode(name));
  });

  // pedant: spec/api/nodes/complete_endpoint_spec.rb "POST /nodes" "with existing node name" (conflict_exact_response)
  it('refuses an existing name: 409 "Node already exists"', async () => {
    const node = await temporaryNode();
    const res = await post(node);
    expect(res.status).toBe(409);
    expect(res.json.error).toEqual(['Node already exists']);
  });

  // pedant: spec/api/nodes/complete_endpoint_spec.rb "when validating 'name' field" validates_existence_of "name"
  it('without "name": 400 Field \'name\' missing', async () => {
    const res = await post(without(newNode('x'), 'name'));
    expect(res.status).toBe(400);
    expect(res.json.error).toEqual(["Field 'name' missing"]);
  });

  // pedant: spec/api/nodes/complete_endpoint_spec.rb "when validating 'name' field" accepts_valid_value …
  // (pedant also accepts 'pedant_node' and 'PEDANT_NODE')
  it.each([ALL_VALID_NODE])('accepts the name %s (201, persisted)', async (name) => {
    await del(name);
    expect((await post(newNode(name))).status).toBe(201);
    expect((await get(name)).status).toBe(200);
    await del(name);
  });

  // Validation rows: [pedant context, change to new_node(name), expected error].
  type Row = [string, Record<string, unknown>, string];
  const invalid: Row[] = [
    // pedant: spec/api/nodes/complete_endpoint_spec.rb "when validating 'name' field" rejects_invalid_value "node@127.0.0.1"
    ['name "node@127.0.0.1"', { name: 'node@127.0.0.1' }, "Field 'name' invalid"],
    // pedant: spec/api/nodes/complete_endpoint_spec.rb "when validating 'chef_environment' field" rejects_invalid_value …
    ['chef_environment "pedant:no_colon_in_environment_name"', { chef_environment: 'pedant:no_colon_in_environment_name' }, "Field 'chef_environment' invalid"],
    // pedant: spec/api/nodes/complete_endpoint_spec.rb "when validating 'json_class' field" rejects_invalid_value "anything_else"
    ['json_class "anything_else"', { json_class: 'anything_else' }, "Field 'json_class' invalid"],
    // pedant: spec/api/nodes/complete_endpoint_spec.rb "when validating 'chef_type' field" rejects_invalid_value "anything_else"
    ['chef_type "anything_else"', { chef_type: 'anything_else' }, "Field 'chef_type' invalid"],
    // pedant: spec/api/nodes/complete_endpoint_spec.rb "when validating 'policy_name' field" "when policy name is invalid" "rejects the policy_name field"
    ['policy_name 42', { policy_name: 42 }, "Field 'policy_name' invalid"],
    ['policy_name of 256 characters', { policy_name: 'F'.repeat(256) }, "Field 'policy_name' invalid"],
    ['policy_name "invalid-char+"', { policy_name: 'invalid-char+' }, "Field 'policy_name' invalid"],
    // pedant: spec/api/nodes/complete_endpoint_spec.rb "when validating 'policy_group' field" "when policy name is invalid" "rejects the policy_group field"
    ['policy_group 42', { policy_group: 42 }, "Field 'policy_group' invalid"],
    ['policy_group of 256 characters', { policy_group: 'F'.repeat(256) }, "Field 'policy_group' invalid"],
    ['policy_group "invalid-char+"', { policy_group: 'invalid-char+' }, "Field 'policy_group' invalid"],
    // pedant: node_util.rb validates_node_attribute … rejects_invalid_value 1 / [] / "" ("Field '…' is not a hash")
    ['normal 1', { normal: 1 }, "Field 'normal' is not a hash"],
    ['automatic []', { automatic: [] }, "Field 'automatic' is not a hash"],
    // pedant: node_util.rb validates_run_list … rejects_invalid_value (error_message "Field 'run_list' is not a valid run list")
    ['run_list ["gibberish@1"]', { run_list: ['gibberish@1'] }, "Field 'run_list' is not a valid run list"],
    ['run_list ["role[gibberish@1.0]"]', { run_list: ['role[gibberish@1.0]'] }, "Field 'run_list' is not a valid run list"],
    ['run_list ["node[gibberish]"]', { run_list: ['node[gibberish]'] }, "Field 'run_list' is not a valid run list"],
    ['run_list {}', { run_list: {} }, "Field 'run_list' is not a valid run list"],
    // pedant: validations.rb rejects_invalid_keys
    ['top-level key "something_random"', { something_random: 'something random' }, 'Invalid key something_random in request body'],
  ];

  it.each(invalid)('rejects %s: 400 with that one message, nothing stored', async (_label, change, message) => {
    const name = uniq('testing_node');
    const res = await post(newNode(name, change));
    expect(res.status).toBe(400);
    expect(res.json.error).toEqual([message]);
    if (!('name' in change)) expect((await get(name)).status).toBe(404);
  });

  const valid: [string, Record<string, unknown>, (node: Record<string, any>) => void][] = [
    // pedant: spec/api/nodes/complete_endpoint_spec.rb "when validating 'chef_environment' field" optionally_accepts "chef_environment", with: "pedant"
    // pedant: spec/api/nodes/complete_endpoint_spec.rb "when validating 'chef_environment' field" accepts_valid_value (every valid character)
    ['chef_environment of every valid character', { chef_environment: ALL_VALID_ENV }, (n) => expect(n.chef_environment).toBe(ALL_VALID_ENV)],
    // pedant: spec/api/nodes/complete_endpoint_spec.rb "when validating 'policy_name' field" "when policy_name is valid" "accepts the policy_name field"
    ['policy_name "example-policy"', { policy_name: 'example-policy' }, (n) => expect(n.policy_name).toBe('example-policy')],
    ['policy_name of every valid character', { policy_name: ALL_VALID_POLICY }, (n) => expect(n.policy_name).toBe(ALL_VALID_POLICY)],
    // pedant: spec/api/nodes/complete_endpoint_spec.rb "when validating 'policy_group' field" "when policy_group is valid" "accepts the policy_group field"
    ['policy_group of every valid character', { policy_group: ALL_VALID_POLICY }, (n) => expect(n.policy_group).toBe(ALL_VALID_POLICY)],
    // pedant: node_util.rb validates_node_attribute "normal"/"automatic" accepts_valid_value (nil, unicode, numbers, arrays, hashes, "" key)
    ['normal with any JSON values',
      { normal: { valid_key: null, other: 'これは日本語だ', n: 1, list: [1, 2, 3], h: { a: 1, b: 2 }, 正標: 'valid value', '': 1 } },
      (n) => expect(n.normal).toEqual({ valid_key: null, other: 'これは日本語だ', n: 1, list: [1, 2, 3], h: { a: 1, b: 2 }, 正標: 'valid value', '': 1 })],
    ['automatic with any JSON values', { automatic: { valid_key: '', platform: 'ubuntu', list: ['a', 'b', 'c'] } },
      (n) => expect(n.automatic).toEqual({ valid_key: '', platform: 'ubuntu', list: ['a', 'b', 'c'] })],
    // GET answers the normalised run list (node_util.rb normalize_node).
    // pedant: common.rb test_run_list_corner_cases "with a non-normalized run list" "should persist the node with a normalized run list"
    ['a non-normalized run list', { run_list: ['foo', 'foo::bar', 'bar::baz@1.0.0', 'recipe[web]', 'role[prod]'] },
      (n) => expect(n.run_list).toEqual(['recipe[foo]', 'recipe[foo::bar]', 'recipe[bar::baz@1.0.0]', 'recipe[web]', 'role[prod]'])],
    // pedant: common.rb test_run_list_corner_cases "with a runlist that has duplicate recipes and roles" (duplicates removed)
    ['a run list with duplicates', { run_list: ['webserver', 'recipe[webserver]', 'role[prod]', 'role[prod]'] },
      (n) => expect(n.run_list).toEqual(['recipe[webserver]', 'role[prod]'])],
    // pedant: common.rb test_run_list_corner_cases "with a runlist that has implicit and explict 'default' recipes" (both remain)
    ['implicit and explicit default recipes', { run_list: ['webserver', 'webserver::default'] },
      (n) => expect(n.run_list).toEqual(['recipe[webserver]', 'recipe[webserver::default]'])],
  ];

  it.each(valid)('accepts %s (201, GET returns it)', async (_label, change, check) => {
    const name = uniq('testing_node');
    expect((await post(newNode(name, change))).status).toBe(201);
    const got = await get(name);
    expect(got.status).toBe(200);
    check(got.json);
  });

  // pedant: optionally_accepts "chef_environment" / "json_class" / "chef_type" (without the attribute → default);
  // node_util.rb validates_node_attribute / validates_run_list optionally_accepts_value default {} / [].
  it('fills defaults for the optional fields', async () => {
    const name = uniq('testing_node');
    expect((await post({ name })).status).toBe(201);
    const got = await get(name);
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({
      name,
      chef_environment: '_default',
      json_class: 'Chef::Node',
      chef_type: 'node',
      normal: {},
      default: {},
      override: {},
      automatic: {},
      run_list: [],
    });
    expect(got.json).not.toHaveProperty('policy_name');
  });

  // issue 11: "`invalid JSON` for malformed bodies"
  it('malformed JSON: 400 invalid JSON', async () => {
    const res = await post('{"name": "broken",');
    expect(res.status).toBe(400);
    expect(res.json.error).toEqual(['invalid JSON']);
  });
});

describe('PUT /nodes/<name>', () => {
  // pedant: spec/api/nodes/complete_endpoint_spec.rb "PUT /nodes/<name>" "without an existing node" should_respond_with 404
  it('404 for a node that does not exist', async () => {
    const res = await put('nonexistent_pedant_node', { json_class: 'Chef::Node', run_list: [] });
    expect(res.status).toBe(404);
    expect(res.json.error).toEqual(["node 'nonexistent_pedant_node' not found"]);
    expect((await get('nonexistent_pedant_node')).status).toBe(404);
  });

  // pedant: spec/api/nodes/complete_endpoint_spec.rb "when updating 'name' field" rejects_invalid_value …, error_message: "Node name mismatch."
  // pedant: spec/api/nodes_spec.rb "attempting to change node name on update" 'returns a 400 ("Bad Request")'
  // (pedant's other rows: 'PEDANT_NODE', every valid character)
  it.each(['pedant_node', 'node@127.0.0.1', 'Not_the_same_name'])(
    'refuses name %s in the body: 400 "Node name mismatch."',
    async (other) => {
      const node = await temporaryNode();
      const res = await put(node.name, { ...node, name: other });
      expect(res.status).toBe(400);
      expect(res.json.error).toEqual(['Node name mismatch.']);
      expect((await get(node.name)).json).toMatchObject(node);
    },
  );

  // pedant: spec/api/nodes/complete_endpoint_spec.rb "when updating 'name' field" optionally_accepts_value (without the attribute)
  it('accepts a body without "name" (the URL names the node)', async () => {
    const node = await temporaryNode();
    const res = await put(node.name, without({ ...node, normal: { a: 1 } }, 'name'));
    expect(res.status).toBe(200);
    const got = await get(node.name);
    expect(got.json.name).toBe(node.name);
    expect(got.json.normal).toEqual({ a: 1 });
  });

  const invalidUpdates: [string, Record<string, unknown>, string][] = [
    // pedant: spec/api/nodes/complete_endpoint_spec.rb PUT "when validating 'chef_environment' field" rejects_invalid_value "pedant:no_colon_in_environment_name"
    ['chef_environment "pedant:no_colon_in_environment_name"', { chef_environment: 'pedant:no_colon_in_environment_name' }, "Field 'chef_environment' invalid"],
    // pedant: spec/api/nodes/complete_endpoint_spec.rb PUT "when validating 'json_class' field" rejects_invalid_value "anything_else"
    ['json_class "anything_else"', { json_class: 'anything_else' }, "Field 'json_class' invalid"],
    // pedant: spec/api/nodes/complete_endpoint_spec.rb PUT "when validating 'policy_name' field" "rejects the policy_name field"
    ['policy_name 42', { policy_name: 42 }, "Field 'policy_name' invalid"],
    ['policy_name "invalid-char+"', { policy_name: 'invalid-char+' }, "Field 'policy_name' invalid"],
    // pedant: spec/api/nodes/complete_endpoint_spec.rb PUT "when validating 'policy_group' field" "rejects the policy_group field"
    ['policy_group of 256 characters', { policy_group: 'F'.repeat(256) }, "Field 'policy_group' invalid"],
    // pedant: node_util.rb validates_node_attribute "automatic" rejects_invalid_value []
    ['automatic []', { automatic: [] }, "Field 'automatic' is not a hash"],
    // pedant: validations.rb rejects_invalid_keys (PUT)
    ['top-level key "something_random"', { something_random: 'something random' }, 'Invalid key something_random in request body'],
  ];

  it.each(invalidUpdates)('rejects %s: 400 with that one message, node unchanged', async (_label, change, message) => {
    const node = await temporaryNode();
    const res = await put(node.name, { ...node, ...change });
    expect(res.status).toBe(400);
    expect(res.json.error).toEqual([message]);
    expect((await get(node.name)).json).toMatchObject(node);
  });

  // pedant: spec/api/nodes/complete_endpoint_spec.rb PUT "when validating 'policy_name' field" / "'policy_group' field" "when … is valid" "accepts the … field"
  it('accepts policy_name and policy_group (200) and GET returns them', async () => {
    const node = await temporaryNode();
    const res = await put(node.name, newNode(node.name, { policy_name: 'example-policy', policy_group: ALL_VALID_POLICY }));
    expect(res.status).toBe(200);
    const got = await get(node.name);
    expect(got.status).toBe(200);
    expect(got.json.policy_name).toBe('example-policy');
    expect(got.json.policy_group).toBe(ALL_VALID_POLICY);
  });

  // pedant: spec/api/nodes/complete_endpoint_spec.rb PUT "with a canonical payload" "updates the node"
  it('updates the node with a canonical payload: 200, the body and later GETs show the change', async () => {
    const node = await temporaryNode();
    const before = await get(node.name);
    expect(before.json).toMatchObject({ name: node.name, default: {} });
    const res = await put(node.name, { default: { foo: 'bar' }, json_class: 'Chef::Node' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ name: node.name, default: { foo: 'bar' } });
    const after = await get(node.name);
    expect(after.status).toBe(200);
    expect(after.json).toMatchObject({ name: node.name, default: { foo: 'bar' } });
  });
});

describe('DELETE /nodes/<name>', () => {
  // pedant: spec/api/nodes/complete_endpoint_spec.rb "using DELETE" "to a node that already exists" "succeeds"
  it('deletes an existing node: 200 and the node', async () => {
    const node = await temporaryNode();
    const res = await del(node.name);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject(node);
    expect((await get(node.name)).status).toBe(404);
  });

  // pedant: spec/api/nodes/complete_endpoint_spec.rb "using DELETE" "to a node that does not exist" "fails"
  it('404 with Chef\'s message for a node that does not exist', async () => {
    const res = await del('nonexistent_pedant_node');
    expect(res.status).toBe(404);
    expect(res.json.error).toEqual(["node 'nonexistent_pedant_node' not found"]);
  });
});
