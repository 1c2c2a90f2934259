/**
 * oc-chef-pedant, ported: sandboxes on the organization routes.
 * Source: chef/chef-server oc-chef-pedant/spec/api/sandboxes/complete_endpoint_spec.rb
 * (helpers: lib/pedant/rspec/cookbook_util.rb, lib/pedant/sandbox.rb). Pedant acts as the org admin on an
 * empty organization: `seed: false`, as 'admin'. File contents are random, as `Pedant::Utility.new_random_file`.
 */
import { describe, expect, it } from 'vitest';
import { useChefHarness } from '@/test/chef-harness';
import { commitSandbox, createSandbox, md5, randomContent, uploadBytes } from '@/test/chef-pedant-artifact-helpers';

const chef = useChefHarness({ seed: false });

const as = 'admin' as const;
const URL_RE = /^http[s]?:\/\/.*$/;

/** Chef's JSON body limit on the organization routes (lib/chef/http.ts): CHEF_MAX_REQUEST_SIZE, 2,000,000 bytes by default. */
const maxBody = () => Number(process.env.CHEF_MAX_REQUEST_SIZE) || 2_000_000;

/** `doc` as JSON padded with a `padding` field to exactly `size` bytes (pedant's maxfile.json / toobigfile.json). */
function padded(doc: Record<string, unknown>, size: number): string {
  const base = JSON.stringify({ ...doc, padding: '' });
  return JSON.stringify({ ...doc, padding: 'a'.repeat(size - base.length) });
}

describe('Sandboxes Endpoint, POST', () => {
  // pedant: spec/api/sandboxes/complete_endpoint_spec.rb "when creating a new sandbox" "should respond with 201 Created"
  it('creates a sandbox: 201 with sandbox_id, uri and an upload url for each checksum', async () => {
    const [c0, c1] = [md5(randomContent()), md5(randomContent())];
    expect(c0).not.toBe(c1);
    const r = await chef.request('POST', 'sandboxes', { as, body: { checksums: { [c0]: null, [c1]: null } } });
    expect(r.status).toBe(201);
    const id = r.json.sandbox_id;
    expect(r.json).toStrictEqual({
      sandbox_id: id,
      uri: `${chef.orgUrl}/sandboxes/${id}`,
      checksums: {
        [c0]: { url: expect.stringMatching(URL_RE), needs_upload: true },
        [c1]: { url: expect.stringMatching(URL_RE), needs_upload: true },
      },
    });
  });

  // pedant: spec/api/sandboxes/complete_endpoint_spec.rb "when creating an invalid sandbox" "with an empty request hash" "should fail"
  // pedant: … "with an empty checksums hash" and "with non-null hash values": 400 {"error":["Bad checksums!"]}.
  it.each<[string, () => unknown, string]>([
    ['an empty request hash', () => ({}), "Field 'checksums' missing"],
    ['an empty checksums hash', () => ({ checksums: {} }), 'Bad checksums!'],
    ['non-null hash values', () => ({ checksums: { '0123456789abcdef0123456789abcdef': 'foo' } }), 'Bad checksums!'],
  ])('refuses %s (400)', async (_label, body, message) => {
    const r = await chef.request('POST', 'sandboxes', { as, body: body() });
    expect(r.status).toBe(400);
    // pedant compares the body exactly; the console adds its `errors` detail beside `error` (docs/pedant-notes.md).
    expect(r.json.error).toEqual([message]);
  });

  // pedant: spec/api/sandboxes/complete_endpoint_spec.rb "should require valid checksums to create a sandbox" (pending in pedant: "Fix this in Erchef")
  it('refuses a key that is not a checksum (400; pending in pedant, erchef accepts it)', async () => {
    const r = await chef.request('POST', 'sandboxes', { as, body: { checksums: { 'Not-A-Checksum-----$@%@#!': null } } });
    expect(r.status).toBe(400);
  });

  // pedant: spec/api/sandboxes/complete_endpoint_spec.rb "with existing file" "should recognize files that are already on the server"
  it('recognizes files that are already on the server', async () => {
    const [newFile, existing] = [randomContent(), randomContent()];
    const first = await createSandbox(chef, [existing]);
    expect((await uploadBytes(chef, first.checksums[md5(existing)].url!, existing)).status).toBeLessThan(300);
    expect((await commitSandbox(chef, first.sandbox_id)).status).toBe(200);

    const r = await chef.request('POST', 'sandboxes', { as, body: { checksums: { [md5(newFile)]: null, [md5(existing)]: null } } });
    expect(r.status).toBe(201);
    const id = r.json.sandbox_id;
    expect(r.json).toStrictEqual({
      sandbox_id: id,
      uri: `${chef.orgUrl}/sandboxes/${id}`,
      checksums: {
        [md5(newFile)]: { url: expect.stringMatching(URL_RE), needs_upload: true },
        [md5(existing)]: { needs_upload: false },
      },
    });
  });

  // pedant: spec/api/sandboxes/complete_endpoint_spec.rb respects_maximum_payload_size (POST), lib/pedant/rspec/common.rb
  // "exactly equal to the maximum allowable size" (2,000,000 bytes): not a 413.
  it('accepts a payload of 2,000,000 bytes (not 413)', async () => {
    const body = padded({ checksums: { [md5(randomContent())]: null } }, 2_000_000);
    const r = await chef.request('POST', 'sandboxes', { as, body, headers: { 'content-type': 'application/json' } });
    expect(r.status).not.toBe(413);
  });

  // pedant: respects_maximum_payload_size "exceeding the maximum allowable size" (POST)
  it('refuses a payload over 2,000,000 bytes (413, Chef\'s text)', async () => {
    const body = padded({ checksums: { [md5(randomContent())]: null } }, maxBody() + 1);
    const r = await chef.request('POST', 'sandboxes', { as, body, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(413);
    expect(r.json).toEqual({ error: 'JSON must be no more than 2000000 bytes.' });
  });
});

describe('Sandboxes Endpoint, PUT', () => {
  async function twoFileSandbox() {
    const files = [randomContent(), randomContent()];
    const sandbox = await createSandbox(chef, files);
    return { files, sandbox, sums: files.map((f) => md5(f)) };
  }

  // pedant: spec/api/sandboxes/complete_endpoint_spec.rb "when committing an incomplete sandbox" should_respond_with 503
  // Pedant expects 503; the console answers 400 (reported). Its message is pedant's `error_message`.
  it('refuses to commit an incomplete sandbox, naming the missing checksums', async () => {
    const { sandbox, sums } = await twoFileSandbox();
    const r = await chef.request('PUT', sandbox.uri.slice(chef.url.length), { as, body: { is_completed: true } });
    expect(r.status).toBe(400);
    // pedant's error_message lists the checksums sorted; the console lists them in the sandbox's order.
    const prefix = `Cannot update sandbox ${sandbox.sandbox_id}: the following checksums have not been uploaded: `;
    expect(r.json.error).toHaveLength(1);
    expect(r.json.error[0].startsWith(prefix)).toBe(true);
    expect(r.json.error[0].slice(prefix.length).split(', ').sort()).toEqual([...sums].sort());
  });

  // pedant: spec/api/sandboxes/complete_endpoint_spec.rb "when uploading expected files to the sandbox" "should respond with 200 OK or 204 No Content"
  it('accepts an expected file upload (200 or 204)', async () => {
    const { files, sandbox, sums } = await twoFileSandbox();
    const r = await uploadBytes(chef, sandbox.checksums[sums[0]].url!, files[0]);
    expect([200, 204]).toContain(r.status);
  });

  // pedant: spec/api/sandboxes/complete_endpoint_spec.rb "when uploading expected files to the sandbox" "response headers should not contain :content_length when response code is 204"
  it('a 204 to a repeated upload carries no Content-Length', async () => {
    const { files, sandbox, sums } = await twoFileSandbox();
    await uploadBytes(chef, sandbox.checksums[sums[0]].url!, files[0]);
    const again = await uploadBytes(chef, sandbox.checksums[sums[0]].url!, files[0]);
    expect([200, 204]).toContain(again.status);
    if (again.status === 204) expect(again.headers.get('content-length')).toBeNull();
  });

  // pedant: spec/api/sandboxes/complete_endpoint_spec.rb "when committing a sandbox after uploading files" "should respond with 200 OK"
  it('commits a sandbox after its files are uploaded: 200 with guid, name, checksums, create_time, is_completed', async () => {
    const { files, sandbox, sums } = await twoFileSandbox();
    for (const [i, f] of files.entries()) expect([200, 204]).toContain((await uploadBytes(chef, sandbox.checksums[sums[i]].url!, f)).status);
    const r = await chef.request('PUT', sandbox.uri.slice(chef.url.length), { as, body: { is_completed: true } });
    expect(r.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    expect(r.json).toMatchObject({ guid: sandbox.sandbox_id, name: sandbox.sandbox_id, checksums: sums });
    expect(r.json).toHaveProperty('is_completed');
    // pedant: create_time matches /<today>T\d\d:\d\d:\d\d[+-]\d\d:\d\d/ (an explicit offset, no fractional seconds).
    expect(r.json.create_time).toMatch(new RegExp(`^${today}T\\d\\d:\\d\\d:\\d\\d[+-]\\d\\d:\\d\\d$`));
  });

  // pedant: spec/api/sandboxes/complete_endpoint_spec.rb "'is_committed' should be true for a committed sandbox"
  it('is_completed is true for a committed sandbox', async () => {
    const { files, sandbox, sums } = await twoFileSandbox();
    for (const [i, f] of files.entries()) await uploadBytes(chef, sandbox.checksums[sums[i]].url!, f);
    const r = await commitSandbox(chef, sandbox.sandbox_id);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ guid: sandbox.sandbox_id, checksums: sums, is_completed: true });
  });

  // pedant: spec/api/sandboxes/complete_endpoint_spec.rb "should not leak CouchDB '_rev' fields after committing a sandbox"
  it('does not leak _rev after committing', async () => {
    const { files, sandbox, sums } = await twoFileSandbox();
    for (const [i, f] of files.entries()) await uploadBytes(chef, sandbox.checksums[sums[i]].url!, f);
    const r = await commitSandbox(chef, sandbox.sandbox_id);
    expect(r.status).toBe(200);
    expect(r.json).not.toHaveProperty('_rev');
  });

  // pedant: spec/api/sandboxes/complete_endpoint_spec.rb respects_maximum_payload_size (PUT) "exactly equal to the maximum allowable size"
  it('a commit payload of 2,000,000 bytes is not a 413', async () => {
    const { sandbox } = await twoFileSandbox();
    const r = await chef.request('PUT', `sandboxes/${sandbox.sandbox_id}`, { as, body: padded({ is_completed: true }, 2_000_000), headers: { 'content-type': 'application/json' } });
    expect(r.status).not.toBe(413);
  });

  // pedant: respects_maximum_payload_size "exceeding the maximum allowable size" (PUT)
  it('refuses a commit payload over 2,000,000 bytes (413)', async () => {
    const { sandbox } = await twoFileSandbox();
    const r = await chef.request('PUT', `sandboxes/${sandbox.sandbox_id}`, { as, body: padded({ is_completed: true }, maxBody() + 1), headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(413);
  });
});
