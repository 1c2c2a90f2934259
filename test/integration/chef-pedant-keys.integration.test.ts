/**
 * oc-chef-pedant, ported: user keys (`/users/:user/keys`, and the read-only `/organizations/:org/users/:user/keys`)
 * and client keys (`/organizations/:org/clients/:client/keys`).
 * Source: chef/chef-server oc-chef-pedant/spec/api/keys/user_keys_spec.rb, spec/api/keys/client_keys_spec.rb,
 * helpers lib/pedant/rspec/keys_util.rb ("basic keys POST validation", "basic keys PUT validation", "PUT like a PATCH").
 * Actors: pedant's org user → 'ops' (manages its own keys), another user in the org → 'viewer' (pedant's "normal user"),
 * org admin → 'admin', org client → 'client:<name>'; pedant's superuser has no console counterpart (the user itself
 * or the admin acts instead, as noted per example). The seeded demo organization is used.
 * Keys are signed with by hand (test/chef-pedant-helpers.ts signedRequest, protocol 1.3) where pedant authenticates
 * with a key made during the example.
 * Expectations: docs/pedant-notes.md.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useChefHarness, type ChefActor } from '@/test/chef-harness';
import {
  EXPIRED_DATE,
  PRIVATE_KEY_PEM,
  PUBLIC_KEY_PEM,
  UNEXPIRED_DATE,
  UNEXPIRED_DATE_2,
  errorText,
  keyPair,
  oneYearFromNow,
  signedRequest,
  uniq,
} from '@/test/chef-pedant-helpers';

const chef = useChefHarness();

const USER = 'ops';
const userKeys = `/users/${USER}/keys`;
const userKeyUri = (name: string) => `${chef.url}/users/${USER}/keys/${name}`;

/** keys_util.rb `add_key_body` / the `key_payload` of the "managing keys" contexts. */
function keyPayload(name: string, opts: { expires?: string; create?: boolean; kp?: ReturnType<typeof keyPair> } = {}) {
  const body: Record<string, unknown> = { name, expiration_date: opts.expires ?? 'infinity' };
  if (opts.create) body.create_key = true;
  // One shared key pair serves every payload that is never signed with (key generation is slow on a busy machine).
  else body.public_key = (opts.kp ?? keyPair('payload')).publicKey;
  return body;
}

/** Adds a key to the user 'ops' as 'ops' and returns its key pair (a fresh one unless given). */
async function addUserKey(name: string, expires?: string, kp = keyPair()) {
  const res = await chef.request('POST', userKeys, { as: USER, body: keyPayload(name, { expires, kp }) });
  expect(res.status).toBe(201);
  return kp;
}

/** A client made by the admin with a known default key; returns its name and key pair. */
async function orgClient() {
  const name = uniq('pedant-keys-client');
  const kp = keyPair();
  const res = await chef.request('POST', 'clients', { as: 'admin', body: { name, public_key: kp.publicKey } });
  expect(res.status).toBe(201);
  return { name, kp };
}

// ---------------------------------------------------------------------------------------------------------------
// keys_util.rb "basic keys POST validation", run against /users/ops/keys (as the user itself) and
// /organizations/:org/clients/:client/keys (as the org admin). pedant checks the status only.
const postValidation: [string, (p: Record<string, unknown>) => void][] = [
  // (pedant also has: name empty, date empty, date missing, public key missing — same 400)
  ['when name is invalid', (p) => (p.name = 'key the first')],
  ['when name is missing', (p) => delete p.name],
  ['when date is invalid', (p) => (p.expiration_date = '2010-09-32T10:00:00Z')],
  ['when public key is not a valid key', (p) => (p.public_key = 'Nope.')],
  ['when both a public_key and create_key are present', (p) => (p.create_key = true)],
];

describe('POST /users/:user/keys', () => {
  // pedant: keys_util.rb "basic keys POST validation" "#{desc} it responds with 400"
  it.each(postValidation)('%s it responds with 400', async (_label, change) => {
    const body = keyPayload(uniq('key'));
    change(body);
    const res = await chef.request('POST', userKeys, { as: USER, body });
    expect(res.status).toBe(400);
    expect(Array.isArray(res.json.error) || typeof res.json.error === 'string').toBe(true);
  });

  // pedant: keys_util.rb "basic keys POST validation" "when a key of the same name already exists" "responds with 409"
  // (pedant reuses the user's "default" key; the console's demo user keys may be named otherwise, so a key is made first)
  it('responds with 409 when a key of the same name already exists', async () => {
    const name = uniq('dup');
    await addUserKey(name);
    const res = await chef.request('POST', userKeys, { as: USER, body: keyPayload(name) });
    expect(res.status).toBe(409);
    // erchef oc_chef_wm_keys:conflict_message (a string there; pedant does not check the text)
    expect(errorText(res)).toBe(`a key with the name '${name}' already exists for this actor.`);
  });

  // pedant: keys_util.rb "when all fields are present and valid" "should create a key with proper response and Location header"
  // and "and infinity date is specfied it should still create a key with proper response and Location header"
  it('creates a key: 201 {uri} exactly and Location', async () => {
    const name = uniq('key');
    const res = await chef.request('POST', userKeys, { as: USER, body: keyPayload(name, { expires: UNEXPIRED_DATE }) });
    expect(res.status).toBe(201);
    expect(res.json).toStrictEqual({ uri: userKeyUri(name) });
    expect(res.headers.get('location')).toBe(userKeyUri(name));
  });

  // pedant: keys_util.rb "when 'create_key' : true is specified in lieu of public key it should generate a new private key and reply with it in the body"
  // pedant: user_keys_spec.rb "when a key has been generated for a user" "should be able to authenticate with the generated key"
  it('create_key true: 201 {uri, private_key}, and the generated key authenticates', async () => {
    const name = uniq('genkey');
    const res = await chef.request('POST', userKeys, { as: USER, body: keyPayload(name, { create: true }) });
    expect(res.status).toBe(201);
    expect(res.json).toStrictEqual({ uri: userKeyUri(name), private_key: expect.stringMatching(PRIVATE_KEY_PEM) });
    const auth = await signedRequest(chef, 'GET', userKeys, { userId: USER, privateKey: res.json.private_key });
    expect(auth.status).toBe(200);
  });

  // pedant: user_keys_spec.rb "posting keys to /users/user" "for a user that doesn't exist it should respond with 404"
  it("404 for a user that doesn't exist", async () => {
    const res = await chef.request('POST', '/users/bob/keys', { as: 'admin', body: keyPayload(uniq('key')) });
    expect(res.status).toBe(404);
  });

  // pedant: user_keys_spec.rb "POST /users/:user/keys as..." (the user itself succeeds; an org admin of a member org fails
  // with 403; an org client fails with 401; an invalid user fails with 401)
  it.each<[string, ChefActor, number]>([
    ['the user itself succeeds', USER, 201],
    // The console's admins are Chef's superuser for users' keys (pedant's "the superuser succeeds"; Chef's org admins, which the console has not, fail).
    ['the admin (Chef superuser) succeeds', 'admin', 201],
    ['an org client fails with 401', 'client:pedant_org_client', 401],
  ])('%s', async (_label, actor, status) => {
    const name = uniq('key');
    const res = await chef.request('POST', userKeys, { as: actor, body: keyPayload(name) });
    expect(res.status).toBe(status);
    if (status !== 201) {
      const list = await chef.request('GET', userKeys, { as: USER });
      expect(list.json.map((k: { name: string }) => k.name)).not.toContain(name);
    }
  });

  // pedant: user_keys_spec.rb "posting keys to /orgs/org/users/user/keys" "should return a 405"
  it('POST to the org-scoped /organizations/:org/users/:user/keys: 405', async () => {
    const res = await chef.request('POST', `users/${USER}/keys`, { as: USER, body: keyPayload(uniq('key')) });
    expect(res.status).toBe(405);
  });
});

describe('listing and reading user keys', () => {
  // pedant: user_keys_spec.rb "GET /users/user/keys" "when multiple keys are present" (key1 unexpired, key2 expired)
  let key1: string;
  let key2: string;
  let kp1: ReturnType<typeof keyPair>;
  let kp2: ReturnType<typeof keyPair>;

  beforeAll(async () => {
    key1 = uniq('key1');
    key2 = uniq('key2');
    kp1 = await addUserKey(key1, UNEXPIRED_DATE);
    kp2 = await addUserKey(key2, EXPIRED_DATE);
  });

  // pedant: user_keys_spec.rb "when GET /users/user/keys is called (list keys)" "all keys should be listed with correct expiry indicators"
  it('GET /users/:user/keys lists the keys with uri and expired', async () => {
    const res = await chef.request('GET', userKeys, { as: USER });
    expect(res.status).toBe(200);
    expect(res.json).toEqual(
      expect.arrayContaining([
        { name: key1, uri: userKeyUri(key1), expired: false },
        { name: key2, uri: userKeyUri(key2), expired: true },
      ]),
    );
    for (const k of res.json) expect(Object.keys(k).sort()).toEqual(['expired', 'name', 'uri']);
  });

  // pedant: user_keys_spec.rb "when GET /users/user/keys/key is called (get single key)" "should properly return the first/second custom key with valid expiration"
  it('GET /users/:user/keys/:key returns name, public_key and expiration_date', async () => {
    const one = await chef.request('GET', `${userKeys}/${key1}`, { as: USER });
    expect(one.status).toBe(200);
    expect(one.json).toStrictEqual({ name: key1, public_key: kp1.publicKey, expiration_date: UNEXPIRED_DATE });
    const two = await chef.request('GET', `${userKeys}/${key2}`, { as: USER });
    expect(two.json).toStrictEqual({ name: key2, public_key: kp2.publicKey, expiration_date: EXPIRED_DATE });
  });

  // pedant: user_keys_spec.rb "GET /organizations/organization/users/user/keys" "successful user key get" (a user that is a
  // member of the same org): org-scoped list, uris under the org
  it('GET /organizations/:org/users/:user/keys by another org member lists org-scoped uris', async () => {
    const res = await chef.request('GET', `users/${USER}/keys`, { as: 'viewer' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual(
      expect.arrayContaining([
        { name: key1, uri: `${chef.orgUrl}/users/${USER}/keys/${key1}`, expired: false },
        { name: key2, uri: `${chef.orgUrl}/users/${USER}/keys/${key2}`, expired: true },
      ]),
    );
    const one = await chef.request('GET', `users/${USER}/keys/${key1}`, { as: 'viewer' });
    expect(one.status).toBe(200);
    expect(one.json).toStrictEqual({ name: key1, public_key: kp1.publicKey, expiration_date: UNEXPIRED_DATE });
  });

  // pedant: user_keys_spec.rb "GET /users/user/keys" — by the user itself 200, by an org admin 200, by an org member who
  // is not an admin 403, by an org client 401, for a user who isn't valid 404, by an invalid user 401
  it.each<[string, ChefActor, string, number]>([
    ['the org admin (member of the same org): 200', 'admin', userKeys, 200],
    ['an org member who is not an admin: 403', 'viewer', userKeys, 403],
    ['single key, an org client: 401', 'client:pedant_org_client', `${userKeys}/KEY1`, 401],
    ['for a user who does not exist: 404', USER, '/users/bob/keys', 404],
  ])('GET %s', async (_label, actor, path, status) => {
    const res = await chef.request('GET', path.replace('KEY1', key1), { as: actor });
    expect(res.status).toBe(status);
  });

  // erchef oc_chef_wm_named_key key_not_found_response (a string `error` there; pedant checks the status only)
  it('GET of a key that does not exist: 404', async () => {
    const res = await chef.request('GET', `${userKeys}/badkey`, { as: USER });
    expect(res.status).toBe(404);
    expect(errorText(res)).toBe(`There is no key named badkey associated with ${USER}.`);
  });
});

describe('authenticating with user keys', () => {
  // pedant: user_keys_spec.rb "when a user key has an expiration date and isn't expired" "should authenticate against the key"
  it('a key expiring in a year authenticates', async () => {
    const kp = await addUserKey(uniq('key'), oneYearFromNow());
    expect((await signedRequest(chef, 'GET', userKeys, { userId: USER, privateKey: kp.privateKey })).status).toBe(200);
  });

  // pedant: user_keys_spec.rb "when a key is expired for a user" "should fail against the expired key" / "should succeed against other keys"
  it('an expired key fails with 401; the other keys still work', async () => {
    const expired = await addUserKey(uniq('key'), '2012-12-24T21:00:00Z');
    expect((await signedRequest(chef, 'GET', userKeys, { userId: USER, privateKey: expired.privateKey })).status).toBe(401);
    expect((await chef.request('GET', userKeys, { as: USER })).status).toBe(200);
  });

  // pedant: user_keys_spec.rb "when a key is deleted for a user" "should no longer be returned by the keys API" / "should still contain other keys"
  // pedant: user_keys_spec.rb "when the default key has been changed via the keys API" "should break for original default key"
  it('a deleted key is no longer listed and no longer authenticates', async () => {
    const name = uniq('key');
    const kp = await addUserKey(name);
    expect((await chef.request('DELETE', `${userKeys}/${name}`, { as: USER })).status).toBe(200);
    const list = await chef.request('GET', userKeys, { as: USER });
    expect(list.json.map((k: { name: string }) => k.name)).not.toContain(name);
    expect(list.json.length).toBeGreaterThan(0);
    expect((await signedRequest(chef, 'GET', userKeys, { userId: USER, privateKey: kp.privateKey })).status).toBe(401);
  });
});

describe('PUT /users/:user/keys/:key', () => {
  const put = (name: string, body: unknown, as: ChefActor = USER) => chef.request('PUT', `${userKeys}/${name}`, { as, body });

  // pedant: keys_util.rb "PUT like a PATCH" "when only name is present and is changed, responds with 201 and a Location header"
  it('renaming only: 201, body exactly the fields sent, Location of the new name', async () => {
    const name = await freshKey();
    const renamed = uniq('altname1');
    const res = await put(name, { name: renamed });
    expect(res.status).toBe(201);
    expect(res.json).toStrictEqual({ name: renamed });
    expect(res.headers.get('location')).toBe(userKeyUri(renamed));
    expect((await chef.request('GET', `${userKeys}/${renamed}`, { as: USER })).status).toBe(200);
    expect((await chef.request('GET', `${userKeys}/${name}`, { as: USER })).status).toBe(404);
  });

  // pedant: keys_util.rb "PUT like a PATCH" "when only name is present and has not been changed" /
  // "should only update public_key when that is the only provided field" / "should only update expiration date when that is the only provided field"
  it.each<[string, (name: string) => Record<string, unknown>]>([
    ['a public_key', () => ({ public_key: keyPair('put-alt').publicKey })],
    ['an expiration_date', () => ({ expiration_date: UNEXPIRED_DATE_2 })],
  ])('%s only: 200, body exactly the fields sent, no Location, other fields kept', async (_label, body) => {
    const name = await freshKey();
    const before = (await chef.request('GET', `${userKeys}/${name}`, { as: USER })).json;
    const payload = body(name);
    const res = await put(name, payload);
    expect(res.status).toBe(200);
    expect(res.json).toStrictEqual(payload);
    expect(res.headers.get('location')).toBeNull();
    const after = await chef.request('GET', `${userKeys}/${name}`, { as: USER });
    expect(after.json).toStrictEqual({ ...before, ...payload });
  });

  // pedant: keys_util.rb "basic keys PUT validation" "when 'create_key' : true is specified in lieu of public key it should generate a new private key …"
  it('create_key true: 200 with the new public_key and private_key only', async () => {
    const name = await freshKey();
    const res = await put(name, { create_key: true });
    expect(res.status).toBe(200);
    expect(res.json).toStrictEqual({
      public_key: expect.stringMatching(PUBLIC_KEY_PEM),
      private_key: expect.stringMatching(PRIVATE_KEY_PEM),
    });
  });

  // pedant: keys_util.rb "basic keys PUT validation" "when PUT body is empty it should fail with a 400"
  it('an empty body: 400', async () => {
    const name = await freshKey();
    const res = await put(name, {});
    expect(res.status).toBe(400);
    // erchef oc_chef_wm_named_key (a string `error` there; pedant checks the status only)
    expect(errorText(res)).toBe("At least one of 'name', 'expiration_date', or 'public_key' must be specified");
  });

  // pedant: keys_util.rb "basic keys PUT validation" "#{desc} it responds with #{code}" (the payload is the full key_payload with one change)
  it.each<[string, Record<string, unknown>, number]>([
    // (pedant also has: name empty, date empty, public key empty — 400; create_key false alongside a public key — 200)
    ['when name is invalid', { name: 'key the first' }, 400],
    ['when date is invalid', { expiration_date: '2010-09-32T10:00:00' }, 400],
    ['when public key is invalid', { public_key: 'Nope.' }, 400],
    ['when a key of the same name already exists', { name: 'EXISTING' }, 409],
    ['when both a public_key and create_key are present', { create_key: true }, 400],
  ])('%s (%o): responds with %i', async (_label, change, status) => {
    const name = await freshKey();
    const existing = await freshKey();
    const payload = { ...keyPayload(name, { expires: '2100-12-31T23:59:59Z' }), ...change };
    if (payload.name === 'EXISTING') payload.name = existing;
    const res = await put(name, payload);
    expect(res.status).toBe(status);
  });

  // pedant: user_keys_spec.rb "PUT /users/:user/keys/:key" "and the user does not exist it fails with a 404" / "and the key does not exist it fails with a 404"
  it('404 when the key does not exist', async () => {
    const res = await chef.request('PUT', `${userKeys}/badkey`, { as: USER, body: keyPayload('alt_key') });
    expect(res.status).toBe(404);
  });

  // pedant: user_keys_spec.rb "PUT /users/:user/keys/:key" "as..." — the user itself with a different key succeeds; another
  // user in the org 403; the org admin 403; a client in the same org 401
  it.each<[string, ChefActor, number]>([
    ['the user itself, authenticating with a different key, succeeds', USER, 200],
    ['a user in the same org fails with 403', 'viewer', 403],
    ['the admin (Chef superuser) succeeds', 'admin', 200],
  ])('%s', async (_label, actor, status) => {
    const name = await freshKey();
    const res = await put(name, { expiration_date: UNEXPIRED_DATE_2 }, actor);
    expect(res.status).toBe(status);
  });

  // pedant: user_keys_spec.rb "PUT /users/:user/keys/:key" "the user itself, authenticating with the key it is trying to delete should fail with 403"
  it('the user itself, authenticating with the key it is updating: 403 with Chef\'s message', async () => {
    const name = uniq('alt_key');
    const kp = await addUserKey(name, UNEXPIRED_DATE);
    const res = await signedRequest(chef, 'PUT', `${userKeys}/${name}`, {
      userId: USER,
      privateKey: kp.privateKey,
      body: { expiration_date: UNEXPIRED_DATE_2 },
    });
    expect(res.status).toBe(403);
    // pedant body_exact: the error is a string here, not an array
    expect(res.json.error).toBe(`The key '${name}' was used to authenticate this request and cannot be modified or deleted.`);
  });
});

describe('DELETE /users/:user/keys/:key', () => {
  // pedant: user_keys_spec.rb "DELETE /users/user/keys/key" "and the user does not exist" / "and the key does not exist"
  it('404 when the user does not exist', async () => {
    expect((await chef.request('DELETE', '/users/bob/keys/default', { as: USER })).status).toBe(404);
  });

  // pedant: user_keys_spec.rb "DELETE /users/:user/keys/:name as..." — the user itself with a different key 200; a user in the
  // same org 403; the org admin 403; a client in the same org 401
  it.each<[string, ChefActor, number]>([
    ['the user itself, authenticating with a different key, succeeds', USER, 200],
    ['a user in the same org fails with 403', 'viewer', 403],
    ['the admin (Chef superuser) succeeds', 'admin', 200],
  ])('%s', async (_label, actor, status) => {
    const name = await freshKey();
    const res = await chef.request('DELETE', `${userKeys}/${name}`, { as: actor });
    expect(res.status).toBe(status);
    if (status === 200) {
      expect(res.json).toMatchObject({ name, expiration_date: UNEXPIRED_DATE });
      expect(res.json.public_key).toMatch(PUBLIC_KEY_PEM);
    }
    expect((await chef.request('GET', `${userKeys}/${name}`, { as: USER })).status).toBe(status === 200 ? 404 : 200);
  });

  // pedant: user_keys_spec.rb "the user itself, authenticating with the key it is trying to delete should fail with 403"
  it('the user itself, authenticating with the key it is deleting: 403 with Chef\'s message (a string)', async () => {
    const name = uniq('alt_key');
    const kp = await addUserKey(name, UNEXPIRED_DATE);
    const res = await signedRequest(chef, 'DELETE', `${userKeys}/${name}`, { userId: USER, privateKey: kp.privateKey });
    expect(res.status).toBe(403);
    expect(res.json.error).toBe(`The key '${name}' was used to authenticate this request and cannot be modified or deleted.`);
    expect((await chef.request('GET', `${userKeys}/${name}`, { as: USER })).status).toBe(200);
  });

  // pedant: user_keys_spec.rb "DELETE /orgs/org/users/user/keys/key" "should return a 405"
  it('DELETE of the org-scoped key: 405', async () => {
    const name = await freshKey();
    expect((await chef.request('DELETE', `users/${USER}/keys/${name}`, { as: USER })).status).toBe(405);
  });
});

/** A new key of 'ops' (pedant's `alt_key` with `unexpired_date`), named uniquely; never signed with. */
async function freshKey(): Promise<string> {
  const name = uniq('alt_key');
  await addUserKey(name, UNEXPIRED_DATE, keyPair('payload'));
  return name;
}

// ---------------------------------------------------------------------------------------------------------------
// Client keys (spec/api/keys/client_keys_spec.rb). pedant's superuser → the org admin ('admin').

describe('client keys', () => {
  const keysOf = (client: string) => `clients/${client}/keys`;
  const clientKeyUri = (client: string, key: string) => `${chef.orgUrl}/clients/${client}/keys/${key}`;

  // pedant: client_keys_spec.rb "when a new client is created via POST /organizations/:org/clients" "should insert a new default keys entry that is retrievable via the keys API"
  it('a new client has exactly its default key', async () => {
    const { name, kp } = await orgClient();
    const res = await chef.request('GET', keysOf(name), { as: 'admin' });
    expect(res.status).toBe(200);
    expect(res.json).toStrictEqual([{ name: 'default', uri: clientKeyUri(name, 'default'), expired: false }]);
    // pedant: client_keys_spec.rb "when the default key for a client exists" (the keys table holds the client's public key)
    const key = await chef.request('GET', `${keysOf(name)}/default`, { as: 'admin' });
    expect(key.json).toStrictEqual({ name: 'default', public_key: kp.publicKey, expiration_date: 'infinity' });
  });

  // pedant: client_keys_spec.rb "posting keys" it_behaves_like "basic keys POST validation" (a subset), as the org admin
  it.each(postValidation.filter(([label]) => /date is invalid|not a valid key/.test(label)))(
    'POST %s it responds with 400',
    async (_label, change) => {
      const { name } = await orgClient();
      const body = keyPayload(uniq('key'));
      change(body);
      expect((await chef.request('POST', keysOf(name), { as: 'admin', body })).status).toBe(400);
    },
  );

  // pedant: client_keys_spec.rb "posting keys" "for a client that doesn't exist it should respond with 404"
  it("POST for a client that doesn't exist: 404", async () => {
    const res = await chef.request('POST', keysOf('bob'), { as: 'admin', body: keyPayload('alt_key') });
    expect(res.status).toBe(404);
    expect(res.json.error).toEqual(['Cannot load client bob']);
  });

  // pedant: client_keys_spec.rb "POST /organizations/:org/clients/:client/keys as..." — an org admin succeeds; another user
  // in the org fails with 403; an invalid user fails with 401
  it.each<[string, ChefActor, number]>([
    ['the org admin succeeds', 'admin', 201],
    ['another user in the org fails with 403', 'viewer', 403],
  ])('POST as %s', async (_label, actor, status) => {
    const { name } = await orgClient();
    const res = await chef.request('POST', keysOf(name), { as: actor, body: keyPayload('alt_key', { expires: '2100-12-31T23:59:59Z' }) });
    expect(res.status).toBe(status);
    if (status === 201) {
      expect(res.json).toStrictEqual({ uri: clientKeyUri(name, 'alt_key') });
      expect(res.headers.get('location')).toBe(clientKeyUri(name, 'alt_key'));
    }
  });

  // pedant: client_keys_spec.rb "POST … as..." "the org client itself succeeds" (Chef's default: a client updates itself, its keys too).
  it('POST by the client itself for itself: 201', async () => {
    const actor = 'client:pedant_self_keys' as const;
    expect((await chef.request('GET', 'policies', { as: actor })).status).toBe(200); // creates the client
    const name = uniq('key');
    const res = await chef.request('POST', keysOf('pedant_self_keys'), { as: actor, body: keyPayload(name) });
    expect(res.status).toBe(201);
    expect((await chef.request('GET', `${keysOf('pedant_self_keys')}/${name}`, { as: 'admin' })).status).toBe(200);
  });

  describe('when multiple keys are present (client_keys_spec.rb "listing key(s)")', () => {
    let client: { name: string; kp: ReturnType<typeof keyPair> };
    let kp1: ReturnType<typeof keyPair>;
    let kp2: ReturnType<typeof keyPair>;

    beforeAll(async () => {
      client = await orgClient();
      kp1 = keyPair();
      kp2 = keyPair();
      for (const [n, kp, exp] of [['key1', kp1, UNEXPIRED_DATE], ['key2', kp2, EXPIRED_DATE]] as const) {
        const r = await chef.request('POST', keysOf(client.name), { as: 'admin', body: keyPayload(n, { expires: exp, kp }) });
        expect(r.status).toBe(201);
      }
    });

    // pedant: client_keys_spec.rb "successful client key get" "all keys should be listed with correct expiry indicators" (body_exact)
    // as the superuser (→ 'admin') and as "a user that is a member of the same org" (→ 'viewer')
    it.each<ChefActor>(['admin', 'viewer'])('GET …/keys as %s lists every key with its expiry indicator, exactly', async (actor) => {
      const res = await chef.request('GET', keysOf(client.name), { as: actor });
      expect(res.status).toBe(200);
      // body_exact on an array: same entries, any order (matchers.rb array_matches?)
      const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
      expect([...res.json].sort(byName)).toStrictEqual([
        { name: 'default', uri: clientKeyUri(client.name, 'default'), expired: false },
        { name: 'key1', uri: clientKeyUri(client.name, 'key1'), expired: false },
        { name: 'key2', uri: clientKeyUri(client.name, 'key2'), expired: true },
      ]);
    });

    // pedant: client_keys_spec.rb "when GET /organizations/org/clients/client/keys/key is called (get single key)"
    it('GET each key returns name, public_key and expiration_date', async () => {
      const get = async (k: string) => (await chef.request('GET', `${keysOf(client.name)}/${k}`, { as: 'admin' })).json;
      expect(await get('default')).toStrictEqual({ name: 'default', public_key: client.kp.publicKey, expiration_date: 'infinity' });
      expect(await get('key1')).toStrictEqual({ name: 'key1', public_key: kp1.publicKey, expiration_date: UNEXPIRED_DATE });
      expect(await get('key2')).toStrictEqual({ name: 'key2', public_key: kp2.publicKey, expiration_date: EXPIRED_DATE });
    });

    // pedant: client_keys_spec.rb "when multiple keys exist for a client" "should properly authenticate against either keys"
    // pedant: client_keys_spec.rb "when a key is expired for a client" "should fail against the expired key" / "should succeed against other keys"
    it('the default and the unexpired key authenticate; the expired key gets 401', async () => {
      const as = (kp: ReturnType<typeof keyPair>) => signedRequest(chef, 'GET', 'policies', { userId: client.name, privateKey: kp.privateKey });
      expect((await as(client.kp)).status).toBe(200);
      expect((await as(kp1)).status).toBe(200);
      expect((await as(kp2)).status).toBe(401);
    });
  });

  // pedant: client_keys_spec.rb "when the default key has been changed via the keys API" "should authenticate against the updated key" / "should break for original default key"
  it('replacing the default key: the new key authenticates, the original gets 401', async () => {
    const { name, kp } = await orgClient();
    expect((await chef.request('DELETE', `${keysOf(name)}/default`, { as: 'admin' })).status).toBe(200);
    const next = keyPair();
    expect((await chef.request('POST', keysOf(name), { as: 'admin', body: keyPayload('default', { kp: next }) })).status).toBe(201);
    expect((await signedRequest(chef, 'GET', 'policies', { userId: name, privateKey: next.privateKey })).status).toBe(200);
    expect((await signedRequest(chef, 'GET', 'policies', { userId: name, privateKey: kp.privateKey })).status).toBe(401);
  });

  // pedant: client_keys_spec.rb "PUT" it_behaves_like "PUT like a PATCH" "should only update expiration date when that is the only provided field" (as the org admin,
  // "the org admin should succeed")
  it('PUT of an expiration date by the org admin: 200 {expiration_date}; a past date makes the key fail (401)', async () => {
    const { name, kp } = await orgClient();
    const res = await chef.request('PUT', `${keysOf(name)}/default`, { as: 'admin', body: { expiration_date: EXPIRED_DATE } });
    expect(res.status).toBe(200);
    expect(res.json).toStrictEqual({ expiration_date: EXPIRED_DATE });
    const list = await chef.request('GET', keysOf(name), { as: 'admin' });
    expect(list.json).toEqual([{ name: 'default', uri: clientKeyUri(name, 'default'), expired: true }]);
    expect((await signedRequest(chef, 'GET', 'policies', { userId: name, privateKey: kp.privateKey })).status).toBe(401);
  });

  // pedant: client_keys_spec.rb "DELETE" "/organizations/:org/clients/:client/keys/:key" — fails with 404 (no client); the key does
  // not exist 404; a user in the same org 403; a client in the same org 403; the org admin succeeds
  it.each<[string, ChefActor, 'noclient' | 'nokey' | 'key', number]>([
    ['for a key that does not exist: 404', 'admin', 'nokey', 404],
    ['by a user in the same org: 403', 'viewer', 'key', 403],
    ['by another client in the same org: 403', 'client:pedant_org_client', 'key', 403],
    ['by the org admin: 200', 'admin', 'key', 200],
  ])('DELETE %s', async (_label, actor, target, status) => {
    const { name } = await orgClient();
    expect((await chef.request('POST', keysOf(name), { as: 'admin', body: keyPayload('alt_key') })).status).toBe(201);
    const path = target === 'noclient' ? `${keysOf('bobclient')}/default` : `${keysOf(name)}/${target === 'nokey' ? 'badkey' : 'alt_key'}`;
    const res = await chef.request('DELETE', path, { as: actor });
    expect(res.status).toBe(status);
    if (target === 'nokey') expect(errorText(res)).toBe(`There is no key named badkey associated with ${name}.`);
    if (target === 'key') {
      expect((await chef.request('GET', `${keysOf(name)}/alt_key`, { as: 'admin' })).status).toBe(status === 200 ? 404 : 200);
    }
  });
});
