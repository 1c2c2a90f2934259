/**
 * oc-chef-pedant, ported: policy groups and the policy group ↔ revision association.
 * Source: chef/chef-server oc-chef-pedant/spec/api/policies/complete_endpoint_spec.rb
 * ("Listing policies and policy groups" (the /policy_groups half),
 * "Named Policy Groups endpoint /policy_groups/:policy_group_name",
 * "Policy Group Revision Association Endpoint /policy_groups/:policy_group/policies/:policy_name").
 * Pedant assumes an empty organization and acts as the org admin: `seed: false`, as 'admin'.
 * Expectations: docs/pedant-notes.md.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { useChefHarness } from '@/test/chef-harness';
import {
  CANONICAL_REV,
  MIN_REV,
  canonicalPolicy,
  minimumPolicy,
  mutate,
  resetPolicies,
  without,
  type PolicyDoc,
} from '@/test/chef-pedant-helpers';

const chef = useChefHarness({ seed: false });

beforeEach(async () => {
  await resetPolicies(chef);
});

const as = 'admin' as const;
const staticUrl = 'policy_groups/some_policy_group/policies/some_policy_name';

function put(path: string, body: unknown) {
  return chef.request('PUT', path, { as, body });
}

describe('GET /policy_groups (pedant "Listing policies and policy groups")', () => {
  // pedant: spec/api/policies/complete_endpoint_spec.rb "when no policies or policy_groups exist on the server" "GET /policy_groups returns an empty list"
  it('returns an empty object when no groups exist', async () => {
    const res = await chef.request('GET', 'policy_groups', { as });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({});
  });

  // pedant: spec/api/policies/complete_endpoint_spec.rb "when a policy assigned to a group exists" "GET /policy_groups returns a data structure with the groups assigned policy revision"
  it("lists a group with its uri and its policies' revision ids", async () => {
    expect((await put(staticUrl, minimumPolicy())).status).toBe(201);
    const res = await chef.request('GET', 'policy_groups', { as });
    expect(res.status).toBe(200);
    expect(res.json).toStrictEqual({
      some_policy_group: {
        uri: `${chef.orgUrl}/policy_groups/some_policy_group`,
        policies: { some_policy_name: { revision_id: MIN_REV } },
      },
    });
  });

  // pedant: spec/api/policies/complete_endpoint_spec.rb "policy exists but has been removed from all policy groups" "GET /policy_groups returns a data structure with the groups assigned policy revision"
  it('lists a group that runs no policy any more with its uri only (no "policies" key)', async () => {
    await put(staticUrl, minimumPolicy());
    expect((await chef.request('DELETE', staticUrl, { as })).status).toBe(200);
    const res = await chef.request('GET', 'policy_groups', { as });
    expect(res.status).toBe(200);
    expect(res.json).toStrictEqual({
      some_policy_group: { uri: `${chef.orgUrl}/policy_groups/some_policy_group` },
    });
  });

  // pedant: spec/api/policies/complete_endpoint_spec.rb "with multiple policies and groups" "GET /policy_groups returns a data structure with all policy group->policy rev associations"
  it('lists every group with all its policy → revision associations', async () => {
    const assoc: [string, string, string][] = [
      ['appserver', '1', 'dev'], ['db', '6', 'dev'], ['cache', 'a', 'dev'],
      ['appserver', '2', 'test'], ['db', '7', 'test'], ['cache', 'b', 'test'],
      ['appserver', '3', 'prod'], ['db', '8', 'prod'],
    ];
    for (const [name, c, group] of assoc) {
      expect((await put(`policy_groups/${group}/policies/${name}`, minimumPolicy(name, c.repeat(40)))).status).toBe(201);
    }
    const res = await chef.request('GET', 'policy_groups', { as });
    expect(res.status).toBe(200);
    const r = (c: string) => ({ revision_id: c.repeat(40) });
    expect(res.json.dev).toStrictEqual({
      uri: `${chef.orgUrl}/policy_groups/dev`,
      policies: { db: r('6'), appserver: r('1'), cache: r('a') },
    });
    expect(res.json.test).toStrictEqual({
      uri: `${chef.orgUrl}/policy_groups/test`,
      policies: { db: r('7'), appserver: r('2'), cache: r('b') },
    });
    expect(res.json.prod).toStrictEqual({
      uri: `${chef.orgUrl}/policy_groups/prod`,
      policies: { db: r('8'), appserver: r('3') },
    });
  });
});

describe('/policy_groups/:policy_group_name (pedant "Named Policy Groups endpoint")', () => {
  const groupUrl = 'policy_groups/example-policy-group';
  const assocUrl = `${groupUrl}/policies/some_policy_name`;

  // pedant: spec/api/policies/complete_endpoint_spec.rb "when the named group doesn't exist" "GET /policy_groups/:policy_group_name returns a 404"
  it("GET returns 404 when the group doesn't exist", async () => {
    const res = await chef.request('GET', groupUrl, { as });
    expect(res.status).toBe(404);
    // erchef: chef_wm_util:not_found_message(policy_group, Name) (pedant checks the status only)
    expect(res.json.error).toEqual(["policy_group 'example-policy-group' not found"]);
  });

  // pedant: spec/api/policies/complete_endpoint_spec.rb "when the named group doesn't exist" "DELETE /policy_groups/:policy_group_name returns a 404"
  it("DELETE returns 404 when the group doesn't exist", async () => {
    expect((await chef.request('DELETE', groupUrl, { as })).status).toBe(404);
  });

  describe('when no policies are assigned to the group', () => {
    beforeEach(async () => {
      expect((await put(assocUrl, minimumPolicy())).status).toBe(201);
      expect((await chef.request('DELETE', assocUrl, { as })).status).toBe(200);
    });

    // pedant: spec/api/policies/complete_endpoint_spec.rb "when no policies are assigned to the group" "GET /policy_groups/:policy_group_name returns 200 with an empty JSON Object"
    it('GET returns the uri and "policies": {}', async () => {
      const res = await chef.request('GET', groupUrl, { as });
      expect(res.status).toBe(200);
      expect(res.json).toStrictEqual({ uri: `${chef.orgUrl}/${groupUrl}`, policies: {} });
    });

    // pedant: spec/api/policies/complete_endpoint_spec.rb "when no policies are assigned to the group" "DELETE /policy_groups/:policy_group_name returns 200 with an empty JSON Object"
    it('DELETE returns the uri and "policies": {} and removes the group', async () => {
      const res = await chef.request('DELETE', groupUrl, { as });
      expect(res.status).toBe(200);
      expect(res.json).toStrictEqual({ uri: `${chef.orgUrl}/${groupUrl}`, policies: {} });
      expect((await chef.request('GET', groupUrl, { as })).status).toBe(404);
    });
  });

  describe('when policies are assigned to the group', () => {
    beforeEach(async () => {
      expect((await put(assocUrl, minimumPolicy())).status).toBe(201);
    });

    const expected = () => ({
      uri: `${chef.orgUrl}/${groupUrl}`,
      policies: { some_policy_name: { revision_id: MIN_REV } },
    });

    // pedant: spec/api/policies/complete_endpoint_spec.rb "GET /policy_groups/:policy_group_name returns 200 with a JSON Object showing associated policies"
    it('GET shows the associated policies', async () => {
      const res = await chef.request('GET', groupUrl, { as });
      expect(res.status).toBe(200);
      expect(res.json).toStrictEqual(expected());
    });

    // pedant: spec/api/policies/complete_endpoint_spec.rb "DELETE /policy_groups/:policy_group_name returns 200 with a JSON Object showing associated policies"
    it('DELETE returns the group as it was', async () => {
      const res = await chef.request('DELETE', groupUrl, { as });
      expect(res.status).toBe(200);
      expect(res.json).toStrictEqual(expected());
    });

    // pedant: spec/api/policies/complete_endpoint_spec.rb "DELETE /policy_groups/:policy_group_name deletes policy associations"
    it('DELETE deletes the policy associations (the revision stays)', async () => {
      expect((await chef.request('DELETE', groupUrl, { as })).status).toBe(200);
      expect((await chef.request('GET', assocUrl, { as })).status).toBe(404);
      const rev = await chef.request('GET', `policies/some_policy_name/revisions/${MIN_REV}`, { as });
      expect(rev.status).toBe(200);
      expect(rev.json.policy_group_list).toEqual([]);
    });
  });
});

describe('/policy_groups/:policy_group/policies/:policy_name (pedant "Policy Group Revision Association Endpoint")', () => {
  describe('when no policies exist on the server', () => {
    // pedant: spec/api/policies/complete_endpoint_spec.rb "when no policies exist on the server" "GET /policy_groups/:group_name/policies/:policy_name returns 404"
    it('GET returns 404', async () => {
      const res = await chef.request('GET', staticUrl, { as });
      expect(res.status).toBe(404);
      // erchef oc_chef_wm_policy_group_policy_rev (pedant checks the status only)
      expect(res.json.error).toEqual(['Cannot load policy some_policy_name in policy group some_policy_group']);
    });

    // pedant: spec/api/policies/complete_endpoint_spec.rb "when no policies exist on the server" "DELETE /policy_groups/:group_name/policies/:policy_name returns 404"
    it('DELETE returns 404', async () => {
      expect((await chef.request('DELETE', staticUrl, { as })).status).toBe(404);
    });

    // pedant: spec/api/policies/complete_endpoint_spec.rb "with a canonical payload" "PUT /policy_groups/:group_name/policies/:policy_name returns 201"
    it('PUT with the canonical payload returns 201; the revision then lists the group', async () => {
      const res = await put(staticUrl, canonicalPolicy());
      expect(res.status).toBe(201);
      expect(res.json).toStrictEqual(canonicalPolicy());
      // issue 11: "a Location header on 201" (erchef: the policy's URI)
      expect(res.headers.get('location')).toBeTruthy();
      const rev = await chef.request('GET', `policies/some_policy_name/revisions/${CANONICAL_REV}`, { as });
      expect(rev.status).toBe(200);
      expect(rev.json).toStrictEqual({ ...canonicalPolicy(), policy_group_list: ['some_policy_group'] });
    });

    // pedant: spec/api/policies/complete_endpoint_spec.rb "with a minimal payload" "PUT /policy_groups/:group_name/policies/:policy_name returns 201"
    it('PUT with the minimal payload returns 201; the revision then lists the group', async () => {
      expect((await put(staticUrl, minimumPolicy())).status).toBe(201);
      const rev = await chef.request('GET', `policies/some_policy_name/revisions/${MIN_REV}`, { as });
      expect(rev.status).toBe(200);
      expect(rev.json).toStrictEqual({ ...minimumPolicy(), policy_group_list: ['some_policy_group'] });
    });

    // pedant: "with a payload demonstrating validation edge conditions for 'name'" — each PUT returns 201.
    const ALL_VALID = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqurstuvwxyz0123456789-_:.';
    const edgeCases: [string, string, PolicyDoc][] = [
      // pedant: spec/api/policies/complete_endpoint_spec.rb "when the name contains every valid character"
      ['the name contains every valid character', ALL_VALID, minimumPolicy(ALL_VALID)],
      // pedant: spec/api/policies/complete_endpoint_spec.rb "when the name is close to the maximum size"
      ['the name is 250 characters', 'a'.repeat(250), minimumPolicy('a'.repeat(250))],
      // pedant: spec/api/policies/complete_endpoint_spec.rb "when a revision_id is the maximum size"
      ['a revision_id is 255 characters', 'some_policy_name', minimumPolicy('some_policy_name', 'a'.repeat(255))],
      // pedant: spec/api/policies/complete_endpoint_spec.rb "when a revision_id contains every valid character"
      ['a revision_id contains every valid character', 'some_policy_name', minimumPolicy('some_policy_name', ALL_VALID)],
      // pedant: spec/api/policies/complete_endpoint_spec.rb "when a cookbook identifier is the maximum size"
      ['a cookbook identifier is 255 characters', 'some_policy_name',
        mutate(minimumPolicy(), (p) => (p.cookbook_locks.edge_case = { identifier: 'a'.repeat(255), version: '1.2.3' }))],
    ];
    it.each(edgeCases)('PUT returns 201 when %s', async (_label, name, body) => {
      const res = await put(`policy_groups/some_policy_group/policies/${name}`, body);
      expect(res.status).toBe(201);
    });
  });

  // pedant: "when the request body is invalid" / shared examples "an invalid policy document": 400, and `error` is an
  // array with exactly one entry, equal to the expected message.
  const NAME_URL = (name: string) => `policy_groups/some_policy_group/policies/${encodeURIComponent(name)}`;
  const invalid: [string, (p: PolicyDoc) => void, string, string?][] = [
    // pedant: spec/api/policies/complete_endpoint_spec.rb "because of missing revision id field"
    ['revision_id missing', (p) => delete p.revision_id, "Field 'revision_id' missing"],
    // pedant: spec/api/policies/complete_endpoint_spec.rb "because revision id field is an empty string"
    ['revision_id empty', (p) => (p.revision_id = ''), "Field 'revision_id' invalid"],
    // pedant: spec/api/policies/complete_endpoint_spec.rb "because revision id field is larger than 255 characters"
    ['revision_id of 256 characters', (p) => (p.revision_id = 'f'.repeat(256)), "Field 'revision_id' invalid"],
    // pedant: spec/api/policies/complete_endpoint_spec.rb "because the revision_id contains invalid character …" (' ', '+', '!')
    ['revision_id with " "', (p) => (p.revision_id = 'invalid invalid'), "Field 'revision_id' invalid"],
    ['revision_id with "+"', (p) => (p.revision_id = 'invalid+invalid'), "Field 'revision_id' invalid"],
    // pedant: spec/api/policies/complete_endpoint_spec.rb "because of missing name field"
    ['name missing', (p) => delete p.name, "Field 'name' missing"],
    // pedant: spec/api/policies/complete_endpoint_spec.rb "because of an mismatched name field"
    ['name not the URL name', (p) => (p.name = 'monkeypants'), "Field 'name' invalid : some_policy_name does not match monkeypants"],
    // pedant: spec/api/policies/complete_endpoint_spec.rb "because the name is larger than 255 characters" (URL carries the same name)
    ['name of 256 characters', (p) => (p.name = 'z'.repeat(256)), "Field 'name' invalid", NAME_URL('z'.repeat(256))],
    // pedant: spec/api/policies/complete_endpoint_spec.rb "because the name contains invalid character '…'" (URL carries the same name, encoded)
    ['name with " "', (p) => (p.name = 'invalid invalid'), "Field 'name' invalid", NAME_URL('invalid invalid')],
    ['name with "!"', (p) => (p.name = 'invalid!invalid'), "Field 'name' invalid", NAME_URL('invalid!invalid')],
    // pedant: spec/api/policies/complete_endpoint_spec.rb "because of missing run_list field"
    ['run_list missing', (p) => delete p.run_list, "Field 'run_list' missing"],
    // pedant: spec/api/policies/complete_endpoint_spec.rb "because run_list field is the wrong type"
    ['run_list an object', (p) => (p.run_list = {}), "Field 'run_list' is not a valid run list"],
    // pedant: spec/api/policies/complete_endpoint_spec.rb "because the run_list has invalid item '…'" (123, "recipe[", "role[foo]", "recipe[foo]")
    ['run_list item 123', (p) => (p.run_list = [123]), "Field 'run_list' is not a valid run list"],
    ['run_list item "role[foo]"', (p) => (p.run_list = ['role[foo]']), "Field 'run_list' is not a valid run list"],
    ['run_list item "recipe[foo]"', (p) => (p.run_list = ['recipe[foo]']), "Field 'run_list' is not a valid run list"],
    // pedant: spec/api/policies/complete_endpoint_spec.rb "because cookbook_locks field is missing"
    ['cookbook_locks missing', (p) => delete p.cookbook_locks, "Field 'cookbook_locks' missing"],
    // pedant: spec/api/policies/complete_endpoint_spec.rb "because cookbook_locks field is the wrong type"
    ['cookbook_locks an array', (p) => (p.cookbook_locks = []), "Field 'cookbook_locks' invalid"],
    // pedant: spec/api/policies/complete_endpoint_spec.rb "because cookbook_locks contains an entry that is missing the identifier field"
    ['lock without identifier', (p) => (p.cookbook_locks.invalid_member = { dotted_decimal_identifier: '1.2.3' }), "Field 'identifier' missing"],
    // pedant: spec/api/policies/complete_endpoint_spec.rb "because cookbook_locks contains an entry with an identifier larger than 255 characters"
    ['lock identifier of 256 characters', (p) => (p.cookbook_locks.invalid_member = { identifier: 'a'.repeat(256), version: '1.2.3' }), "Field 'identifier' invalid"],
    // pedant: spec/api/policies/complete_endpoint_spec.rb "because cookbook_locks contains an entry with an invalid dotted_decimal_identifier field"
    ['lock dotted_decimal_identifier "foo"',
      (p) => (p.cookbook_locks.invalid_member = { identifier: '123def', version: '1.2.3', dotted_decimal_identifier: 'foo' }),
      "Field 'dotted_decimal_identifier' is not a valid version"],
  ];

  describe('PUT with an invalid policy document (pedant "an invalid policy document")', () => {
    it.each(invalid)('%s: 400 with exactly that one error', async (_label, change, message, url) => {
      const res = await put(url ?? staticUrl, mutate(minimumPolicy(), change));
      expect(res.status).toBe(400);
      expect(res.json.error).toEqual([message]);
      expect((await chef.request('GET', 'policy_groups', { as })).json).toEqual({});
    });

    // pedant: spec/api/policies/complete_endpoint_spec.rb "because cookbook_locks contains an entry of the wrong type" "PUT /policies/:group/:name returns 400" (message not checked)
    it('a cookbook_locks entry of the wrong type: 400', async () => {
      const res = await put(staticUrl, mutate(minimumPolicy(), (p) => (p.cookbook_locks.invalid_member = [])));
      expect(res.status).toBe(400);
    });
  });

  describe('when a policy exists on the server', () => {
    beforeEach(async () => {
      expect((await put(staticUrl, canonicalPolicy())).status).toBe(201);
    });

    const updated = () =>
      mutate(canonicalPolicy(), (p) => {
        p.revision_id = 'd4991d020462724edcf05f572e1d856cc5927803';
        p.cookbook_locks.policyfile_demo.identifier = '2a42abea88dc847bf6d3194af8bf899908642421';
        p.cookbook_locks.policyfile_demo.dotted_decimal_identifier = '11895255163526276.34892808658286783.151290363782177';
      });

    // pedant: spec/api/policies/complete_endpoint_spec.rb "when a policy exists on the server" "GET" "retrieves the policy document"
    it('GET retrieves the policy document', async () => {
      const res = await chef.request('GET', staticUrl, { as });
      expect(res.status).toBe(200);
      expect(res.json).toStrictEqual(canonicalPolicy());
    });

    // pedant: spec/api/policies/complete_endpoint_spec.rb "PUT (update policy document)" "PUT /policies/:group/:name returns 200"
    it('PUT of a new revision returns 200 and the new document', async () => {
      const res = await put(staticUrl, updated());
      expect(res.status).toBe(200);
      expect(res.json).toStrictEqual(updated());
    });

    // pedant: spec/api/policies/complete_endpoint_spec.rb "PUT (update policy document)" "GET /policies/:group/:name subsequently returns the updated document"
    it('GET after that PUT returns the updated document', async () => {
      expect((await put(staticUrl, updated())).status).toBe(200);
      const res = await chef.request('GET', staticUrl, { as });
      expect(res.status).toBe(200);
      expect(res.json).toStrictEqual(updated());
    });

    // pedant: spec/api/policies/complete_endpoint_spec.rb "PUT (add to another policy group)" "PUT /policy_groups/:group/policies/:name returns 201"
    it('PUT of the same revision into another group returns 201; the revision lists both groups', async () => {
      const res = await put('policy_groups/other_policy_group/policies/some_policy_name', canonicalPolicy());
      expect(res.status).toBe(201);
      const rev = await chef.request('GET', `policies/some_policy_name/revisions/${CANONICAL_REV}`, { as });
      expect(rev.status).toBe(200);
      expect(without(rev.json, 'policy_group_list')).toStrictEqual(canonicalPolicy());
      expect([...rev.json.policy_group_list].sort()).toEqual(['other_policy_group', 'some_policy_group']);
    });

    // pedant: spec/api/policies/complete_endpoint_spec.rb "DELETE" "DELETE /policies/:group/:name returns the deleted document"
    it('DELETE returns the deleted document', async () => {
      const res = await chef.request('DELETE', staticUrl, { as });
      expect(res.status).toBe(200);
      expect(res.json).toStrictEqual(canonicalPolicy());
    });

    // pedant: spec/api/policies/complete_endpoint_spec.rb "DELETE" "DELETE /policies/:group/:name removes the policy from the data store"
    it('DELETE removes the association (GET → 404)', async () => {
      expect((await chef.request('DELETE', staticUrl, { as })).status).toBe(200);
      expect((await chef.request('GET', staticUrl, { as })).status).toBe(404);
    });

    // issue 11 (not pedant): "Strip policy_group_list and policy_group from stored documents and from the content
    // comparison, so `chef undelete` works after `chef delete-policy-group`": chef undelete re-PUTs the document
    // it saved from GET …/revisions/:rev, policy_group_list included.
    it('PUT of a document carrying policy_group_list (chef undelete) is accepted and not stored', async () => {
      const saved = (await chef.request('GET', `policies/some_policy_name/revisions/${CANONICAL_REV}`, { as })).json;
      expect(saved.policy_group_list).toEqual(['some_policy_group']);
      expect((await chef.request('DELETE', 'policy_groups/some_policy_group', { as })).status).toBe(200);
      const res = await put(staticUrl, saved);
      expect(res.status).toBe(201); // the association was deleted with the group, so this creates it again
      const got = await chef.request('GET', staticUrl, { as });
      expect(got.status).toBe(200);
      expect(got.json).toStrictEqual(canonicalPolicy());
      const rev = await chef.request('GET', `policies/some_policy_name/revisions/${CANONICAL_REV}`, { as });
      expect(rev.json.policy_group_list).toEqual(['some_policy_group']);
    });
  });
});
