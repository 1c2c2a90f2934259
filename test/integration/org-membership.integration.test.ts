/**
 * Issue 23, step 2 of docs/organizations-design.md: real membership of the home organization. Chef's
 * association routes (erchef oc_chef_wm_org_associations: POST /organizations/O/users 201 / 409 / 404,
 * DELETE …/users/U 200 / 404, GET …/users members only, GET …/users/U 404 for a non-member), the one gate
 * in can() (a signed-in non-member gets erchef's exact 403 body on every organization route and a 403 on
 * /api/v1, by key and by API token; the console's administrators are Chef's superuser and pass), and two
 * instances associating one user at once (one 201, one 409).
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import type { Access } from '@/lib/auth/permissions';

// The browser session, as next-auth would resolve it from the cookie: set per test (the console layout's).
const session = vi.hoisted(() => ({ access: null as Access | null }));
vi.mock('@/lib/authn/session', () => ({
  currentAccess: async () => session.access,
  requireAccess: async () => session.access,
}));
// /api/v1 on the node:http front reads the session from the cookie (lib/authn/session-cookie.ts): the same session here.
vi.mock('@/lib/authn/session-cookie', async (importOriginal) => ({ ...(await importOriginal<typeof import('@/lib/authn/session-cookie')>()), sessionAccess: async () => session.access }));

import { useChefHarness } from '@/test/chef-harness';
import { apiRoutes, accessFor, call, tokenFor } from '@/test/helpers';
import { db } from '@/lib/db/client';
import { HOME_ORG_ID } from '@/lib/services/organizations';
const policiesRoute = apiRoutes('/api/v1/policies');
const settingsRoute = apiRoutes('/api/v1/settings');
const membersRoute = apiRoutes('/api/v1/organizations/[org]/members');
const memberRoute = apiRoutes('/api/v1/organizations/[org]/members/[user]');

const chef = useChefHarness({ seed: false });

const isMember = async (chefName: string) => !!(await db().orgMember.findFirst({ where: { orgId: HOME_ORG_ID, user: { chefName } } }));
const notAssociated = (user: string) => ({ error: [`'${user}' not associated with organization '${chef.org}'`] });

describe('associations (POST/DELETE/GET /organizations/:org/users)', () => {
  it('dissociates (200 with the user), then answers 404; the user leaves the list; associating again is 201, then 409', async () => {
    expect(await isMember('dba')).toBe(true);
    const del = await chef.request('DELETE', 'users/dba', { as: 'admin' });
    expect(del.status).toBe(200);
    expect(del.json).toMatchObject({ username: 'dba', email: 'dba@example.com' });
    expect(await isMember('dba')).toBe(false);

    const again = await chef.request('DELETE', 'users/dba', { as: 'admin' });
    expect(again.status).toBe(404);
    expect(again.json).toEqual({ error: `Cannot find a user dba in organization ${chef.org}` });
    expect((await chef.request('DELETE', 'users/no-such-user', { as: 'admin' })).json).toEqual({ error: 'Could not find user no-such-user' });

    const list = await chef.request('GET', 'users', { as: 'admin' });
    expect(list.status).toBe(200);
    const names = (list.json as { user: { username: string } }[]).map((m) => m.user.username);
    expect(names).toContain('viewer');
    expect(names).not.toContain('dba');
    const one = await chef.request('GET', 'users/dba', { as: 'admin' });
    expect(one.status).toBe(404);
    expect(one.json).toEqual({ error: `Cannot find a user dba in organization ${chef.org}` });
    expect((await chef.request('GET', 'users/viewer', { as: 'admin' })).json).toMatchObject({ username: 'viewer' });

    const add = await chef.request('POST', 'users', { as: 'admin', body: { username: 'dba' } });
    expect(add.status).toBe(201);
    expect(add.json).toEqual({ uri: `${chef.orgUrl}/users/dba` });
    expect(add.headers.get('location')).toBe(`${chef.orgUrl}/users/dba`);
    expect(await isMember('dba')).toBe(true);
    const dup = await chef.request('POST', 'users', { as: 'admin', body: { username: 'dba' } });
    expect(dup.status).toBe(409);
    expect(dup.json).toEqual({ error: 'The association already exists.' });

    const events = await db().auditEvent.findMany({ where: { action: { in: ['org.associate', 'org.dissociate'] }, target: `${chef.org}/users/dba` }, select: { action: true } });
    expect(events.map((e) => e.action).sort()).toEqual(['org.associate', 'org.dissociate']);
  });

  it('refuses an unknown user (404 with Chef text), a missing username (400) and a non-superuser (403), storing nothing', async () => {
    const before = await db().orgMember.count();
    const unknown = await chef.request('POST', 'users', { as: 'admin', body: { username: 'no-such-user' } });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ error: 'Could not find user no-such-user' });
    expect((await chef.request('POST', 'users', { as: 'admin', body: {} })).status).toBe(400);
    // A member who is not Chef's superuser may not associate (erchef: superuser only), nor dissociate someone else.
    expect((await chef.request('POST', 'users', { as: 'viewer', body: { username: 'viewer' } })).status).toBe(403);
    expect((await chef.request('DELETE', 'users/dev', { as: 'viewer' })).status).toBe(403);
    expect(await db().orgMember.count()).toBe(before);
  });

  it("Chef's POST /users makes a user who is not a member", async () => {
    const made = await chef.request('POST', '/users', { as: 'admin', apiVersion: 1, body: { username: 'newcomer', email: 'newcomer@example.com', display_name: 'New Comer', password: 'a-password' } });
    expect(made.status).toBe(201);
    expect(await isMember('newcomer')).toBe(false);
    expect((await chef.request('GET', 'users/newcomer', { as: 'admin' })).status).toBe(404);
  });
});

describe('the membership gate', () => {
  beforeAll(async () => {
    await db().orgMember.deleteMany({ where: { orgId: HOME_ORG_ID, user: { chefName: 'ops' } } });
  });

  it("a non-member gets erchef's exact 403 on organization routes, by key and by API token; a member is served", async () => {
    for (const path of ['policies', 'nodes', 'cookbook_artifacts', 'users/ops', 'clients']) {
      const r = await chef.request('GET', path, { as: 'ops' });
      expect({ path, status: r.status, json: r.json }).toEqual({ path, status: 403, json: notAssociated('ops') });
    }
    const write = await chef.request('POST', 'data', { as: 'ops', body: { name: 'refused-bag' } });
    expect(write.status).toBe(403);
    expect(await db().dataBag.count({ where: { name: 'refused-bag' } })).toBe(0);
    // A console API token of a non-member on the Chef routes: the same refusal (named by e-mail when they have no Chef name, here by it).
    const bearer = await chef.request('GET', 'policies', { as: 'bearer:ops@example.com' });
    expect(bearer.status).toBe(403);
    expect(bearer.json).toEqual(notAssociated('ops'));
    expect((await chef.request('GET', 'policies', { as: 'viewer' })).status).toBe(200);
  });

  it('a non-member keeps their own account and keys (server-level routes)', async () => {
    expect((await chef.request('GET', '/users/ops', { as: 'ops' })).status).toBe(200);
    expect((await chef.request('GET', '/users/ops/keys', { as: 'ops' })).status).toBe(200);
  });

  it('a non-member gets 403 on /api/v1 (the same can()), a member 200', async () => {
    const refused = await call(policiesRoute.GET, 'GET', { token: await tokenFor('ops@example.com') });
    expect(refused.status).toBe(403);
    expect(refused.json.error[0]).toMatch(/not a member of this organization/);
    // Every route, also one whose handler asks nothing of can() itself (the organization's settings).
    expect((await call(settingsRoute.GET, 'GET', { token: await tokenFor('ops@example.com') })).status).toBe(403);
    expect((await call(policiesRoute.GET, 'GET', { token: await tokenFor('viewer@example.com') })).status).toBe(200);
  });

  it("the console's administrators are Chef's superuser: served without being members", async () => {
    await db().orgMember.deleteMany({ where: { orgId: HOME_ORG_ID, user: { chefName: 'admin' } } });
    try {
      expect((await chef.request('GET', 'policies', { as: 'admin' })).status).toBe(200);
      expect((await call(policiesRoute.GET, 'GET', { token: await tokenFor('admin@example.com') })).status).toBe(200);
    } finally {
      await db().orgMember.create({ data: { orgId: HOME_ORG_ID, userId: (await db().user.findFirstOrThrow({ where: { chefName: 'admin' } })).id } });
    }
  });

  it('the console shows a non-member why, instead of its pages', async () => {
    const { default: ConsoleLayout } = await import('@/app/(console)/layout');
    session.access = await accessFor('ops@example.com');
    const html = renderToStaticMarkup(await ConsoleLayout({ children: 'THE-PAGE' }));
    expect(html).toContain(`You are not a member of organization ‘${chef.org}’`);
    expect(html).not.toContain('THE-PAGE');
  });

  it('associating the user again lets them in', async () => {
    expect((await chef.request('POST', 'users', { as: 'admin', body: { username: 'ops' } })).status).toBe(201);
    expect((await chef.request('GET', 'policies', { as: 'ops' })).status).toBe(200);
    expect((await call(policiesRoute.GET, 'GET', { token: await tokenFor('ops@example.com') })).status).toBe(200);
  });

  it('a user may dissociate themselves, and is then refused', async () => {
    const self = await chef.request('DELETE', 'users/release', { as: 'release' });
    expect(self.status).toBe(200);
    expect((await chef.request('GET', 'policies', { as: 'release' })).json).toEqual(notAssociated('release'));
  });
});

describe('/api/v1/organizations/{org}/members', () => {
  it('lists, adds (201, then 409) and removes (200, then 404) members; administrators only add; another organization is 404', async () => {
    const admin = await tokenFor('admin@example.com');
    const org = { org: chef.org };
    const list = await call(membersRoute.GET, 'GET', { token: await tokenFor('viewer@example.com'), params: org });
    expect(list.status).toBe(200);
    expect(list.json).toEqual(expect.arrayContaining([{ username: 'viewer', email: 'viewer@example.com', display_name: 'Victor Viewer', admin: false }]));
    const removed = await call(memberRoute.DELETE, 'DELETE', { token: admin, params: { ...org, user: 'lead@example.com' } });
    expect(removed.status).toBe(200);
    expect(removed.json).toMatchObject({ username: 'lead', email: 'lead@example.com' });
    expect((await call(memberRoute.DELETE, 'DELETE', { token: admin, params: { ...org, user: 'lead' } })).status).toBe(404);
    expect((await call(membersRoute.POST, 'POST', { token: await tokenFor('viewer@example.com'), params: org, body: { username: 'lead' } })).status).toBe(403);
    expect((await call(membersRoute.POST, 'POST', { token: admin, params: org, body: {} })).status).toBe(400);
    const added = await call(membersRoute.POST, 'POST', { token: admin, params: org, body: { username: 'lead' } });
    expect(added.status).toBe(201);
    expect((await call(membersRoute.POST, 'POST', { token: admin, params: org, body: { email: 'lead@example.com' } })).status).toBe(409);
    expect((await call(membersRoute.GET, 'GET', { token: admin, params: { org: 'elsewhere' } })).status).toBe(404);
  });
});

describe('two associations of one user at once', () => {
  it('one 201, one 409, one row and one event', async () => {
    await db().orgMember.deleteMany({ where: { orgId: HOME_ORG_ID, user: { chefName: 'viewer' } } });
    const answers = await Promise.all([0, 1].map(() => chef.request('POST', 'users', { as: 'admin', body: { username: 'viewer' } })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    expect(await db().orgMember.count({ where: { orgId: HOME_ORG_ID, user: { chefName: 'viewer' } } })).toBe(1);
    expect(await db().auditEvent.count({ where: { action: 'org.associate', target: `${chef.org}/users/viewer` } })).toBe(1);
  });
});
