import { beforeAll, describe, expect, it } from 'vitest';
import { fixtureText } from '@/test/fixtures';
import { apiRoutes, call, seed, snapshot, tokenFor } from '@/test/helpers';
const groups = apiRoutes('/api/v1/policy_groups');
const group = apiRoutes('/api/v1/policy_groups/[group]');
const groupPolicy = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]');
const groupNodes = apiRoutes('/api/v1/policy_groups/[group]/nodes');
const groupPolicyNodes = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]/nodes');
const nodes = apiRoutes('/api/v1/nodes');
const node = apiRoutes('/api/v1/nodes/[name]');
const board = apiRoutes('/api/v1/board');
import { db } from '@/lib/db/client';
import { HOME_MEMBERSHIP } from '@/lib/services/organizations';

let admin: string, release: string, dev: string, viewer: string, stranger: string;

beforeAll(async () => {
  await seed();
  await db().user.create({ data: { email: 'stranger@example.com', name: 'No Grants', passwordHash: 'x', orgMemberships: HOME_MEMBERSHIP } });
  [admin, release, dev, viewer, stranger] = await Promise.all(
    ['admin@example.com', 'release@example.com', 'dev@example.com', 'viewer@example.com', 'stranger@example.com'].map(tokenFor),
  );
  for (const t of [admin, release, dev, viewer, stranger]) await call(groups.GET, 'GET', { token: t });
});

const webappLock = (revision_id: string, extra: Record<string, unknown> = {}) => ({
  name: 'webapp',
  revision_id,
  run_list: ['recipe[webapp::default]'],
  cookbook_locks: { webapp: { version: '1.6.0', identifier: 'abc123' } },
  ...extra,
});

describe('GET /policy_groups', () => {
  it("returns Chef's shape, in stage order, limited to viewable stages", async () => {
    const res = await call(groups.GET, 'GET', { token: viewer });
    expect(Object.keys(res.json)).toEqual(['dev', 'qa', 'staging', 'production']);
    expect(res.json.production.uri).toBe('/api/v1/policy_groups/production');
    expect(res.json.production.policies.webapp.revision_id).toMatch(/^[0-9a-f]{64}$/);
    expect((await call(groups.GET, 'GET', { token: stranger })).json).toEqual({});
  });

  it('omits the policies key for an empty group', async () => {
    expect((await call(group.PUT, 'PUT', { token: admin, params: { group: 'canary' }, body: { position: 4, description: 'Canary hosts' } })).status).toBe(201);
    const res = await call(group.GET, 'GET', { token: admin, params: { group: 'canary' } });
    expect(res.json).toEqual({ uri: '/api/v1/policy_groups/canary', position: 4, description: 'Canary hosts', open_enrollment: false });
  });
});

describe('PUT/DELETE /policy_groups/:group', () => {
  it('creating a stage needs admin; updating needs manage; bad fields name the field', async () => {
    const before = snapshot();
    expect((await call(group.PUT, 'PUT', { token: release, params: { group: 'perf' }, body: {} })).status).toBe(403);
    expect((await call(group.PUT, 'PUT', { token: release, params: { group: 'production' }, body: { description: 'x' } })).status).toBe(403);
    const bad = await call(group.PUT, 'PUT', { token: admin, params: { group: 'production' }, body: { position: -1, colour: 'red' } });
    expect(bad.status).toBe(400);
    expect(bad.json.errors.map((e: { path: string }) => e.path).sort()).toEqual(['/colour', '/position']);
    const badName = await call(group.PUT, 'PUT', { token: admin, params: { group: 'bad name' }, body: {} });
    expect(badName.status).toBe(400);
    expect(badName.json.errors[0].path).toBe('/name');
    expect(snapshot()).toBe(before);
    const ok = await call(group.PUT, 'PUT', { token: admin, params: { group: 'canary' }, body: { description: 'Canary fleet' } });
    expect(ok.status).toBe(200);
    expect(ok.json.description).toBe('Canary fleet');
  });

  it('404 for a missing group', async () => {
    const res = await call(group.GET, 'GET', { token: admin, params: { group: 'nope' } });
    expect(res.status).toBe(404);
    expect(res.json.error).toEqual(['Cannot load policy group nope']);
  });
});

describe('/policy_groups/:group/policies/:name', () => {
  it('serves the stored bytes to nodes', async () => {
    const res = await call(groupPolicy.GET, 'GET', { token: viewer, params: { group: 'production', name: 'webapp' } });
    expect(res.status).toBe(200);
    const stored = await db().groupPolicy.findFirstOrThrow({ where: { group: { name: 'production' }, policy: { name: 'webapp' } }, select: { revision: { select: { document: true } } } });
    expect(res.text).toBe(stored.revision.document);
  });

  it('404 with Chef\'s message for a missing association', async () => {
    const res = await call(groupPolicy.GET, 'GET', { token: admin, params: { group: 'canary', name: 'webapp' } });
    expect(res.status).toBe(404);
    expect(res.json.error).toEqual(['Cannot load policy webapp in policy group canary']);
  });

  it('PUT: 201 for a new association, 200 for a replacement, and history for both', async () => {
    const first = await call(groupPolicy.PUT, 'PUT', { token: admin, params: { group: 'canary', name: 'webapp' }, body: webappLock('canary-1') });
    expect(first.status).toBe(201);
    expect(first.json.revision_id).toBe('canary-1');
    const second = await call(groupPolicy.PUT, 'PUT', { token: admin, params: { group: 'canary', name: 'webapp' }, body: webappLock('canary-2') });
    expect(second.status).toBe(200);
    const same = await call(groupPolicy.PUT, 'PUT', { token: admin, params: { group: 'canary', name: 'webapp' }, body: webappLock('canary-2') });
    expect(same.status).toBe(200);
    const history = await db().pointerHistory.findMany({ where: { groupName: 'canary', policyName: 'webapp' }, orderBy: { createdAt: 'asc' } });
    expect(history.map((h) => [h.fromRevisionId, h.toRevisionId])).toEqual([
      [null, 'canary-1'],
      ['canary-1', 'canary-2'],
    ]);
    const events = await db().auditEvent.count({ where: { action: 'pointer.set', groupName: 'canary' } });
    expect(events).toBe(2);
  });

  it('PUT needs promote on the stage, and ownership for a new revision; refusals change nothing', async () => {
    const before = snapshot();
    // dev may promote to dev but not production
    expect((await call(groupPolicy.PUT, 'PUT', { token: dev, params: { group: 'production', name: 'webapp' }, body: webappLock('dev-try') })).status).toBe(403);
    // release may promote to production but does not own webapp, so may not author a new revision
    const r = await call(groupPolicy.PUT, 'PUT', { token: release, params: { group: 'production', name: 'webapp' }, body: webappLock('release-try') });
    expect(r.status).toBe(403);
    expect(r.json.error[0]).toMatch(/upload or compose/);
    expect((await call(groupPolicy.PUT, 'PUT', { token: viewer, params: { group: 'dev', name: 'webapp' }, body: webappLock('viewer-try') })).status).toBe(403);
    // invalid lock: 400, nothing stored
    const bad = await call(groupPolicy.PUT, 'PUT', { token: admin, params: { group: 'dev', name: 'webapp' }, body: { ...webappLock('bad'), run_list: ['role[x]'] } });
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0].path).toBe('/run_list/0');
    expect(snapshot()).toBe(before);
  });

  it('PUT with an existing revision needs only promote', async () => {
    const text = fixtureText('locks/rfc-minimal.lock.json');
    const res = await call(groupPolicy.PUT, 'PUT', { token: admin, params: { group: 'dev', name: 'some_policy_name' }, body: text });
    expect(res.status).toBe(201);
    expect(res.text).toBe(text);
  });

  it('DELETE removes the association and returns the revision it held', async () => {
    const res = await call(groupPolicy.DELETE, 'DELETE', { token: admin, params: { group: 'canary', name: 'webapp' } });
    expect(res.status).toBe(200);
    expect(res.json.revision_id).toBe('canary-2');
    expect((await call(groupPolicy.GET, 'GET', { token: admin, params: { group: 'canary', name: 'webapp' } })).status).toBe(404);
  });

  it('deleting a stage keeps the revisions', async () => {
    await call(groupPolicy.PUT, 'PUT', { token: admin, params: { group: 'canary', name: 'webapp' }, body: webappLock('canary-2') });
    const res = await call(group.DELETE, 'DELETE', { token: admin, params: { group: 'canary' } });
    expect(res.status).toBe(200);
    expect(res.json.policies.webapp.revision_id).toBe('canary-2');
    expect(await db().policyRevision.count({ where: { revisionId: 'canary-2' } })).toBe(1);
  });
});

describe('nodes', () => {
  it('lists a stage\'s nodes and the stale ones', async () => {
    const all = await call(groupNodes.GET, 'GET', { token: viewer, params: { group: 'production' } });
    expect(all.json.nodes.length).toBeGreaterThan(50);
    const stale = await call(groupPolicyNodes.GET, 'GET', { token: viewer, params: { group: 'staging', name: 'webapp' }, query: 'stale=true' });
    expect(stale.json.nodes.length).toBeGreaterThan(0);
    for (const n of stale.json.nodes) expect(n.revision_id).not.toBe(n.active_revision_id);
    const filtered = await call(nodes.GET, 'GET', { token: viewer, query: 'group=production&policy=base' });
    expect(filtered.json.nodes).toHaveLength(8);
    expect((await call(nodes.GET, 'GET', { token: stranger })).json.nodes).toEqual([]);
  });

  it('PUT /nodes/:name registers (201) then checks in (200); needs node.report on the stage', async () => {
    const body = { policy_group: 'dev', policy_name: 'webapp', revision_id: 'abc', platform: 'ubuntu', platform_version: '24.04', platform_family: 'debian', os: 'linux' };
    const before = snapshot();
    expect((await call(node.PUT, 'PUT', { token: viewer, params: { name: 'new-node-1' }, body })).status).toBe(403);
    const bad = await call(node.PUT, 'PUT', { token: dev, params: { name: 'new-node-1' }, body: { ...body, policy_group: 'no such' } });
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0].path).toBe('/policy_group');
    expect(snapshot()).toBe(before);
    const created = await call(node.PUT, 'PUT', { token: dev, params: { name: 'new-node-1' }, body });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ name: 'new-node-1', policy_group: 'dev', stale: true });
    expect((await call(node.PUT, 'PUT', { token: dev, params: { name: 'new-node-1' }, body })).status).toBe(200);
  });
});

describe('board endpoint', () => {
  it('shows viewable stages with differences and node counts', async () => {
    const res = await call(board.GET, 'GET', { token: viewer });
    const webapp = res.json.policies.find((p: { name: string }) => p.name === 'webapp');
    expect(webapp.cells.production.differsFromPrevious).toBe(true);
    expect(webapp.cells.production.cookbooksChanged).toBeGreaterThan(0);
    expect(webapp.cells.production.nodes).toBe(8);
  });
});
