/**
 * oc-chef-pedant, ported: API clients on the organization routes (Server API v1+, the harness default is 2).
 * Source: chef/chef-server oc-chef-pedant/spec/api/clients/complete_endpoint_spec.rb ("Client API endpoint"),
 * spec/api/clients/account_client_spec.rb ("Client Creation"), helpers lib/pedant/rspec/client_util.rb.
 * Actors: pedant's org admin → 'admin'; "normal client" → 'client:<name>'; "validator client" → 'validator'
 * (the organization's `<org>-validator`). The seeded demo organization is used (it has the validator).
 * Expectations: docs/pedant-notes.md.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChefHarness, type ChefHarness, type ChefActor } from '@/test/chef-harness';
import { PRIVATE_KEY_PEM, PUBLIC_KEY_PEM, keyPair, signedRequest, uniq } from '@/test/chef-pedant-helpers';

let chef: ChefHarness;
let validatorName: string;

beforeAll(async () => {
  chef = await startChefHarness();
  validatorName = `${chef.org}-validator`;
  await chef.privateKey('validator'); // the validator exists (created on first use)
});

afterAll(async () => {
  await chef?.close();
});

const admin = 'admin' as const;

/** pedant client_util.rb `new_client(name, validator:)` — the v1+ GET body (no public_key). */
function clientBody(name: string, validator = false) {
  return { name, clientname: name, chef_type: 'client', orgname: chef.org, json_class: 'Chef::ApiClient', validator };
}

/** pedant "with temporary testing client": created by the admin with create_key (v1+). */
async function temporaryClient(validator = false): Promise<{ name: string; privateKey: string }> {
  const name = uniq('temporary_client');
  const res = await chef.request('POST', 'clients', { as: admin, body: { name, validator, create_key: true } });
  expect(res.status).toBe(201);
  return { name, privateKey: res.json.chef_key.private_key };
}

describe('GET /clients', () => {
  // pedant: spec/api/clients/complete_endpoint_spec.rb "GET /clients" "as an admin user" "with only Pedant-created clients" (name → uri)
  it('lists clients as name → uri, the validator included', async () => {
    const { name } = await temporaryClient();
    const res = await chef.request('GET', 'clients', { as: admin });
    expect(res.status).toBe(200);
    expect(res.json[validatorName]).toBe(`${chef.orgUrl}/clients/${validatorName}`);
    expect(res.json[name]).toBe(`${chef.orgUrl}/clients/${name}`);
    for (const [n, uri] of Object.entries(res.json)) expect(uri).toBe(`${chef.orgUrl}/clients/${n}`);
  });
});

describe('POST /clients', () => {
  // pedant: client_util.rb create_client_success_response (server_api_version > 0) — "valid requests … with a valid name like '…'"
  // (pedant's other valid names: 'pedanttestingclient', 'pedanttestingclient123')
  it.each(['pedant_testing_client', 'pedant.testing.client'])(
    'creates %s with create_key: 201 {uri, chef_key} exactly',
    async (base) => {
      const name = `${base}${Math.floor(Math.random() * 1e6)}`;
      const res = await chef.request('POST', 'clients', { as: admin, body: { name, validator: false, create_key: true } });
      expect(res.status).toBe(201);
      const uri = `${chef.orgUrl}/clients/${name}`;
      expect(res.json).toStrictEqual({
        uri,
        chef_key: {
          name: 'default',
          expiration_date: 'infinity',
          uri: `${uri}/keys/default`,
          private_key: expect.stringMatching(PRIVATE_KEY_PEM),
          public_key: expect.stringMatching(PUBLIC_KEY_PEM),
        },
      });
      // issue 11: "a Location header on 201"
      expect(res.headers.get('location')).toBe(uri);
      // the returned private key authenticates the new client
      const asNew = await signedRequest(chef, 'GET', 'policies', { userId: name, privateKey: res.json.chef_key.private_key });
      expect(asNew.status).toBe(200);
    },
  );

  // pedant: spec/api/clients/complete_endpoint_spec.rb "invalid requests of various types to create a client" "with an invalid name like '…'" "fails"
  it.each(['pedant$testing$client', 'pedant testing client', 'pedant{testing}client'])('refuses the name %s: 400', async (name) => {
    const res = await chef.request('POST', 'clients', { as: admin, body: { name, validator: false, create_key: true } });
    expect(res.status).toBe(400);
    expect(res.json.error).toEqual([
      `Invalid client name '${name}' using regex: 'Malformed client name.  Must be A-Z, a-z, 0-9, _, -, or .'.`,
    ]);
  });

  // pedant: spec/api/clients/complete_endpoint_spec.rb "with an empty payload" "fails"
  it('refuses an empty payload: 400 Field \'name\' missing', async () => {
    const res = await chef.request('POST', 'clients', { as: admin, body: {} });
    expect(res.status).toBe(400);
    expect(res.json.error).toEqual(["Field 'name' missing"]);
  });

  // pedant: spec/api/clients/complete_endpoint_spec.rb "creation of an existing client" (create_client_conflict_response)
  it('refuses an existing name: 409 Client already exists', async () => {
    const { name } = await temporaryClient();
    const res = await chef.request('POST', 'clients', { as: admin, body: { name, validator: false, create_key: true } });
    expect(res.status).toBe(409);
    expect(res.json.error).toEqual(['Client already exists']);
  });

  // pedant: client_util.rb should_create_public_key "when setting public_key" "should respond with 201 and create the client"
  it('creates a client with a given public_key: 201, no private key anywhere, the key authenticates', async () => {
    const name = uniq('pedant_test');
    const kp = keyPair();
    const res = await chef.request('POST', 'clients', { as: admin, body: { name, validator: false, public_key: kp.publicKey } });
    expect(res.status).toBe(201);
    expect(res.json.uri).toBe(`${chef.orgUrl}/clients/${name}`);
    expect(res.text).not.toMatch(/PRIVATE KEY/);
    expect(res.json.chef_key).toMatchObject({ name: 'default', expiration_date: 'infinity', public_key: kp.publicKey });
    const got = await chef.request('GET', `clients/${name}`, { as: admin });
    expect(got.status).toBe(200);
    expect(got.json).toStrictEqual(clientBody(name));
    const key = await chef.request('GET', `clients/${name}/keys/default`, { as: admin });
    expect(key.json.public_key).toBe(kp.publicKey);
    const asNew = await signedRequest(chef, 'GET', 'policies', { userId: name, privateKey: kp.privateKey });
    expect(asNew.status).toBe(200);
  });

  // pedant: client_util.rb should_create_public_key "with a bad public_key [v1+]" rejects_public_key_on_create_with … "and does not create the client"
  it.each<[string, unknown]>([
    // (pedant's other rows: mal-formed RSA, mal-formed cert, [] — all 400)
    ['well-formed, bogus (private key)', keyPair('bogus').privateKey],
    ['mal-formed', '-----BEGIN PUBLIC KEY-----You have been trolled :-)-----END PUBLIC KEY-----'],
    ['blank', ''],
    ['1 for the', 1],
  ])('refuses a %s public key: 400, nothing created', async (_label, publicKey) => {
    const name = uniq('pedant_test');
    const res = await chef.request('POST', 'clients', { as: admin, body: { name, validator: false, public_key: publicKey } });
    expect(res.status).toBe(400);
    expect((await chef.request('GET', `clients/${name}`, { as: admin })).status).toBe(404);
  });

  describe('as different kinds of clients (pedant "as different kinds of clients")', () => {
    // pedant: spec/api/clients/complete_endpoint_spec.rb "as an org admin" should_create_client_when validator: false / true
    it.each([false, true])('the org admin creates a client with validator: %s (201, GET shows it)', async (validator) => {
      const name = uniq('testclient');
      const res = await chef.request('POST', 'clients', { as: admin, body: { name, validator, create_key: true } });
      expect(res.status).toBe(201);
      const got = await chef.request('GET', `clients/${name}`, { as: admin });
      expect(got.status).toBe(200);
      expect(got.json).toStrictEqual(clientBody(name, validator));
    });

    // pedant: spec/api/clients/complete_endpoint_spec.rb "as a validator client" should_create_client_when validator: false
    it('the validator creates a normal client (201)', async () => {
      const name = uniq('testclient');
      const res = await chef.request('POST', 'clients', { as: 'validator', body: { name, validator: false, create_key: true } });
      expect(res.status).toBe(201);
      const got = await chef.request('GET', `clients/${name}`, { as: admin });
      expect(got.json).toStrictEqual(clientBody(name));
    });

    // pedant: spec/api/clients/complete_endpoint_spec.rb "as a validator client" should_not_create_client_when validator: true
    // pedant: "as client" should_not_create_client_when validator: false / true; account_client_spec.rb "by a non-validator client" "cannot create a client"
    it.each<[string, ChefActor, boolean]>([
      ['the validator, a validator client', 'validator', true],
      ['a normal client, a normal client', 'client:pedant_normal_client', false],
      ['a normal client, a validator client', 'client:pedant_normal_client', true],
    ])('%s: 403, nothing created', async (_label, actor, validator) => {
      const name = uniq('testclient');
      const res = await chef.request('POST', 'clients', { as: actor, body: { name, validator, create_key: true } });
      expect(res.status).toBe(403);
      // erchef: a normal client fails the create check ("missing create permission"); the validator creating a validator
      // is refused by oc_chef_wm_base:create_in_container without that message, so only the client rows check it.
      if (actor !== 'validator') expect(res.json.error).toEqual(['missing create permission']);
      expect((await chef.request('GET', `clients/${name}`, { as: admin })).status).toBe(404);
    });

    // chef-client's first run (toolchain README): the validator POSTs the public key chef-client generated, with
    // X-Ops-Server-API-Version 0. pedant client_util.rb should_create_public_key (API v0): 201 with public_key, no private_key.
    it('the validator registers a node client with API v0 and its own public key (chef-client registration)', async () => {
      const name = uniq('node_client');
      const kp = keyPair();
      const res = await chef.request('POST', 'clients', {
        as: 'validator',
        apiVersion: 0,
        body: { name, admin: false, public_key: kp.publicKey },
      });
      expect(res.status).toBe(201);
      expect(res.json.uri).toBe(`${chef.orgUrl}/clients/${name}`);
      expect(res.json.public_key).toBe(kp.publicKey);
      expect(res.json).not.toHaveProperty('private_key');
      const asNew = await signedRequest(chef, 'GET', 'policies', { userId: name, privateKey: kp.privateKey });
      expect(asNew.status).toBe(200);
    });
  });
});

describe('GET /clients/<name>', () => {
  // pedant: spec/api/clients/complete_endpoint_spec.rb "GET /clients/<name>" "without an existing client"
  it('404 for a client that does not exist', async () => {
    const res = await chef.request('GET', 'clients/non-existent', { as: admin });
    expect(res.status).toBe(404);
    // erchef chef_wm_util:not_found_message(client, Name) (pedant checks the status only)
    expect(res.json.error).toEqual(['Cannot load client non-existent']);
  });

  // pedant: spec/api/clients/complete_endpoint_spec.rb "as an org admin" with_another_validator_client / with_another_normal_client should_fetch_client
  it.each([false, true])('the org admin fetches a client with validator: %s', async (validator) => {
    const { name } = await temporaryClient(validator);
    const res = await chef.request('GET', `clients/${name}`, { as: admin });
    expect(res.status).toBe(200);
    expect(res.json).toStrictEqual(clientBody(name, validator));
  });

  // pedant: spec/api/clients/complete_endpoint_spec.rb "as client" / "as a validator client" / "as a normal client" forbids_fetching (another client)
  it.each<[string, ChefActor]>([
    ['a normal client', 'client:pedant_normal_client'],
    ['the validator', 'validator'],
  ])('%s may not fetch another client: 403 missing read permission', async (_label, actor) => {
    const { name } = await temporaryClient();
    const res = await chef.request('GET', `clients/${name}`, { as: actor });
    expect(res.status).toBe(403);
    expect(res.json.error).toEqual(['missing read permission']);
  });

  // pedant: spec/api/clients/complete_endpoint_spec.rb "as a validator client" with_self forbids_fetching
  it('the validator may not fetch itself: 403', async () => {
    expect((await chef.request('GET', `clients/${validatorName}`, { as: 'validator' })).status).toBe(403);
  });

  // pedant: spec/api/clients/complete_endpoint_spec.rb "as a normal client" with_self should_fetch_client (Chef's default: a client reads itself).
  it('a normal client reads itself: 200', async () => {
    const res = await chef.request('GET', 'clients/pedant_self_client', { as: 'client:pedant_self_client' });
    expect(res.status).toBe(200);
    expect(res.json).toStrictEqual(clientBody('pedant_self_client'));
  });
});

describe('PUT /clients/<name>', () => {
  // pedant: spec/api/clients/complete_endpoint_spec.rb "PUT /clients/<name>" "modifying a non-existent client"
  it('404 for a client that does not exist', async () => {
    const res = await chef.request('PUT', 'clients/non-existent', { as: admin, body: { name: 'non-existent' } });
    expect(res.status).toBe(404);
  });

  // pedant: spec/api/clients/complete_endpoint_spec.rb "as an admin requestor" with_another_normal_client should_update_client_when validator: false / true
  it.each([false, true])('the org admin updates a client to validator: %s (200, GET shows it)', async (validator) => {
    const { name } = await temporaryClient();
    const res = await chef.request('PUT', `clients/${name}`, { as: admin, body: { name, validator } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ name, validator });
    const got = await chef.request('GET', `clients/${name}`, { as: admin });
    expect(got.json).toStrictEqual(clientBody(name, validator));
  });

  // pedant: client_util … should_rename_client "to an unclaimed name" should_respond_with 201 "and rename the client"
  it('the org admin renames a client to a free name: 201, Location, old name gone', async () => {
    const { name } = await temporaryClient();
    const newName = `${name}_new`;
    const res = await chef.request('PUT', `clients/${name}`, { as: admin, body: { name: newName } });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`${chef.orgUrl}/clients/${newName}`);
    expect((await chef.request('GET', `clients/${name}`, { as: admin })).status).toBe(404);
    const got = await chef.request('GET', `clients/${newName}`, { as: admin });
    expect(got.status).toBe(200);
    expect(got.json).toStrictEqual(clientBody(newName));
  });

  // pedant: client_util … should_rename_client "to an existing name" should_respond_with 409 "and does not rename the client"
  it('the org admin renames a client onto an existing name: 409, nothing renamed', async () => {
    const a = await temporaryClient();
    const b = await temporaryClient();
    const res = await chef.request('PUT', `clients/${a.name}`, { as: admin, body: { name: b.name } });
    expect(res.status).toBe(409);
    expect(res.json.error).toEqual(['Client already exists']);
    expect((await chef.request('GET', `clients/${a.name}`, { as: admin })).status).toBe(200);
  });

  // pedant: client_util.rb should_update_public_key "with a bad public_key [v1+]" (400). In Server API v1+ erchef refuses
  // every key field on PUT /clients/:name (chef_key_base:validate_public_key_fields update → key_management_not_supported).
  it('refuses a public_key on PUT in API v1+: 400 (keys are managed through /keys)', async () => {
    const { name } = await temporaryClient();
    const res = await chef.request('PUT', `clients/${name}`, { as: admin, body: { name, public_key: keyPair().publicKey } });
    expect(res.status).toBe(400);
    expect(res.json.error).toEqual(['Since Server API v1, all keys must be updated via the keys endpoint. ']);
  });

  // pedant: spec/api/clients/complete_endpoint_spec.rb "as a validator client" / "as a normal client" forbids_update_when, forbids_renaming
  it.each<[string, ChefActor, Record<string, unknown>]>([
    ['the validator updating another client', 'validator', { validator: true }],
    ['a normal client renaming another client', 'client:pedant_normal_client', { name: 'renamed_by_client' }],
  ])('%s: 403 missing update permission, client unchanged', async (_label, actor, change) => {
    const { name } = await temporaryClient();
    const res = await chef.request('PUT', `clients/${name}`, { as: actor, body: { name, ...change } });
    expect(res.status).toBe(403);
    expect(res.json.error).toEqual(['missing update permission']);
    const got = await chef.request('GET', `clients/${name}`, { as: admin });
    expect(got.json).toStrictEqual(clientBody(name));
  });

  // pedant: spec/api/clients/complete_endpoint_spec.rb "as a validator client" with_self forbids_update_when validator: true / false, forbids_renaming
  it('the validator may not update itself: 403', async () => {
    const res = await chef.request('PUT', `clients/${validatorName}`, { as: 'validator', body: { name: validatorName, validator: false } });
    expect(res.status).toBe(403);
    const got = await chef.request('GET', `clients/${validatorName}`, { as: admin });
    expect(got.json.validator).toBe(true);
  });
});

describe('DELETE /clients/<name>', () => {
  // pedant: spec/api/clients/complete_endpoint_spec.rb "DELETE /clients/<name>" "without an existing client"
  it('404 for a client that does not exist', async () => {
    expect((await chef.request('DELETE', 'clients/non-existent', { as: admin })).status).toBe(404);
  });

  // pedant: spec/api/clients/complete_endpoint_spec.rb "as an org admin" with_another_validator_client / with_another_normal_client should_delete_client
  it.each([false, true])('the org admin deletes a client with validator: %s (200, the client)', async (validator) => {
    const { name } = await temporaryClient(validator);
    const res = await chef.request('DELETE', `clients/${name}`, { as: admin });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ name });
    expect((await chef.request('GET', `clients/${name}`, { as: admin })).status).toBe(404);
  });

  // pedant: spec/api/clients/complete_endpoint_spec.rb "as a validator client" / "as a normal client" forbids_deletion (another client, validator self)
  it.each<[string, ChefActor, 'other' | 'validator']>([
    ['the validator deleting another client', 'validator', 'other'],
    ['the validator deleting itself', 'validator', 'validator'],
    ['a normal client deleting another client', 'client:pedant_normal_client', 'other'],
  ])('%s: 403 missing delete permission', async (_label, actor, target) => {
    const name = target === 'validator' ? validatorName : (await temporaryClient()).name;
    const res = await chef.request('DELETE', `clients/${name}`, { as: actor });
    expect(res.status).toBe(403);
    expect(res.json.error).toEqual(['missing delete permission']);
    expect((await chef.request('GET', `clients/${name}`, { as: admin })).status).toBe(200);
  });

  // pedant: spec/api/clients/complete_endpoint_spec.rb "as a normal client" with_self should_delete_client (Chef's default: a client deletes itself).
  it('a normal client deletes itself: 200', async () => {
    const actor = 'client:pedant_doomed_client' as const;
    expect((await chef.request('GET', 'policies', { as: actor })).status).toBe(200); // creates the client
    const res = await chef.request('DELETE', 'clients/pedant_doomed_client', { as: actor });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ name: 'pedant_doomed_client' });
    expect((await chef.request('GET', 'clients/pedant_doomed_client', { as: admin })).status).toBe(404);
  });
});
