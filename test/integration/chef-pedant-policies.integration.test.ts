/**
 * oc-chef-pedant, ported: policies and policy revisions on the organization routes.
 * Source: chef/chef-server oc-chef-pedant/spec/api/policies/complete_endpoint_spec.rb
 * ("Listing policies and policy groups" (the /policies half), "Named policy endpoint /policies/:policy_name",
 * "Named policy revision endpoint /policies/:policy_name/revisions/:revision_id").
 * Pedant assumes an empty organization and acts as the org admin: `seed: false`, as 'admin'.
 * Expectations: docs/pedant-notes.md.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { useChefHarness } from '@/test/chef-harness';
import { MIN_REV, minimumPolicy, mutate, resetPolicies, type PolicyDoc } from '@/test/chef-pedant-helpers';

const chef = useChefHarness({ seed: false });

beforeEach(async () => {
  await resetPolicies(chef);
});

const as = 'admin' as const;

function put(path: string, body: unknown) {
  return chef.request('PUT', path, { as, body });
}

describe('GET /policies (pedant "Listing policies and policy groups")', () => {
  // pedant: spec/api/policies/complete_endpoint_spec.rb "when no policies or policy_groups exist on the server" "GET /policies returns an empty list"
  it('returns an empty object when no policies exist', async () => {
    const res = await chef.request('GET', 'policies', { as });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({});
  });

  // pedant: spec/api/policies/complete_endpoint_spec.rb "when a policy assigned to a group exists" "GET /policies returns a data structure with the groups assigned policy revision"
  it('lists a policy assigned to a group with its uri and revisions', async () => {
    expect((await put('policy_groups/some_policy_group/policies/some_policy_name', minimumPolicy())).status).toBe(201);
    const res = await chef.request('GET', 'policies', { as });
    expect(res.status).toBe(200);
    expect(res.json).toStrictEqual({
      some_policy_name: { uri: `${chef.orgUrl}/policies/some_policy_name`, revisions: { [MIN_REV]: {} } },
    });
  });

  // pedant: spec/api/policies/complete_endpoint_spec.rb "policy exists but has been removed from all policy groups" "GET /policies shows the policy"
  it('still lists a policy removed from all policy groups', async () => {
    await put('policy_groups/some_policy_group/policies/some_policy_name', minimumPolicy());
    expect((await chef.request('DELETE', 'policy_groups/some_policy_group/policies/some_policy_name', { as })).status).toBe(200);
    const res = await chef.request('GET', 'policies', { as });
    expect(res.status).toBe(200);
    expect(res.json).toStrictEqual({
      some_policy_name: { uri: `${chef.orgUrl}/policies/some_policy_name`, revisions: { [MIN_REV]: {} } },
    });
  });

  // pedant: spec/api/policies/complete_endpoint_spec.rb "with multiple policies and groups" "GET /policies returns a data structure with all the policies"
  it('lists every policy with all its revisions across groups', async () => {
    // pedant's expected list also holds some_policy_name, left over from the previous context.
    await put('policy_groups/some_policy_group/policies/some_policy_name', minimumPolicy());
    const assoc: [string, string, string][] = [
      ['appserver', '1', 'dev'], ['db', '6', 'dev'], ['cache', 'a', 'dev'],
      ['appserver', '2', 'test'], ['db', '7', 'test'], ['cache', 'b', 'test'],
      ['appserver', '3', 'prod'], ['db', '8', 'prod'],
    ];
    for (const [name, c, group] of assoc) {
      const r = await put(`policy_groups/${group}/policies/${name}`, minimumPolicy(name, c.repeat(40)));
      expect(r.status).toBe(201);
    }
    const res = await chef.request('GET', 'policies', { as });
    expect(res.status).toBe(200);
    const revs = (...cs: string[]) => Object.fromEntries(cs.map((c) => [c.repeat(40), {}]));
    expect(res.json).toStrictEqual({
      some_policy_name: { uri: `${chef.orgUrl}/policies/some_policy_name`, revisions: { [MIN_REV]: {} } },
      appserver: { uri: `${chef.orgUrl}/policies/appserver`, revisions: revs('1', '2', '3') },
      db: { uri: `${chef.orgUrl}/policies/db`, revisions: revs('6', '7', '8') },
      cache: { uri: `${chef.orgUrl}/policies/cache`, revisions: revs('a', 'b') },
    });
  });
});

// pedant "Named policy endpoint /policies/:policy_name": payload named "example-policy".
const example = (rev = MIN_REV): PolicyDoc => minimumPolicy('example-policy', rev);
const OTHER_REV = '1'.repeat(40);

describe('/policies/:policy_name (pedant "Named policy endpoint")', () => {
  describe("when :policy_name doesn't exist", () => {
    // pedant: spec/api/policies/complete_endpoint_spec.rb "when :policy_name doesn't exist" "GET /policies/:policy_name returns a 404"
    it('GET returns 404', async () => {
      const res = await chef.request('GET', 'policies/example-policy', { as });
      expect(res.status).toBe(404);
    });

    // pedant: spec/api/policies/complete_endpoint_spec.rb "when :policy_name doesn't exist" "DELETE /policies/:policy_name returns 404"
    it('DELETE returns 404', async () => {
      expect((await chef.request('DELETE', 'policies/example-policy', { as })).status).toBe(404);
    });

    // pedant: spec/api/policies/complete_endpoint_spec.rb "when :policy_name doesn't exist" "POST /policies/:policy_name/revisions creates the policy name and policy revision"
    it('POST …/revisions creates the policy and the revision (201, the document, a Location)', async () => {
      const res = await chef.request('POST', 'policies/example-policy/revisions', { as, body: example() });
      expect(res.status).toBe(201);
      expect(res.json).toStrictEqual(example());
      // issue 11: "a Location header on 201"; erchef sets the policy's URI (oc_chef_wm_named_policy_revisions:from_json).
      expect(res.headers.get('location') ?? '').toMatch(new RegExp(`^${escapeRe(chef.orgUrl)}/policies/example-policy(/|$)`));
      expect((await chef.request('GET', 'policies/example-policy', { as })).status).toBe(200);
    });

    // pedant: spec/api/policies/complete_endpoint_spec.rb "when the policy name in request doesn't match URL" "POST /policies/:policy_name/revisions returns 400"
    it('POST …/revisions with a body named otherwise returns 400 and creates nothing', async () => {
      const res = await chef.request('POST', 'policies/example-policy/revisions', { as, body: minimumPolicy() });
      expect(res.status).toBe(400);
      // erchef (chef_wm_malformed {mismatch, …}): URL name first, then the body's name.
      expect(res.json.error).toEqual(["Field 'name' invalid : example-policy does not match some_policy_name"]);
      expect((await chef.request('GET', 'policies/example-policy', { as })).status).toBe(404);
      expect((await chef.request('GET', 'policies/some_policy_name', { as })).status).toBe(404);
    });
  });

  describe('when policy_name exists', () => {
    beforeEach(async () => {
      expect((await chef.request('POST', 'policies/example-policy/revisions', { as, body: example() })).status).toBe(201);
    });

    // pedant: spec/api/policies/complete_endpoint_spec.rb "when policy_name exists" "GET /policies/:policy_name returns a list of revisions"
    it('GET returns the list of revisions', async () => {
      const res = await chef.request('GET', 'policies/example-policy', { as });
      expect(res.status).toBe(200);
      expect(res.json).toStrictEqual({ revisions: { [MIN_REV]: {} } });
    });

    // pedant: spec/api/policies/complete_endpoint_spec.rb "when policy_name exists" "DELETE /policies/:policy_name deletes all revisions and returns the list of revisions"
    it('DELETE deletes all revisions and returns the list of revisions', async () => {
      await chef.request('POST', 'policies/example-policy/revisions', { as, body: example(OTHER_REV) });
      const res = await chef.request('DELETE', 'policies/example-policy', { as });
      expect(res.status).toBe(200);
      expect(res.json).toStrictEqual({ revisions: { [MIN_REV]: {}, [OTHER_REV]: {} } });
      expect((await chef.request('GET', 'policies/example-policy', { as })).status).toBe(404);
      expect((await chef.request('GET', `policies/example-policy/revisions/${MIN_REV}`, { as })).status).toBe(404);
    });

    // pedant: spec/api/policies/complete_endpoint_spec.rb "creating a new revision" "when the revision doesn't yet exist" "POST /policies/:policy_name/revisions creates the policy revision"
    it('POST …/revisions with a new revision id creates it (201, the document)', async () => {
      const res = await chef.request('POST', 'policies/example-policy/revisions', { as, body: example(OTHER_REV) });
      expect(res.status).toBe(201);
      expect(res.json).toStrictEqual(example(OTHER_REV));
      const list = await chef.request('GET', 'policies/example-policy', { as });
      expect(list.json).toStrictEqual({ revisions: { [MIN_REV]: {}, [OTHER_REV]: {} } });
    });

    // pedant: spec/api/policies/complete_endpoint_spec.rb "creating a new revision" "when the revision exists" "POST /policies/:policy_name/revisions returns 409"
    it('POST …/revisions with an existing revision id (same content) returns 409', async () => {
      const res = await chef.request('POST', 'policies/example-policy/revisions', { as, body: example() });
      expect(res.status).toBe(409);
      expect(Array.isArray(res.json.error)).toBe(true);
      expect(res.json.error).toHaveLength(1);
    });

    // Deliberate console difference (issue 11): an existing revision id POSTed with *other* content is refused
    // with 409 and the stored revision is kept unchanged (Chef also answers 409; the console says why).
    it('POST …/revisions with an existing revision id and other content returns 409 and keeps the stored revision', async () => {
      const changed = mutate(example(), (d) => {
        d.run_list = ['recipe[policyfile_demo::other_recipe]'];
      });
      const res = await chef.request('POST', 'policies/example-policy/revisions', { as, body: changed });
      expect(res.status).toBe(409);
      const stored = await chef.request('GET', `policies/example-policy/revisions/${MIN_REV}`, { as });
      expect(stored.json.run_list).toEqual(['recipe[policyfile_demo::default]']);
    });
  });
});

const revisionUrl = `policies/example-policy/revisions/${MIN_REV}`;

describe('/policies/:policy_name/revisions/:revision_id (pedant "Named policy revision endpoint")', () => {
  // pedant: spec/api/policies/complete_endpoint_spec.rb "when the policy_name doesn't exist" "GET /policies/:policy_name/revisions/:revision_id returns 404"
  it("GET returns 404 when the policy doesn't exist", async () => {
    expect((await chef.request('GET', revisionUrl, { as })).status).toBe(404);
  });

  // pedant: spec/api/policies/complete_endpoint_spec.rb "when the policy_name doesn't exist" "DELETE /policies/:policy_name/revisions/:revision_id returns 404"
  it("DELETE returns 404 when the policy doesn't exist", async () => {
    expect((await chef.request('DELETE', revisionUrl, { as })).status).toBe(404);
  });

  describe("when the policy_name exists but :revision_id doesn't", () => {
    beforeEach(async () => {
      expect((await chef.request('POST', 'policies/example-policy/revisions', { as, body: example(OTHER_REV) })).status).toBe(201);
    });

    // pedant: spec/api/policies/complete_endpoint_spec.rb "when the policy_name exists but :revision_id doesn't" "GET /policies/:policy_name/revisions/:revision_id returns 404"
    it('GET returns 404', async () => {
      expect((await chef.request('GET', revisionUrl, { as })).status).toBe(404);
    });

    // pedant: spec/api/policies/complete_endpoint_spec.rb "when the policy_name exists but :revision_id doesn't" "DELETE /policies/:policy_name/revisions/:revision_id returns 404"
    it('DELETE returns 404 and keeps the other revision', async () => {
      expect((await chef.request('DELETE', revisionUrl, { as })).status).toBe(404);
      expect((await chef.request('GET', `policies/example-policy/revisions/${OTHER_REV}`, { as })).status).toBe(200);
    });
  });

  describe('when the policy_name exists and :revision_id exists', () => {
    beforeEach(async () => {
      expect((await chef.request('POST', 'policies/example-policy/revisions', { as, body: example() })).status).toBe(201);
    });

    // pedant: spec/api/policies/complete_endpoint_spec.rb "GET /policies/:policy_name/revisions/:revision_id returns 200, with the policy as the body"
    it('GET returns 200 with the document and policy_group_list []', async () => {
      const res = await chef.request('GET', revisionUrl, { as });
      expect(res.status).toBe(200);
      expect(res.json).toStrictEqual({ ...example(), policy_group_list: [] });
    });

    // pedant: spec/api/policies/complete_endpoint_spec.rb "DELETE /policies/:policy_name/revisions/:revision_id returns 200, with the policy as the body"
    it('DELETE returns 200 with the document (no policy_group_list) and removes the revision', async () => {
      const res = await chef.request('DELETE', revisionUrl, { as });
      expect(res.status).toBe(200);
      expect(res.json).toStrictEqual(example());
      expect((await chef.request('GET', revisionUrl, { as })).status).toBe(404);
    });

    // pedant: spec/api/policies/complete_endpoint_spec.rb "DELETE /policies/:policy_name/revisions/:revision_id doesn't delete authz information for :policy_name"
    it('DELETE keeps the policy name usable: the revision can be posted again', async () => {
      expect((await chef.request('DELETE', revisionUrl, { as })).status).toBe(200);
      expect((await chef.request('GET', revisionUrl, { as })).status).toBe(404);
      expect((await chef.request('POST', 'policies/example-policy/revisions', { as, body: example() })).status).toBe(201);
      expect((await chef.request('GET', revisionUrl, { as })).status).toBe(200);
    });

    // Deliberate console difference (issue 11): a revision that a stage (policy group) runs cannot be deleted:
    // 409, and the revision and the group's assignment stay. Chef deletes it (and the association with it).
    it('DELETE of a revision a policy group runs returns 409 and deletes nothing', async () => {
      expect((await put('policy_groups/dev/policies/example-policy', example())).status).toBe(201);
      const res = await chef.request('DELETE', revisionUrl, { as });
      expect(res.status).toBe(409);
      expect(Array.isArray(res.json.error)).toBe(true);
      const stored = await chef.request('GET', revisionUrl, { as });
      expect(stored.status).toBe(200);
      expect(stored.json.policy_group_list).toEqual(['dev']);
      expect((await chef.request('GET', 'policy_groups/dev/policies/example-policy', { as })).status).toBe(200);
    });
  });
});

// The revision document validation of pedant's "when the request body is invalid" examples (written there against
// PUT /policy_groups/:g/policies/:p, see chef-pedant-policy-groups) also guards POST /policies/:name/revisions in
// erchef (both call oc_chef_policy_revision:parse_binary_json). A representative subset on this endpoint:
const postValidation: [string, (p: PolicyDoc) => void, string][] = [
  // pedant: spec/api/policies/complete_endpoint_spec.rb "because of missing revision id field"
  ['revision_id missing', (p) => delete p.revision_id, "Field 'revision_id' missing"],
  // pedant: spec/api/policies/complete_endpoint_spec.rb "because run_list field is the wrong type"
  ['run_list an object', (p) => (p.run_list = {}), "Field 'run_list' is not a valid run list"],
  // pedant: spec/api/policies/complete_endpoint_spec.rb "because the run_list has invalid item 'recipe[foo]'"
  ['run_list item recipe[foo]', (p) => (p.run_list = ['recipe[foo]']), "Field 'run_list' is not a valid run list"],
  // pedant: spec/api/policies/complete_endpoint_spec.rb "because cookbook_locks contains an entry that is missing the identifier field"
  ['lock without identifier', (p) => (p.cookbook_locks.invalid_member = { dotted_decimal_identifier: '1.2.3' }), "Field 'identifier' missing"],
];

describe('POST /policies/:policy_name/revisions validation (pedant "an invalid policy document")', () => {
  it.each(postValidation)('%s: 400 with one error message', async (_label, change, message) => {
    const res = await chef.request('POST', 'policies/example-policy/revisions', { as, body: mutate(example(), change) });
    expect(res.status).toBe(400);
    expect(res.json.error).toEqual([message]);
    expect((await chef.request('GET', 'policies/example-policy', { as })).status).toBe(404);
  });

  // issue 11: "`invalid JSON` for malformed bodies" (erchef chef_wm_malformed {error, invalid_json}).
  it('malformed JSON: 400 invalid JSON', async () => {
    const res = await chef.request('POST', 'policies/example-policy/revisions', { as, body: '{"name": "example-policy",' });
    expect(res.status).toBe(400);
    expect(res.json.error).toEqual(['invalid JSON']);
  });
});

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
