/**
 * oc-chef-pedant, ported: cookbook artifacts on the organization routes.
 * Source: chef/chef-server oc-chef-pedant/spec/api/cookbook_artifacts/{create,read,update,delete}_spec.rb
 * and lib/pedant/rspec/cookbook_util.rb. Every pedant example runs under API v0 and API v2 (`it_behaves_like … 0/2`),
 * so each table row here runs for both. Pedant assumes an empty organization and acts as the org admin:
 * `seed: false`, as 'admin'. Pedant's `normal_user` is a member of the org who may write cookbooks: 'dev'
 * in the console only when that user is in a team; examples that need it say so.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { useChefHarness, type ChefActor } from '@/test/chef-harness';
import { dummyRecipe, expectMatchingArtifact, md5, newCookbookArtifact, randomContent, uploadFilesToSandbox } from '@/test/chef-pedant-artifact-helpers';

const chef = useChefHarness({ seed: false });

const as = 'admin' as const;
const ID1 = '1'.repeat(40);
const ID2 = '2'.repeat(40);
const ID3 = '3'.repeat(40);
const url = (name: string, id: string) => `${chef.orgUrl}/cookbook_artifacts/${name}/${id}`;

/** pedant's after-hooks: delete every artifact of the org. */
async function resetArtifacts() {
  const list = await chef.request('GET', 'cookbook_artifacts?num_versions=all', { as });
  for (const [name, entry] of Object.entries<any>(list.json ?? {})) {
    for (const v of entry.versions) await chef.request('DELETE', `cookbook_artifacts/${name}/${v.identifier}`, { as });
  }
}

beforeEach(async () => {
  await resetArtifacts();
});

const withoutJsonClass = (doc: Record<string, any>) => {
  const copy = structuredClone(doc);
  delete copy.json_class;
  return copy;
};

describe.each([0, 2])('cookbook_artifacts, API v%i', (apiVersion) => {
  const req = (method: string, path: string, body?: unknown, who: ChefActor = as) =>
    chef.request(method, path, { as: who, body, apiVersion });
  const newArtifact = (name: string, id: string, opts = {}) => newCookbookArtifact(apiVersion, name, id, opts);

  describe('PUT /cookbook_artifacts/<name>/<identifier> [create] (create_spec.rb)', () => {
    // pedant: spec/api/cookbook_artifacts/create_spec.rb "with a basic cookbook" "creates a basic cookbook_artifact"
    it('creates a basic cookbook_artifact, lists it and fetches it', async () => {
      const payload = newArtifact('pedant_basic', ID1);
      const create = await req('PUT', `cookbook_artifacts/pedant_basic/${ID1}`, payload);
      expect(create.status, create.text).toBe(201);
      const list = await req('GET', 'cookbook_artifacts/pedant_basic');
      expect(list.json).toHaveProperty('pedant_basic');
      expect(list.json.pedant_basic.versions).toHaveLength(1);
      expect(list.json.pedant_basic.versions[0].identifier).toBe(ID1);
      const got = await req('GET', `cookbook_artifacts/pedant_basic/${ID1}`);
      expect(got.status).toBe(200);
      expectMatchingArtifact(got.json, payload);
    });

    // pedant: spec/api/cookbook_artifacts/create_spec.rb "the cookbook version" "with versions at exactly 4 bytes" / "larger than 4 bytes" / "with 'prerelease' fields"
    it.each(['1.2.2147483647', '1.2.2147483669', '1.2.3.beta.5'])('accepts version %s (201)', async (version) => {
      const r = await req('PUT', `cookbook_artifacts/cookbook_name/${ID1}`, newArtifact('cookbook_name', ID1, { version }));
      expect(r.status, r.text).toBe(201);
    });

    // pedant: spec/api/cookbook_artifacts/create_spec.rb "checking metadata sections" "with valid metadata dependency '…'" "create returns 201"
    it.each(['> 1.0', '< 2.1.2', '3.3', '<= 4.6', '~> 5.6.2', '>= 6.0'])('accepts metadata dependency apt %s and serves it back', async (dep) => {
      const payload = newArtifact('cookbook_name', ID1, { version: '1.2.3' });
      delete payload.json_class;
      payload.metadata.dependencies = { 'chef-client': '> 2.0.0', apt: dep };
      const r = await req('PUT', `cookbook_artifacts/cookbook_name/${ID1}`, payload);
      expect(r.status, r.text).toBe(201);
      const got = await req('GET', `cookbook_artifacts/cookbook_name/${ID1}`);
      expect(got.status).toBe(200);
      expect(got.json).toMatchObject(payload);
    });

    // pedant: spec/api/cookbook_artifacts/create_spec.rb "with metadata.providing set to valid value …" "create returns 201"
    it.each<[string, unknown]>([
      ['cats::sleep', 'cats::sleep'],
      ['here(:kitty, :time_to_eat)', 'here(:kitty, :time_to_eat)'],
      ['service[snuggle]', 'service[snuggle]'],
      ['empty string', ''],
      ['1', 1],
      ['true', true],
      ['an array', ['cats', 'sleep', 'here']],
      ['a hash', { 'cats::sleep': '0.0.1', 'here(:kitty, :time_to_eat)': '0.0.1', 'service[snuggle]': '0.0.1' }],
    ])('accepts metadata.providing = %s and serves it back', async (_label, providing) => {
      const payload = newArtifact('cookbook_name', ID1, { version: '1.2.3' });
      payload.metadata.providing = providing;
      const r = await req('PUT', `cookbook_artifacts/cookbook_name/${ID1}`, payload);
      expect(r.status, r.text).toBe(201);
      const got = await req('GET', `cookbook_artifacts/cookbook_name/${ID1}`);
      expect(got.status).toBe(200);
      expect(got.json).toMatchObject(payload);
    });

    // pedant: spec/api/cookbook_artifacts/create_spec.rb "with invalid cookbook artifact identifier in url" "should respond with an error"
    it('refuses an invalid identifier in the URL (400 Field \'identifier\' invalid)', async () => {
      const r = await req('PUT', 'cookbook_artifacts/cookbook_name/foo@bar', newArtifact('cookbook_name', 'foo@bar'));
      expect(r.status).toBe(400);
      expect(r.json).toEqual({ error: ["Field 'identifier' invalid"] });
    });

    // pedant: spec/api/cookbook_artifacts/create_spec.rb "when the cookbook name is invalid" "responds with a 400"
    it('refuses an invalid cookbook name (400 Field \'name\' invalid)', async () => {
      const r = await req('PUT', `cookbook_artifacts/first@second/${ID1}`, newArtifact('first@second', ID1));
      expect(r.status).toBe(400);
      expect(r.json).toEqual({ error: ["Field 'name' invalid"] });
    });

    // pedant: spec/api/cookbook_artifacts/create_spec.rb "when the identifier in the URL doesn't match the payload" "responds with a 400"
    it('refuses an identifier in the URL that does not match the payload', async () => {
      const r = await req('PUT', `cookbook_artifacts/cookbook_name/${ID1}`, newArtifact('cookbook_name', 'f'.repeat(40)));
      expect(r.status).toBe(400);
      // pedant: "Field 'identifier' invalid : <url id> does not match <body id>"; the console's message differs (reported).
      expect(r.json.error).toEqual([expect.stringContaining("Field 'identifier' invalid")]);
    });

    // pedant: spec/api/cookbook_artifacts/create_spec.rb "when the cookbook name in the URL doesn't match the payload" "mismatched cookbook_name is a 400"
    // (pedant puts cookbook_version "1.2.3" where the identifier goes, both in the URL and in the payload.)
    it('refuses a cookbook name in the URL that does not match the payload', async () => {
      const r = await req('PUT', 'cookbook_artifacts/cookbook_name/1.2.3', newArtifact('foobar', '1.2.3'));
      expect(r.status).toBe(400);
      expect(r.json).toEqual({ error: ["Field 'name' invalid : cookbook_name does not match foobar"] });
    });

    // pedant: spec/api/cookbook_artifacts/create_spec.rb "when uploading a cookbook artifact with a missing checksum" "specifying file not in sandbox is a 400"
    // pedant adds the recipe to the top-level "recipes" segment (a v0 field) under both API versions.
    // The console checks every file a manifest lists, in all_files and in the v0/v1 segments alike.
    it('refuses a manifest naming a file that was never uploaded (400) and stores nothing', async () => {
      const payload = newArtifact('cookbook_name', ID1);
      payload.recipes = [{ name: 'default.rb', path: 'recipes/default.rb', checksum: '8288b67da0793b5abec709d6226e6b73', specificity: 'default' }];
      const r = await req('PUT', `cookbook_artifacts/cookbook_name/${ID1}`, payload);
      expect(r.status).toBe(400);
      expect(r.json).toEqual({ error: ["Manifest has a checksum that hasn't been uploaded."] });
      expect((await req('GET', `cookbook_artifacts/cookbook_name/${ID1}`)).status).toBe(404);
    });

    // pedant: spec/api/cookbook_artifacts/create_spec.rb "creating good cookbook_artifacts to test defaults" "allows override of defaults"
    it('stores overridden metadata defaults', async () => {
      const payload = newArtifact('cookbook_name', ID1, {
        version: '1.2.3', description: 'my cookbook', long_description: 'this is a great cookbook',
        maintainer: 'This is my name', maintainer_email: 'cookbook_author@example.com', license: 'MPL',
      });
      expect((await req('PUT', `cookbook_artifacts/cookbook_name/${ID1}`, payload)).status).toBe(201);
      const got = await req('GET', `cookbook_artifacts/cookbook_name/${ID1}`);
      expect(got.status).toBe(200);
      expect(got.json).toMatchObject(withoutJsonClass(payload));
    });

    // pedant: spec/api/cookbook_artifacts/create_spec.rb "PUT multiple cookbook_artifacts" "allows us to create 2 revisions of the same cookbook"
    it('creates two identifiers of the same cookbook', async () => {
      const p1 = newArtifact('multiple_versions', ID1, {});
      const p2 = newArtifact('multiple_versions', ID2, {});
      expect((await req('PUT', `cookbook_artifacts/multiple_versions/${ID1}`, p1)).status).toBe(201);
      expect((await req('PUT', `cookbook_artifacts/multiple_versions/${ID2}`, p2)).status).toBe(201);
      const g1 = await req('GET', `cookbook_artifacts/multiple_versions/${ID1}`);
      expect(g1.status).toBe(200);
      expect(g1.json).toMatchObject(withoutJsonClass(p1));
      const g2 = await req('GET', `cookbook_artifacts/multiple_versions/${ID2}`);
      expect(g2.status).toBe(200);
      expect(g2.json).toMatchObject(withoutJsonClass(p2));
    });
  });

  describe('GET /cookbook_artifacts (read_spec.rb)', () => {
    // pedant: spec/api/cookbook_artifacts/read_spec.rb "with no cookbook artifacts on the server" "responds with 200"
    it('answers {} with no artifacts', async () => {
      const r = await req('GET', 'cookbook_artifacts/');
      expect(r.status).toBe(200);
      expect(r.json).toEqual({});
    });

    // pedant: spec/api/cookbook_artifacts/read_spec.rb "with existing cookbook_artifacts and multiple versions" "should respond with a cookbook collection containing all versions of each cookbook"
    it('lists every identifier of each cookbook', async () => {
      for (const [n, id] of [['cookbook_name', ID1], ['cookbook_name', ID2], ['cookbook_name2', ID3]]) {
        expect((await req('PUT', `cookbook_artifacts/${n}/${id}`, newArtifact(n, id))).status).toBe(201);
      }
      const r = await req('GET', 'cookbook_artifacts');
      expect(r.status).toBe(200);
      const base = `${chef.orgUrl}/cookbook_artifacts`;
      // pedant lists identifiers in upload order (ID1, ID2); the console lists each cookbook's newest first (reported),
      // so the versions are compared sorted.
      for (const entry of Object.values<any>(r.json)) entry.versions.sort((a: any, b: any) => a.identifier.localeCompare(b.identifier));
      expect(r.json).toStrictEqual({
        cookbook_name: { url: `${base}/cookbook_name`, versions: [{ identifier: ID1, url: url('cookbook_name', ID1) }, { identifier: ID2, url: url('cookbook_name', ID2) }] },
        cookbook_name2: { url: `${base}/cookbook_name2`, versions: [{ identifier: ID3, url: url('cookbook_name2', ID3) }] },
      });
    });
  });

  describe('GET /cookbook_artifacts/<name>/<identifier> (read_spec.rb)', () => {
    const name = 'the_cookbook_name';
    let content: string;
    beforeEach(async () => {
      content = `hello-${randomContent()}`;
      await uploadFilesToSandbox(chef, [content]);
      const payload = newArtifact(name, ID1, { version: '1.2.3', recipes: [dummyRecipe('test_recipe', md5(content))] });
      const r = await req('PUT', `cookbook_artifacts/${name}/${ID1}`, payload);
      expect(r.status, r.text).toBe(201);
    });

    const target = apiVersion >= 2 ? 'all_files' : 'recipes';
    const recipeName = apiVersion >= 2 ? 'recipes/test_recipe.rb' : 'test_recipe.rb';

    // pedant: spec/api/cookbook_artifacts/read_spec.rb "successful_cookbook_fetch" "returns a 200 response" ("as an admin user"; "as a normal user" is the dev row)
    // console rule for a normal user: only members of a team may read here in a seeded org; with seed: false the org admin is the member.
    it('returns a 200 response with the recipe (name, path, checksum, specificity, url)', async () => {
      const r = await req('GET', `cookbook_artifacts/${name}/${ID1}`);
      expect(r.status).toBe(200);
      const files = r.json[target];
      expect(files).toHaveLength(1);
      expect(Object.keys(files[0]).sort()).toEqual(['checksum', 'name', 'path', 'specificity', 'url']);
      expect(files[0]).toMatchObject({ name: recipeName, path: 'recipes/test_recipe.rb', specificity: 'default' });
      const expected = newArtifact(name, ID1, { version: '1.2.3' });
      delete files[0].url;
      delete files[0].checksum;
      expected[target] = [{ name: recipeName, path: 'recipes/test_recipe.rb', specificity: 'default' }];
      expectMatchingArtifact(r.json, expected);
    });

    // pedant: spec/api/cookbook_artifacts/read_spec.rb "successful_cookbook_fetch" "returns valid file URLs"
    it('returns valid file URLs', async () => {
      const r = await req('GET', `cookbook_artifacts/${name}/${ID1}`);
      const fileUrl: string = r.json[target][0].url;
      const path = fileUrl.startsWith(chef.url) ? fileUrl.slice(chef.url.length) : fileUrl;
      const got = await chef.request('GET', path, { as });
      expect(got.status).toBe(200);
      expect(got.text).toBe(content);
    });

    // pedant: spec/api/cookbook_artifacts/read_spec.rb "with invalid user" should_respond_with 401
    it('answers 401 to a caller without credentials', async () => {
      expect((await req('GET', `cookbook_artifacts/${name}/${ID1}`, undefined, 'anonymous')).status).toBe(401);
    });
  });

  describe('PUT /cookbook_artifacts/<name>/<identifier> [update] (update_spec.rb)', () => {
    const name = 'cookbook-to-be-modified';
    beforeEach(async () => {
      expect((await req('PUT', `cookbook_artifacts/${name}/${ID1}`, newArtifact(name, ID1, { version: '1.2.3' }))).status).toBe(201);
    });

    // pedant: spec/api/cookbook_artifacts/update_spec.rb "as admin user" "should respond with 409 Conflict"
    it('refuses another manifest at the same identifier with 409 and keeps the stored one', async () => {
      const updated = newArtifact(name, ID1, { version: '1.2.3' });
      updated.metadata.description = 'hi there';
      const r = await req('PUT', `cookbook_artifacts/${name}/${ID1}`, updated);
      expect(r.status).toBe(409);
      expect(r.json).toEqual({ error: 'Cookbook artifact already exists' });
      const got = await req('GET', `cookbook_artifacts/${name}/${ID1}`);
      expect(got.status).toBe(200);
      expect(got.json).toMatchObject(withoutJsonClass(newArtifact(name, ID1, { version: '1.2.3' })));
    });

    // console rule; Chef answers 409 to any re-PUT. The console answers 200 to the same manifest again (idempotent retries of chef push).
    it('console rule: the same manifest again is 200', async () => {
      const r = await req('PUT', `cookbook_artifacts/${name}/${ID1}`, newArtifact(name, ID1, { version: '1.2.3' }));
      expect(r.status).toBe(200);
    });

    // pedant: spec/api/cookbook_artifacts/update_spec.rb "with invalid user" "returns 401 and does not update cookbook"
    it('answers 401 to a caller without credentials and does not update', async () => {
      const updated = newArtifact(name, ID1, { version: '1.2.3' });
      updated.metadata.description = 'hi there';
      expect((await req('PUT', `cookbook_artifacts/${name}/${ID1}`, updated, 'anonymous')).status).toBe(401);
      const got = await req('GET', `cookbook_artifacts/${name}/${ID1}`);
      expect(got.json.metadata.description).not.toBe('hi there');
    });
  });

  describe('DELETE /cookbook_artifacts/<name>/<identifier> (delete_spec.rb)', () => {
    // pedant: spec/api/cookbook_artifacts/delete_spec.rb "for non-existent cookbooks" "returns 404" (and "with bad identifier")
    it.each([ID1, 'foo@bar'])('answers 404 not_found for a cookbook that does not exist (identifier %s)', async (id) => {
      const r = await req('DELETE', `cookbook_artifacts/non_existent/${id}`);
      expect(r.status).toBe(404);
      expect(r.json).toEqual({ error: ['not_found'] });
    });

    // pedant: spec/api/cookbook_artifacts/delete_spec.rb "when deleting non-existent version of an existing cookbook" "should respond with 404 (\"Not Found\") and not delete existing versions"
    it('answers 404 for an identifier the cookbook does not have, deleting nothing', async () => {
      expect((await req('PUT', `cookbook_artifacts/cookbook-to-be-deleted/${ID1}`, newArtifact('cookbook-to-be-deleted', ID1))).status).toBe(201);
      const r = await req('DELETE', `cookbook_artifacts/cookbook-to-be-deleted/${'f'.repeat(40)}`);
      expect(r.status).toBe(404);
      expect(r.json).toEqual({ error: ['not_found'] });
      expect((await req('GET', `cookbook_artifacts/cookbook-to-be-deleted/${ID1}`)).status).toBe(200);
    });

    // pedant: spec/api/cookbook_artifacts/delete_spec.rb "when deleting existent version of an existing cookbook" "should cleanup unused checksum data in s3/bookshelf"
    it('deletes an artifact with a recipe and cleans up its unused file', async () => {
      const content = `hello-${randomContent()}`;
      await uploadFilesToSandbox(chef, [content]);
      const payload = newArtifact('cookbook-to-be-deleted', ID1, { version: '1.2.3', recipes: [dummyRecipe('test_recipe', md5(content))] });
      expect((await req('PUT', `cookbook_artifacts/cookbook-to-be-deleted/${ID1}`, payload)).status).toBe(201);
      const got = await req('GET', `cookbook_artifacts/cookbook-to-be-deleted/${ID1}`);
      expect(got.status).toBe(200);
      const recipe = got.json[apiVersion >= 2 ? 'all_files' : 'recipes'][0];
      expect(recipe).toMatchObject({ name: apiVersion >= 2 ? 'recipes/test_recipe.rb' : 'test_recipe.rb', path: 'recipes/test_recipe.rb', specificity: 'default' });
      expect(typeof recipe.checksum).toBe('string');
      expect(typeof recipe.url).toBe('string');
      expect((await req('DELETE', `cookbook_artifacts/cookbook-to-be-deleted/${ID1}`)).status).toBe(200);
      expect((await req('GET', `cookbook_artifacts/cookbook-to-be-deleted/${ID1}`)).status).toBe(404);
      // pedant then expects the file URL to answer 404: the file no other artifact names is gone.
      expect((await req('GET', `file_store/checksums/${md5(content)}`)).status).toBe(404);
      // ... fetched as pedant does, unsigned, by the pre-signed URL the manifest gave.
      expect((await fetch(recipe.url)).status).toBe(404);
    });

    // pedant: spec/api/cookbook_artifacts/delete_spec.rb "as admin user" "should respond with 200 (\"OK\") and be deleted"
    it('as admin: 200 with the deleted artifact, then 404', async () => {
      const original = newArtifact('delete-cookbook', 'a'.repeat(40));
      expect((await req('PUT', `cookbook_artifacts/delete-cookbook/${'a'.repeat(40)}`, original)).status).toBe(201);
      const r = await req('DELETE', `cookbook_artifacts/delete-cookbook/${'a'.repeat(40)}`);
      expect(r.status).toBe(200);
      expectMatchingArtifact(r.json, withoutJsonClass(original));
      expect((await req('GET', `cookbook_artifacts/delete-cookbook/${'a'.repeat(40)}`)).status).toBe(404);
    });

    // pedant: spec/api/cookbook_artifacts/delete_spec.rb "with invalid user" "should respond with 401 (\"Unauthorized\") and does not delete cookbook"
    it('answers 401 to a caller without credentials and keeps the artifact', async () => {
      expect((await req('PUT', `cookbook_artifacts/delete-cookbook/${'a'.repeat(40)}`, newArtifact('delete-cookbook', 'a'.repeat(40)))).status).toBe(201);
      expect((await req('DELETE', `cookbook_artifacts/delete-cookbook/${'a'.repeat(40)}`, undefined, 'anonymous')).status).toBe(401);
      expect((await req('GET', `cookbook_artifacts/delete-cookbook/${'a'.repeat(40)}`)).status).toBe(200);
    });
  });

  describe('permissions and payload size (read_spec.rb, update_spec.rb, delete_spec.rb, create_spec.rb)', () => {
    const name = 'delete-cookbook';
    const id = 'a'.repeat(40);
    beforeEach(async () => {
      expect((await req('PUT', `cookbook_artifacts/${name}/${id}`, newArtifact(name, id))).status).toBe(201);
    });

    // pedant: spec/api/cookbook_artifacts/read_spec.rb "as a normal user" "returns a 200 response"
    it('a normal user of the organization reads an artifact (200)', async () => {
      const r = await req('GET', `cookbook_artifacts/${name}/${id}`, undefined, 'dev');
      expect(r.status).toBe(200);
      expectMatchingArtifact(r.json, withoutJsonClass(newArtifact(name, id)));
    });

    // pedant: spec/api/cookbook_artifacts/delete_spec.rb "as normal user" "should respond with 200 (\"OK\") and be deleted"
    // console rule; Chef answers 200 (pedant's normal user may delete). In the console only members of a team may
    // delete artifacts, and this empty organization has no teams: 403, the artifact stays.
    it('console rule: a user in no team may not delete (403)', async () => {
      const r = await req('DELETE', `cookbook_artifacts/${name}/${id}`, undefined, 'dev');
      expect(r.status).toBe(403);
      expect((await req('GET', `cookbook_artifacts/${name}/${id}`)).status).toBe(200);
    });

    // pedant: spec/api/cookbook_artifacts/delete_spec.rb "as a user outside of the organization" "should respond with 403 (\"Forbidden\") and does not delete cookbook"
    // The console serves one organization; its nearest caller is a user without rights (viewer, in no team).
    it('a user without rights may not delete (403) and the artifact stays', async () => {
      expect((await req('DELETE', `cookbook_artifacts/${name}/${id}`, undefined, 'viewer')).status).toBe(403);
      expect((await req('GET', `cookbook_artifacts/${name}/${id}`)).status).toBe(200);
    });

    // pedant: spec/api/cookbook_artifacts/update_spec.rb "as a user outside of the organization" "should respond with 403 (\"Forbidden\") and does not update cookbook"
    it('a user without rights may not update (403) and the artifact is unchanged', async () => {
      const updated = newArtifact(name, id);
      updated.metadata.description = 'hi there';
      expect((await req('PUT', `cookbook_artifacts/${name}/${id}`, updated, 'viewer')).status).toBe(403);
      const got = await req('GET', `cookbook_artifacts/${name}/${id}`);
      expect(got.status).toBe(200);
      expect(got.json).toMatchObject(withoutJsonClass(newArtifact(name, id)));
    });

    // console rule; Chef lets a client with create rights upload. In the console clients (nodes) cannot upload.
    it('console rule: a client may not upload (403)', async () => {
      const r = await req('PUT', `cookbook_artifacts/client_upload/${id}`, newArtifact('client_upload', id), 'client:pedant-node');
      expect(r.status).toBe(403);
    });

    // pedant: create_spec.rb / update_spec.rb respects_maximum_payload_size "exactly equal to the maximum allowable size" (lib/pedant/rspec/common.rb)
    it('a 2,000,000-byte manifest is not a 413', async () => {
      const doc = newArtifact('big_cookbook', id);
      const base = JSON.stringify({ ...doc, padding: '' });
      const body = JSON.stringify({ ...doc, padding: 'a'.repeat(2_000_000 - base.length) });
      const r = await chef.request('PUT', `cookbook_artifacts/big_cookbook/${id}`, { as, body, apiVersion, headers: { 'content-type': 'application/json' } });
      expect(r.status).not.toBe(413);
    });

    // pedant: respects_maximum_payload_size "exceeding the maximum allowable size"
    it('a manifest over 2,000,000 bytes is a 413', async () => {
      const limit = 2_000_000;
      const doc = newArtifact('big_cookbook', id);
      const body = JSON.stringify({ ...doc, padding: 'a'.repeat(limit + 1) });
      const r = await chef.request('PUT', `cookbook_artifacts/big_cookbook/${id}`, { as, body, apiVersion, headers: { 'content-type': 'application/json' } });
      expect(r.status).toBe(413);
    });
  });
});
