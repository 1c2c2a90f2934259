/** Issue 17: REST API holes: node moves (3), CSRF and headers (4), rollback to none (17), stage oracle (21), long request ids (23). */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { Access } from '@/lib/auth/permissions';

// The browser session, as next-auth would resolve it from the cookie: set per test.
const session = vi.hoisted(() => ({ access: null as Access | null }));
vi.mock('@/lib/authn/session', () => ({
  currentAccess: async () => session.access,
  requireAccess: async () => session.access,
}));
// /api/v1 on the node:http front reads the session from the cookie (lib/authn/session-cookie.ts): the same session here.
vi.mock('@/lib/authn/session-cookie', async (importOriginal) => ({ ...(await importOriginal<typeof import('@/lib/authn/session-cookie')>()), sessionAccess: async () => session.access }));

import { apiRoutes, accessFor, call, seed, snapshot, tokenFor } from '@/test/helpers';
import { db } from '@/lib/db/client';
const nodeRoute = apiRoutes('/api/v1/nodes/[name]');
const rollbackRoute = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]/rollback');
const groupPolicyRoute = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]');
const promoteRoute = apiRoutes('/api/v1/policy_groups/[group]/promote');
const cookbookRoute = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]/promote-cookbook');
// @ts-expect-error next.config.mjs is plain JavaScript without declarations
import nextConfig from '@/next.config.mjs';
import { HOME_MEMBERSHIP } from '@/lib/services/organizations';

let dev: string, release: string, limited: string;
const PROD_NODE = 'webapp-production-01.example.com';

async function active(stage: string, policy: string): Promise<string | null> {
  const row = await db().groupPolicy.findFirst({ where: { group: { name: stage }, policy: { name: policy } }, select: { revision: { select: { revisionId: true } } } });
  return row?.revision.revisionId ?? null;
}

beforeAll(async () => {
  await seed();
  // A user who may promote in dev and cannot even view production.
  const u = await db().user.create({ data: { email: 'limited@example.com', name: 'Lim', passwordHash: 'x', orgMemberships: HOME_MEMBERSHIP } });
  const devStage = await db().policyGroup.findUniqueOrThrow({ where: { name: 'dev' } });
  await db().groupPermission.create({ data: { groupId: devStage.id, userId: u.id, level: 'promote' } });
  [dev, release, limited] = await Promise.all(['dev@example.com', 'release@example.com', 'limited@example.com'].map(tokenFor));
  // First use writes lastUsedAt: do it now so snapshots compare only what the calls under test change.
  for (const t of [dev, release, limited]) await call(nodeRoute.PUT, 'PUT', { token: t, params: { name: 'x' }, body: {} });
});

describe('item 3: moving a node needs the right on its current stage', () => {
  it('a dev promoter cannot move a production node into dev (viewable or not), and nothing changes', async () => {
    const before = snapshot();
    const asDev = await call(nodeRoute.PUT, 'PUT', { token: dev, params: { name: PROD_NODE }, body: { policy_group: 'dev', policy_name: 'webapp' } });
    expect(asDev.status).toBe(403);
    expect(asDev.json.error[0]).toMatch(/production/);
    const asLimited = await call(nodeRoute.PUT, 'PUT', { token: limited, params: { name: PROD_NODE }, body: { policy_group: 'dev', policy_name: 'webapp' } });
    expect(asLimited.status).toBe(403);
    // The refusal does not name a stage the caller cannot view.
    expect(asLimited.text).not.toMatch(/stage 'production'/);
    expect(snapshot()).toBe(before);
    const node = await db().node.findUniqueOrThrow({ where: { name: PROD_NODE }, select: { group: { select: { name: true } } } });
    expect(node.group?.name).toBe('production');
  });

  it('a check-in in the same stage and a new node still work', async () => {
    const fresh = await call(nodeRoute.PUT, 'PUT', { token: limited, params: { name: 'brand-new.example.com' }, body: { policy_group: 'dev', policy_name: 'webapp' } });
    expect(fresh.status).toBe(201);
    const again = await call(nodeRoute.PUT, 'PUT', { token: limited, params: { name: 'brand-new.example.com' }, body: { policy_group: 'dev', policy_name: 'webapp' } });
    expect(again.status).toBe(200);
  });

  it('with rights on both stages the move is allowed and the audit event records where it came from', async () => {
    const res = await call(nodeRoute.PUT, 'PUT', { token: release, params: { name: PROD_NODE }, body: { policy_group: 'staging', policy_name: 'webapp' } });
    expect(res.status).toBe(200);
    const ev = await db().auditEvent.findFirstOrThrow({ where: { action: 'node.move', target: PROD_NODE } });
    expect(JSON.parse(ev.before!)).toEqual({ policy_group: 'production', policy_name: 'webapp' });
    expect(JSON.parse(ev.after!)).toEqual({ policy_group: 'staging', policy_name: 'webapp' });
  });
});

describe('item 21: no stage existence oracle', () => {
  it('a missing stage and an existing unviewable one get the same answer', async () => {
    const body = { to_revision_id: 'x', expected_revision_id: null, reason: 'r' };
    const hidden = await call(rollbackRoute.POST, 'POST', { token: limited, params: { group: 'production', name: 'webapp' }, body });
    const missing = await call(rollbackRoute.POST, 'POST', { token: limited, params: { group: 'nowhere', name: 'webapp' }, body });
    expect(hidden.status).toBe(missing.status);
    expect(hidden.json.error[0].replace('production', 'X')).toBe(missing.json.error[0].replace('nowhere', 'X'));
    const nodeHidden = await call(nodeRoute.PUT, 'PUT', { token: limited, params: { name: 'n1' }, body: { policy_group: 'production', policy_name: 'webapp' } });
    const nodeMissing = await call(nodeRoute.PUT, 'PUT', { token: limited, params: { name: 'n1' }, body: { policy_group: 'nowhere', policy_name: 'webapp' } });
    expect(nodeHidden.status).toBe(nodeMissing.status);
    const cbBody = { from: 'production', cookbook: 'ntp', expected_revision_id: null };
    const cbHidden = await call(cookbookRoute.POST, 'POST', { token: limited, params: { group: 'dev', name: 'webapp' }, body: cbBody });
    const cbMissing = await call(cookbookRoute.POST, 'POST', { token: limited, params: { group: 'dev', name: 'webapp' }, body: { ...cbBody, from: 'nowhere' } });
    expect(cbHidden.status).toBe(cbMissing.status);
  });
});

describe('item 17: rollback into a stage that holds no revision of the policy', () => {
  it('expected_revision_id: null is kept as null', async () => {
    const held = (await active('dev', 'webapp'))!;
    const admin = await tokenFor('admin@example.com');
    expect((await call(groupPolicyRoute.DELETE, 'DELETE', { token: admin, params: { group: 'dev', name: 'webapp' } })).status).toBe(200);
    expect(await active('dev', 'webapp')).toBeNull();
    const res = await call(rollbackRoute.POST, 'POST', { token: dev, params: { group: 'dev', name: 'webapp' }, body: { to_revision_id: held, expected_revision_id: null, reason: 'back' } });
    expect(res.status, res.text).toBe(200);
    expect(await active('dev', 'webapp')).toBe(held);
  });
});

describe('item 23: a long X-Request-Id', () => {
  it('is replaced by a fresh one (the one rule of lib/ops/request-id.ts), not a reason to fail a valid promotion', async () => {
    const longId = 'r'.repeat(150);
    const res = await call(promoteRoute.POST, 'POST', {
      token: dev,
      params: { group: 'qa' },
      headers: { 'x-request-id': longId },
      body: { from: 'dev', policies: ['jenkins-ci'], expected: { 'jenkins-ci': await active('qa', 'jenkins-ci') } },
    });
    expect(res.status, res.text).toBe(200);
    const ev = await db().auditEvent.findFirstOrThrow({ orderBy: { createdAt: 'desc' } });
    expect(ev.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await db().auditEvent.count({ where: { requestId: { startsWith: 'rrrr' } } })).toBe(0);
  });
});

describe('item 4: CSRF on cookie-authenticated writes', () => {
  const cookie = 'next-auth.session-token=abc';
  const rollbackProd = async (headers: Record<string, string>, body?: string) => {
    const history = await db().pointerHistory.findMany({ where: { groupName: 'production', policyName: 'haproxy-lb' }, orderBy: { createdAt: 'asc' } });
    const payload = body ?? JSON.stringify({ to_revision_id: history[0].toRevisionId, expected_revision_id: await active('production', 'haproxy-lb'), reason: 'csrf' });
    const req = new Request('http://localhost:3000/api/v1/policy_groups/production/policies/haproxy-lb/rollback', { method: 'POST', headers: { cookie, ...headers }, body: payload });
    const res = await rollbackProd.route(req, { params: Promise.resolve({ group: 'production', name: 'haproxy-lb' }) });
    return { status: res.status, json: await res.json() };
  };
  rollbackProd.route = rollbackRoute.POST;

  it('refuses a cross-origin (other port) or cross-site POST with the session cookie, whatever the content type', async () => {
    session.access = await accessFor('release@example.com');
    const before = snapshot();
    const attempts: Record<string, string>[] = [
      { origin: 'http://localhost:4000', 'content-type': 'text/plain' },
      { origin: 'http://localhost:4000', 'content-type': 'application/json' },
      { origin: 'http://localhost:4000', 'sec-fetch-site': 'same-site', 'content-type': 'application/json' },
      { 'sec-fetch-site': 'cross-site', 'content-type': 'application/x-www-form-urlencoded' },
      // Same origin but a form-able content type, or no Origin at all.
      { origin: 'http://localhost:3000', host: 'localhost:3000', 'content-type': 'text/plain' },
      { 'content-type': 'application/json' },
    ];
    for (const h of attempts) {
      const res = await rollbackProd(h);
      expect(res.status, JSON.stringify(h)).toBe(403);
    }
    expect(snapshot()).toBe(before);
    session.access = null;
  });

  it('accepts the console itself, and bearer requests from anywhere', async () => {
    session.access = await accessFor('release@example.com');
    const ok = await rollbackProd({ origin: 'http://localhost:3000', host: 'localhost:3000', 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' });
    expect(ok.status).toBe(200);
    session.access = null;
    const bearer = await rollbackProd({ origin: 'http://evil.example', authorization: `Bearer ${release}`, 'content-type': 'text/plain' });
    expect(bearer.status).toBe(200);
  });

  it('sends security headers on every route', async () => {
    const rules: { source: string; headers: { key: string; value: string }[] }[] = await nextConfig.headers();
    const all = rules.find((r) => r.source === '/:path*')!;
    const h = Object.fromEntries(all.headers.map((x) => [x.key.toLowerCase(), x.value]));
    expect(h['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    expect(h['content-security-policy']).toMatch(/default-src 'self'/);
    expect(h['x-frame-options']).toBe('DENY');
    expect(h['x-content-type-options']).toBe('nosniff');
    expect(h['referrer-policy']).toBe('strict-origin-when-cross-origin');
  });
});
