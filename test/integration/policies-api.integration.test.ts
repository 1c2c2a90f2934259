import { db } from '@/lib/db/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { fixtureJson, fixtureText } from '@/test/fixtures';
import { apiRoutes, call, seed, snapshot, tokenFor } from '@/test/helpers';
const policies = apiRoutes('/api/v1/policies');
const policy = apiRoutes('/api/v1/policies/[name]');
const revisions = apiRoutes('/api/v1/policies/[name]/revisions');
const revision = apiRoutes('/api/v1/policies/[name]/revisions/[rev]');
const orphans = apiRoutes('/api/v1/orphans/cleanup');
const openapi = apiRoutes('/api/v1/openapi.json');

let admin: string, dev: string, viewer: string, dba: string;

beforeAll(async () => {
  await seed();
  // Deletion mechanics here; deleting a policy that runs in a protected stage (issue 15) is covered in guarded-stages.integration.test.ts.
  await db().stageProtection.deleteMany();
  [admin, dev, viewer, dba] = await Promise.all(['admin@example.com', 'dev@example.com', 'viewer@example.com', 'dba@example.com'].map(tokenFor));
  // Touch every token once so lastUsedAt does not show up in snapshots.
  for (const t of [admin, dev, viewer, dba]) await call(policies.GET, 'GET', { token: t });
});

type BadCase = { id: string; description: string; url_name: string; body: string; status: number; paths: string[] };
const badCases = fixtureJson<{ cases: BadCase[] }>('bad-locks.json').cases;

describe('bad locks (fixtures/bad-locks.json)', () => {
  it.each(badCases.map((c) => [c.id, c] as const))('%s is refused and stores nothing', async (_id, c) => {
    const before = snapshot();
    const res = await call(revisions.POST, 'POST', { token: admin, body: c.body, params: { name: decodeURIComponent(c.url_name) } });
    expect(res.status).toBe(c.status);
    expect(Array.isArray(res.json.error)).toBe(true);
    expect(res.json.error.length).toBeGreaterThan(0);
    for (const p of c.paths) expect(res.json.errors.map((e: { path: string }) => e.path)).toContain(p);
    expect(snapshot()).toBe(before);
  });
});

describe('POST /policies/:name/revisions', () => {
  it.each(['rfc-minimal.lock.json', 'rfc-demo.lock.json', 'base.lock.json'])('uploads %s (201) and reads it back byte-for-byte', async (file) => {
    const text = fixtureText(`locks/${file}`);
    const doc = JSON.parse(text);
    const res = await call(revisions.POST, 'POST', { token: admin, body: text, params: { name: doc.name } });
    expect(res.status).toBe(201);
    expect(res.text).toBe(text);
    const read = await call(revision.GET, 'GET', { token: viewer, params: { name: doc.name, rev: doc.revision_id } });
    expect(read.status).toBe(200);
    // The stored bytes, with policy_group_list appended before the closing brace.
    expect(read.text.startsWith(text.slice(0, text.lastIndexOf('}')).trimEnd())).toBe(true);
    expect(read.json).toEqual({ ...doc, policy_group_list: [] });
  });

  it('accepts the same content again idempotently (200) and refuses other content under the same id (409)', async () => {
    const text = fixtureText('locks/rfc-minimal.lock.json');
    const again = await call(revisions.POST, 'POST', { token: admin, body: JSON.stringify(JSON.parse(text)), params: { name: 'some_policy_name' } });
    expect(again.status).toBe(200);
    const before = snapshot();
    const changed = JSON.parse(text);
    changed.run_list = ['recipe[other::default]'];
    const res = await call(revisions.POST, 'POST', { token: admin, body: changed, params: { name: 'some_policy_name' } });
    expect(res.status).toBe(409);
    expect(res.json.error[0]).toBe("Policy 'some_policy_name' with revision_id 'edd40c30c4e0ebb3658abde4620597597d2e9c17' already exists.");
    expect(snapshot()).toBe(before);
  });

  it('refuses bodies over the limit with 413 and absurd nesting with 400', async () => {
    const before = snapshot();
    process.env.MAX_BODY_BYTES = '1000';
    try {
      const big = { name: 'webapp', revision_id: 'x1', run_list: [], cookbook_locks: {}, default_attributes: { pad: 'x'.repeat(2000) } };
      const res = await call(revisions.POST, 'POST', { token: admin, body: big, params: { name: 'webapp' } });
      expect(res.status).toBe(413);
      expect(res.json.error[0]).toMatch(/limit is 1000 bytes/);
    } finally {
      delete process.env.MAX_BODY_BYTES;
    }
    const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    const body = `{"name":"webapp","revision_id":"x2","run_list":[],"cookbook_locks":{},"default_attributes":${deep}}`;
    const res = await call(revisions.POST, 'POST', { token: admin, body, params: { name: 'webapp' } });
    expect(res.status).toBe(400);
    expect(res.json.error[0]).toMatch(/nests deeper/);
    expect(snapshot()).toBe(before);
  });

  it('keeps __proto__ and constructor keys as plain data', async () => {
    const text = '{"name":"webapp","revision_id":"proto-1","run_list":[],"cookbook_locks":{},"default_attributes":{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}}';
    const res = await call(revisions.POST, 'POST', { token: dev, body: text, params: { name: 'webapp' } });
    expect(res.status).toBe(201);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const read = await call(revision.GET, 'GET', { token: viewer, params: { name: 'webapp', rev: 'proto-1' } });
    expect(read.text).toContain('"__proto__":{"polluted":true}');
  });

  it('needs ownership of the policy: a viewer and another team are refused (403) and nothing changes', async () => {
    const lock = { name: 'webapp', revision_id: 'not-yours', run_list: [], cookbook_locks: {} };
    const before = snapshot();
    for (const token of [viewer, dba]) {
      const res = await call(revisions.POST, 'POST', { token, body: lock, params: { name: 'webapp' } });
      expect(res.status).toBe(403);
      expect(res.json.error[0]).toMatch(/upload or compose this policy/);
    }
    expect(snapshot()).toBe(before);
  });

  it('refuses calls without a token (401) or with a bad one', async () => {
    for (const token of [null, 'pc_nope']) {
      const res = await call(revisions.POST, 'POST', { token, body: {}, params: { name: 'webapp' } });
      expect(res.status).toBe(401);
      expect(res.json.error[0]).toMatch(/Authentication required/);
    }
  });
});

describe('GET /policies and /policies/:name', () => {
  it("lists policies in Chef's shape", async () => {
    const res = await call(policies.GET, 'GET', { token: viewer });
    expect(res.status).toBe(200);
    expect(res.json.webapp.uri).toBe('/api/v1/policies/webapp');
    expect(Object.keys(res.json.webapp.revisions).length).toBeGreaterThanOrEqual(3);
    for (const v of Object.values(res.json.webapp.revisions)) expect(v).toEqual({});
  });

  it('returns one policy, or 404 with a Chef-style body', async () => {
    expect((await call(policy.GET, 'GET', { token: viewer, params: { name: 'base' } })).json.revisions).toBeDefined();
    const missing = await call(policy.GET, 'GET', { token: viewer, params: { name: 'nope' } });
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ error: ['Cannot load policy nope'], errors: [] });
  });

  it('GET revision adds policy_group_list in stage order; a missing revision is 404', async () => {
    const list = await call(revisions.GET, 'GET', { token: viewer, params: { name: 'bastion' } });
    const [rev] = Object.keys(list.json.revisions);
    const res = await call(revision.GET, 'GET', { token: viewer, params: { name: 'bastion', rev } });
    expect(res.json.policy_group_list).toEqual(['dev', 'qa', 'staging', 'production']);
    const missing = await call(revision.GET, 'GET', { token: viewer, params: { name: 'bastion', rev: 'nope' } });
    expect(missing.status).toBe(404);
    expect(missing.json.error[0]).toBe('Cannot load policy bastion with revision_id nope');
  });
});

describe('orphans and deletion', () => {
  it('lists orphans, refuses cleanup to non-admins, cleans up for admins', async () => {
    const res = await call(revisions.GET, 'GET', { token: viewer, params: { name: 'some_policy_name' }, query: 'orphans=true' });
    expect(Object.keys(res.json.revisions)).toEqual(['edd40c30c4e0ebb3658abde4620597597d2e9c17']);
    const before = snapshot();
    const refused = await call(orphans.POST, 'POST', { token: dev, body: {} });
    expect(refused.status).toBe(403);
    expect(snapshot()).toBe(before);
    const dry = await call(orphans.POST, 'POST', { token: admin, body: { policy: 'some_policy_name', dry_run: true } });
    expect(dry.json.removed.some_policy_name).toHaveLength(1);
    expect(snapshot()).toBe(before);
    const done = await call(orphans.POST, 'POST', { token: admin, body: { policy: 'some_policy_name' } });
    expect(done.status).toBe(200);
    expect((await call(revisions.GET, 'GET', { token: viewer, params: { name: 'some_policy_name' }, query: 'orphans=true' })).json.revisions).toEqual({});
  });

  it('refuses to delete a revision a stage runs (409), deletes an orphan (200)', async () => {
    const list = await call(revisions.GET, 'GET', { token: viewer, params: { name: 'bastion' } });
    const [rev] = Object.keys(list.json.revisions);
    const busy = await call(revision.DELETE, 'DELETE', { token: admin, params: { name: 'bastion', rev } });
    expect(busy.status).toBe(409);
    expect(busy.json.error[0]).toMatch(/active in dev, qa, staging, production/);
    const gone = await call(revision.DELETE, 'DELETE', { token: dev, params: { name: 'webapp', rev: 'proto-1' } });
    expect(gone.status).toBe(200);
    expect(gone.json.revision_id).toBe('proto-1');
  });

  it('deletes a whole policy (admin only), keeping its pointer history', async () => {
    const before = snapshot();
    expect((await call(policy.DELETE, 'DELETE', { token: dev, params: { name: 'bastion' } })).status).toBe(403);
    expect(snapshot()).toBe(before);
    const res = await call(policy.DELETE, 'DELETE', { token: admin, params: { name: 'bastion' } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json.revisions)).toHaveLength(1);
    expect((await call(policy.GET, 'GET', { token: admin, params: { name: 'bastion' } })).status).toBe(404);
  });
});

describe('GET /openapi.json', () => {
  it('is public, generated from the route contracts, and sends a request id', async () => {
    const res = await openapi.GET(new Request('http://localhost/api/v1/openapi.json'), { params: Promise.resolve({}) });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const doc = await res.json();
    expect(doc.openapi).toBe('3.1.0');
    // Snake_case request fields, as clients send them (lib/api/openapi-coverage.test.ts checks every route and method).
    const rollback = doc.paths['/policy_groups/{group}/policies/{name}/rollback'].post.requestBody.content['application/json'].schema;
    expect(Object.keys(rollback.properties)).toEqual(['to_revision_id', 'expected_revision_id', 'reason', 'override_reason', 'verdict_override_reason']);
  });
});

describe('malformed names', () => {
  it('a stray % in a policy name is a 400 naming the field, not a 500', async () => {
    const res = await call(revisions.POST, 'POST', { token: admin, params: { name: 'bad%name' }, body: { name: 'bad%name', revision_id: 'r1', run_list: [], cookbook_locks: {} } });
    expect(res.status).toBe(400);
    expect(res.json.errors.map((e: { path: string }) => e.path)).toContain('/name');
  });
});

describe('concurrent uploads', () => {
  it('ten simultaneous uploads of one new policy store it once and never fail with 500', async () => {
    const body = { name: 'brand-new', revision_id: 'bn-1', run_list: [], cookbook_locks: {} };
    const results = await Promise.all(Array.from({ length: 10 }, () => call(revisions.POST, 'POST', { token: dev, params: { name: 'brand-new' }, body })));
    for (const r of results) expect([200, 201, 409]).toContain(r.status);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    const list = await call(revisions.GET, 'GET', { token: viewer, params: { name: 'brand-new' } });
    expect(Object.keys(list.json.revisions)).toEqual(['bn-1']);
  });
});
