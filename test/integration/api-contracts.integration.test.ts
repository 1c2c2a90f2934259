/**
 * The route contracts (issue 10): one snake_case schema per route, so error pointers name the
 * field the client sent; an explicit null kept; every answer through apiRoute with X-Request-Id,
 * the node read path included (its malformed-escape, 401 and 403 branches).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes, call, seed, snapshot, tokenFor } from '@/test/helpers';
import { db } from '@/lib/db/client';
const rollbackRoute = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]/rollback');
const stagePolicyRoute = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]');
const cookbookRoute = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]/promote-cookbook');
const promoteRoute = apiRoutes('/api/v1/policy_groups/[group]/promote');
const policiesRoute = apiRoutes('/api/v1/policies');
const nodesRoute = apiRoutes('/api/v1/nodes');
const stageRoute = apiRoutes('/api/v1/policy_groups/[group]');
import { startChefServer } from '@/lib/chef/http';
import { HOME_MEMBERSHIP } from '@/lib/services/organizations';

let admin: string, dev: string, nogrants: string;

async function active(stage: string, policy: string): Promise<string | null> {
  const row = await db().groupPolicy.findFirst({ where: { group: { name: stage }, policy: { name: policy } }, select: { revision: { select: { revisionId: true } } } });
  return row?.revision.revisionId ?? null;
}
const paths = (res: { json: { errors?: { path: string }[] } }) => (res.json.errors ?? []).map((e) => e.path);

beforeAll(async () => {
  await seed();
  await db().user.create({ data: { email: 'nogrants@example.com', name: 'Nobody', passwordHash: 'x', orgMemberships: HOME_MEMBERSHIP } });
  [admin, dev, nogrants] = await Promise.all(['admin@example.com', 'dev@example.com', 'nogrants@example.com'].map(tokenFor));
  // Touch every token once so lastUsedAt does not show up in snapshots.
  for (const t of [admin, dev, nogrants]) await call(policiesRoute.GET, 'GET', { token: t });
});

describe('rollback (POST /policy_groups/:group/policies/:name/rollback)', () => {
  const params = { group: 'dev', name: 'mysql-replica' };

  it('keeps an explicit null: a rollback into a stage that runs nothing of the policy succeeds', async () => {
    const held = await active('dev', 'mysql-replica');
    expect(held).not.toBeNull();
    const removed = await call(stagePolicyRoute.DELETE, 'DELETE', { token: dev, params });
    expect(removed.status).toBe(200);
    expect(await active('dev', 'mysql-replica')).toBeNull();

    const res = await call(rollbackRoute.POST, 'POST', { token: dev, params, body: { to_revision_id: held, expected_revision_id: null, reason: 'restore after removal' } });
    expect(res.status).toBe(200);
    expect(await active('dev', 'mysql-replica')).toBe(held);
  });

  it('a missing expected_revision_id is a 400 at /expected_revision_id (the field the client sends), and nothing changes', async () => {
    const before = snapshot();
    const res = await call(rollbackRoute.POST, 'POST', { token: dev, params, body: { to_revision_id: 'x1', reason: 'r' } });
    expect(res.status).toBe(400);
    expect(paths(res)).toEqual(['/expected_revision_id']);
    expect(res.json.errors[0].message).toBe('expected_revision_id is required');
    expect(snapshot()).toBe(before);
  });

  it("the service's own refusal names the client's field too: /to_revision_id, not /toRevisionId", async () => {
    const before = snapshot();
    const res = await call(rollbackRoute.POST, 'POST', { token: dev, params, body: { to_revision_id: 'never-held', expected_revision_id: await active('dev', 'mysql-replica'), reason: 'r' } });
    expect(res.status).toBe(400);
    expect(paths(res)).toEqual(['/to_revision_id']);
    expect(snapshot()).toBe(before);
  });

  it('an unknown field is refused and named', async () => {
    const res = await call(rollbackRoute.POST, 'POST', { token: dev, params, body: { to_revision_id: 'a', expected_revision_id: null, reason: 'r', toRevisionId: 'a' } });
    expect(res.status).toBe(400);
    expect(paths(res)).toEqual(['/toRevisionId']);
  });
});

describe('snake_case pointers on the other write routes', () => {
  it('promote-cookbook: /expected_revision_id, /dry_run', async () => {
    const res = await call(cookbookRoute.POST, 'POST', { token: dev, params: { group: 'qa', name: 'webapp' }, body: { from: 'dev', cookbook: 'nginx', dry_run: 'yes' } });
    expect(res.status).toBe(400);
    expect(paths(res)).toEqual(['/expected_revision_id', '/dry_run']);
  });

  it('promote: a key of the expected map with "/" and "~" is escaped per RFC 6901', async () => {
    const before = snapshot();
    const res = await call(promoteRoute.POST, 'POST', { token: dev, params: { group: 'qa' }, body: { from: 'dev', policies: ['webapp'], expected: { 'a/b~c': 5 } } });
    expect(res.status).toBe(400);
    expect(paths(res)).toEqual(['/expected/a~1b~0c']);
    expect(snapshot()).toBe(before);
  });

  it('stage PUT: a bad position is named /position; the body may repeat the name (knife sends it)', async () => {
    const bad = await call(stageRoute.PUT, 'PUT', { token: admin, params: { group: 'contracts-stage' }, body: { name: 'contracts-stage', position: -1 } });
    expect(bad.status).toBe(400);
    expect(paths(bad)).toEqual(['/position']);
    const ok = await call(stageRoute.PUT, 'PUT', { token: admin, params: { group: 'contracts-stage' }, body: { name: 'ignored', description: 'made by a contract test', require_artifacts: false } });
    expect(ok.status).toBe(201);
    expect(ok.json.description).toBe('made by a contract test');
  });

  it('the path fields are checked by the service schema’s own rules (pathInput): a malformed stage name is a 400 at /name, a malformed target at /to, nothing stored', async () => {
    const before = snapshot();
    const stage = await call(stageRoute.PUT, 'PUT', { token: admin, params: { group: 'no spaces' }, body: { description: 'x' } });
    expect(stage.status).toBe(400);
    expect(stage.json.errors).toEqual([{ path: '/name', message: expect.stringMatching(/^name may contain only/) }]);
    const promote = await call(promoteRoute.POST, 'POST', { token: admin, params: { group: 'bad name' }, body: { from: 'dev', policies: 'all', expected: {} } });
    expect(promote.status).toBe(400);
    expect(paths(promote)).toEqual(['/to']);
    expect(snapshot()).toBe(before);
  });

  it('a query parameter is checked by the same kind of schema: ?stale=maybe is a 400 at /stale', async () => {
    const res = await call(nodesRoute.GET, 'GET', { token: dev, query: 'stale=maybe' });
    expect(res.status).toBe(400);
    expect(paths(res)).toEqual(['/stale']);
  });
});

/** Calls a handler and keeps the response headers (the helper's call() drops them). */
async function raw(handler: (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>, method: string, opts: { token?: string; params?: Record<string, string>; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const res = await handler(new Request('http://localhost/api/v1/test', { method, headers }), { params: Promise.resolve(opts.params ?? {}) });
  const text = await res.text();
  return { status: res.status, requestId: res.headers.get('x-request-id'), text, json: text ? JSON.parse(text) : undefined };
}

describe('the node read path (GET /policy_groups/:group/policies/:name with a bearer token)', () => {
  it('serves the stored bytes with a request id', async () => {
    const res = await raw(stagePolicyRoute.GET, 'GET', { token: admin, params: { group: 'production', name: 'base' }, headers: { 'x-request-id': 'node-42' } });
    expect(res.status).toBe(200);
    expect(res.requestId).toBe('node-42');
    expect(res.json.name).toBe('base');
  });

  it('a malformed %-escape in a name is a 404 with a request id, as on every other route (it was a 500 without one)', async () => {
    const res = await raw(stagePolicyRoute.GET, 'GET', { token: admin, params: { group: 'a%zz', name: 'base' } });
    expect(res.status).toBe(404);
    expect(res.requestId).toBeTruthy();
    expect(res.json.error[0]).toContain('a%zz');
    const other = await raw(stageRoute.GET, 'GET', { token: admin, params: { group: 'a%zz' } });
    expect(other.status).toBe(404);
  });

  it('an unknown token is a 401 with a request id', async () => {
    const res = await raw(stagePolicyRoute.GET, 'GET', { token: 'not-a-token', params: { group: 'production', name: 'base' } });
    expect(res.status).toBe(401);
    expect(res.requestId).toBeTruthy();
    expect(res.json.error[0]).toMatch(/Authentication required/);
  });

  it('a valid token without view rights on the stage is a 404 with a request id, for an existing and an unknown stage alike (issue 44: hidden answers as missing, as on the Chef door)', async () => {
    const known = await raw(stagePolicyRoute.GET, 'GET', { token: nogrants, params: { group: 'production', name: 'base' } });
    const unknown = await raw(stagePolicyRoute.GET, 'GET', { token: nogrants, params: { group: 'no-such-stage', name: 'base' } });
    for (const res of [known, unknown]) {
      expect(res.status).toBe(404);
      expect(res.requestId).toBeTruthy();
    }
    expect(known.json.error[0]).toBe('Cannot load policy base in policy group production');
    expect(unknown.json.error[0]).toBe('Cannot load policy base in policy group no-such-stage');
  });

  it('a stage the reader may view that runs no such policy is a 404', async () => {
    const res = await raw(stagePolicyRoute.GET, 'GET', { token: dev, params: { group: 'dev', name: 'no-such-policy' } });
    expect(res.status).toBe(404);
    expect(res.json.error[0]).toBe('Cannot load policy no-such-policy in policy group dev');
  });
});

describe('X-Request-Id on every answer', () => {
  it('on a 401 of any route, and on a cross-site 403', async () => {
    const anon = await raw(policiesRoute.GET, 'GET', {});
    expect(anon.status).toBe(401);
    expect(anon.requestId).toBeTruthy();
  });

  it("on the Chef server's own answers: an unknown path's 404 and a body over the limit's 413", async () => {
    const { server, url } = await startChefServer();
    try {
      const unknown = await fetch(`${url}/nope`, { headers: { 'x-request-id': 'chef-7' } });
      expect(unknown.status).toBe(404);
      expect(unknown.headers.get('x-request-id')).toBe('chef-7');
      // The organization routes answer Chef's 413 past CHEF_MAX_REQUEST_SIZE (MAX_BODY_BYTES is the console's own routes' limit).
      const before = process.env.CHEF_MAX_REQUEST_SIZE;
      process.env.CHEF_MAX_REQUEST_SIZE = '10';
      try {
        const big = await fetch(`${url}/organizations/console/policies/x/revisions`, { method: 'POST', body: 'x'.repeat(100), headers: { 'content-type': 'application/json' } });
        expect(big.status).toBe(413);
        expect(big.headers.get('x-request-id')).toBeTruthy();
      } finally {
        if (before === undefined) delete process.env.CHEF_MAX_REQUEST_SIZE;
        else process.env.CHEF_MAX_REQUEST_SIZE = before;
      }
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
