/**
 * Issue 23, step 4 of docs/organizations-design.md: organizations through /api/v1 and Admin → Organizations' server
 * actions. `/api/v1/organizations` (GET list, POST create → 201 with the validator's private key, once) and
 * `/api/v1/organizations/{org}` (GET, DELETE): administrators only (Chef's superuser), except that a member reads
 * their organization; a refused field is a 400 naming it with nothing stored; a taken name 409; the home
 * organization cannot be deleted. The members routes serve every organization, each asked about its own members.
 * The actions: the create form's field errors under the field's name, add and remove members of another
 * organization, delete.
 */
import { createPublicKey, randomUUID } from 'node:crypto';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { apiRoutes, call, snapshot, tokenFor, actionFailure } from '@/test/helpers';
import { db } from '@/lib/db/client';
import { HOME_MEMBERSHIP, HOME_ORG_ID } from '@/lib/services/organizations';
import { chefOrg } from '@/lib/config';
import { runAction } from '@/lib/actions/client';

// The browser session, as next-auth would decode it from the cookie (checked against the database as in production).
const session = vi.hoisted(() => ({ current: null as null | { user: { id: string }; sid: string; sv: number } }));
vi.mock('next-auth', async (importOriginal) => ({ ...(await importOriginal<typeof import('next-auth')>()), getServerSession: async () => session.current }));
// /api/v1 on the node:http front reads the session from the cookie (lib/authn/session-cookie.ts): the same session here.
vi.mock('@/lib/authn/session-cookie', async () => {
  const { accessForSessionClaims } = await import('@/lib/authn/session-claims');
  return {
    sessionAccess: async () => {
      const s = session.current;
      const access = s && (await accessForSessionClaims({ id: s.user.id, sid: s.sid, sv: s.sv }));
      return access ? { ...access, via: 'session' } : null;
    },
  };
});
// Outside a Next request there is no cache to revalidate.
vi.mock('next/cache', () => ({ revalidatePath: () => undefined, revalidateTag: () => undefined }));

const orgsRoute = apiRoutes('/api/v1/organizations');
const orgRoute = apiRoutes('/api/v1/organizations/[org]');
const membersRoute = apiRoutes('/api/v1/organizations/[org]/members');
const memberRoute = apiRoutes('/api/v1/organizations/[org]/members/[user]');
const { createOrganizationAction } = await import('@/lib/actions/admin/create-organization');
const { deleteOrganizationAction } = await import('@/lib/actions/admin/delete-organization');
const { associateUserAction } = await import('@/lib/actions/admin/associate-user');
const { dissociateUserAction } = await import('@/lib/actions/admin/dissociate-user');
const { setOrgAdminAction } = await import('@/lib/actions/admin/set-org-admin');
const { cancelInvitationAction } = await import('@/lib/actions/admin/cancel-invitation');
const { createInvitation } = await import('@/lib/services/organizations');
const { loadAccess } = await import('@/lib/db/queries/access');

let admin: string;
let viewer: string;

beforeAll(async () => {
  await db().user.createMany({
    data: [
      { email: 'admin@example.com', name: 'Admin', chefName: 'admin', passwordHash: 'x', isAdmin: true },
      { email: 'viewer@example.com', name: 'Viewer', chefName: 'viewer', passwordHash: 'x' },
      { email: 'outsider@example.com', name: 'Outsider', chefName: 'outsider', passwordHash: 'x' },
    ],
  });
  for (const email of ['admin@example.com', 'viewer@example.com', 'outsider@example.com']) {
    await db().user.update({ where: { email }, data: { orgMemberships: HOME_MEMBERSHIP } });
  }
  [admin, viewer] = await Promise.all(['admin@example.com', 'viewer@example.com'].map(tokenFor));
});

const orgCount = () => db().organization.count();
/** Audit events of one action about one organization (whatever the target's exact spelling around the name). */
const events = (action: string, org: string) => db().auditEvent.count({ where: { action, target: { contains: org } } });

describe('/api/v1/organizations', () => {
  it('creates an organization (201, the validator key once), lists it, reads it, and deletes it with everything it holds', async () => {
    const created = await call(orgsRoute.POST, 'POST', { token: admin, body: { name: 'api-acme', full_name: 'Acme, Inc.', org_type: 'Business' } });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      organization: { name: 'api-acme', full_name: 'Acme, Inc.', home: false, clients: 1, members: 0 },
      validator: { name: 'api-acme-validator' },
    });
    expect(created.json.organization.guid).toEqual(expect.any(String));
    expect(Date.parse(created.json.organization.created_at)).not.toBeNaN();
    // The private key answered is the one whose public half the server keeps (and the only copy).
    const pem: string = created.json.validator.private_key;
    expect(pem).toMatch(/^-----BEGIN (RSA )?PRIVATE KEY-----/);
    const org = await db().organization.findUniqueOrThrow({ where: { name: 'api-acme' }, select: { id: true, fullName: true, groups: { select: { name: true } } } });
    expect(org.fullName).toBe('Acme, Inc.');
    expect(org.groups.map((g) => g.name).sort()).toEqual(['admins', 'billing-admins', 'clients', 'public_key_read_access', 'users']);
    const validator = await db().chefClient.findFirstOrThrow({ where: { name: 'api-acme-validator' }, select: { orgId: true, validator: true, keys: { select: { publicKey: true } } } });
    expect(validator).toMatchObject({ orgId: org.id, validator: true });
    const spki = (k: string) => createPublicKey(k).export({ type: 'spki', format: 'pem' });
    expect(validator.keys.map((k) => spki(k.publicKey))).toEqual([spki(pem)]);
    expect(JSON.stringify(await db().chefKey.findMany())).not.toContain('PRIVATE KEY');
    expect(await events('org.create', 'api-acme')).toBe(1);

    const list = await call(orgsRoute.GET, 'GET', { token: admin });
    expect(list.status).toBe(200);
    const byName = new Map((list.json as { name: string; home: boolean }[]).map((o) => [o.name, o]));
    expect(byName.get(chefOrg())).toMatchObject({ home: true });
    expect(byName.get('api-acme')).toMatchObject({ home: false, full_name: 'Acme, Inc.', clients: 1 });

    const one = await call(orgRoute.GET, 'GET', { token: admin, params: { org: 'api-acme' } });
    expect(one.status).toBe(200);
    expect(one.json).toMatchObject({ name: 'api-acme', full_name: 'Acme, Inc.', home: false, members: 0, clients: 1, guid: created.json.organization.guid });
    expect((await call(orgRoute.GET, 'GET', { token: admin, params: { org: 'no-such-org' } })).status).toBe(404);

    // A member, so that the deletion has memberships to take.
    expect((await call(membersRoute.POST, 'POST', { token: admin, params: { org: 'api-acme' }, body: { username: 'viewer' } })).status).toBe(201);

    const deleted = await call(orgRoute.DELETE, 'DELETE', { token: admin, params: { org: 'api-acme' } });
    expect(deleted.status).toBe(200);
    expect(deleted.json).toMatchObject({ name: 'api-acme', members: 1, clients: 1 });
    expect((await call(orgRoute.GET, 'GET', { token: admin, params: { org: 'api-acme' } })).status).toBe(404);
    expect(await db().organization.findUnique({ where: { name: 'api-acme' } })).toBeNull();
    expect(await db().chefClient.count({ where: { orgId: org.id } })).toBe(0);
    expect(await db().chefGroup.count({ where: { orgId: org.id } })).toBe(0);
    expect(await db().orgMember.count({ where: { orgId: org.id } })).toBe(0);
    expect(await events('org.delete', 'api-acme')).toBe(1);
    // The viewer stays a user and a member of the home organization.
    expect(await db().orgMember.count({ where: { orgId: HOME_ORG_ID, user: { email: 'viewer@example.com' } } })).toBe(1);
    expect((await call(orgRoute.DELETE, 'DELETE', { token: admin, params: { org: 'api-acme' } })).status).toBe(404);
  });

  it('refuses a bad field with a 400 naming it, a taken name with 409, and the home organization’s deletion with 400, storing nothing', async () => {
    const before = await orgCount();
    const state = snapshot({ except: ['ApiToken'] });
    const badName = await call(orgsRoute.POST, 'POST', { token: admin, body: { name: 'Not A Name!', full_name: 'Bad' } });
    expect(badName.status).toBe(400);
    expect(badName.json.errors.map((e: { path: string }) => e.path)).toEqual(['/name']);
    const noFullName = await call(orgsRoute.POST, 'POST', { token: admin, body: { name: 'api-nofull' } });
    expect(noFullName.status).toBe(400);
    expect(noFullName.json.error[0]).toBe("Field 'full_name' missing");
    expect(noFullName.json.errors.map((e: { path: string }) => e.path)).toEqual(['/full_name']);
    const notJson = await call(orgsRoute.POST, 'POST', { token: admin, body: '{"name":' });
    expect(notJson.status).toBe(400);
    const home = await call(orgRoute.DELETE, 'DELETE', { token: admin, params: { org: chefOrg() } });
    expect(home.status).toBe(400);
    expect(home.json.error.join(' ')).toContain(chefOrg());
    expect(snapshot({ except: ['ApiToken'] })).toBe(state);

    expect((await call(orgsRoute.POST, 'POST', { token: admin, body: { name: 'api-twice', full_name: 'Twice' } })).status).toBe(201);
    const again = await call(orgsRoute.POST, 'POST', { token: admin, body: { name: 'api-twice', full_name: 'Twice again' } });
    expect(again.status).toBe(409);
    expect(again.json.error).toEqual(['Organization already exists']);
    expect(await orgCount()).toBe(before + 1);
    expect((await db().organization.findUniqueOrThrow({ where: { name: 'api-twice' } })).fullName).toBe('Twice');
  });

  it('administrators only: a member of the home organization gets 403 listing, creating and deleting, and reads an organization only once a member of it', async () => {
    expect((await call(orgsRoute.POST, 'POST', { token: admin, body: { name: 'api-members', full_name: 'Members' } })).status).toBe(201);
    const state = snapshot({ except: ['ApiToken'] });
    expect((await call(orgsRoute.GET, 'GET', { token: viewer })).status).toBe(403);
    expect((await call(orgsRoute.POST, 'POST', { token: viewer, body: { name: 'api-sneaky', full_name: 'Sneaky' } })).status).toBe(403);
    expect((await call(orgRoute.DELETE, 'DELETE', { token: viewer, params: { org: 'api-members' } })).status).toBe(403);
    expect((await call(orgRoute.GET, 'GET', { token: viewer, params: { org: 'api-members' } })).status).toBe(403);
    // The members route asks about that organization's members, not the home organization's.
    expect((await call(membersRoute.GET, 'GET', { token: viewer, params: { org: 'api-members' } })).status).toBe(403);
    expect((await call(membersRoute.POST, 'POST', { token: viewer, params: { org: 'api-members' }, body: { username: 'viewer' } })).status).toBe(403);
    expect((await call(orgsRoute.GET, 'GET')).status).toBe(401);
    expect(snapshot({ except: ['ApiToken'] })).toBe(state);

    expect((await call(membersRoute.POST, 'POST', { token: admin, params: { org: 'api-members' }, body: { email: 'viewer@example.com' } })).status).toBe(201);
    expect((await call(orgRoute.GET, 'GET', { token: viewer, params: { org: 'api-members' } })).json).toMatchObject({ name: 'api-members', members: 1 });
    const members = await call(membersRoute.GET, 'GET', { token: viewer, params: { org: 'api-members' } });
    expect(members.status).toBe(200);
    expect(members.json).toEqual([{ username: 'viewer', email: 'viewer@example.com', display_name: 'Viewer', admin: false }]);
    // The user leaves the organization themselves; the home organization's membership stays.
    expect((await call(memberRoute.DELETE, 'DELETE', { token: viewer, params: { org: 'api-members', user: 'viewer' } })).status).toBe(200);
    expect((await call(orgRoute.GET, 'GET', { token: viewer, params: { org: 'api-members' } })).status).toBe(403);
    expect(await db().orgMember.count({ where: { orgId: HOME_ORG_ID, user: { email: 'viewer@example.com' } } })).toBe(1);
    expect((await call(membersRoute.GET, 'GET', { token: admin, params: { org: 'no-such-org' } })).status).toBe(404);
  });
});

describe('Admin → Organizations: the server actions', () => {
  async function signIn(email: string | null) {
    if (!email) return void (session.current = null);
    const u = await db().user.findUniqueOrThrow({ where: { email }, select: { id: true, sessionVersion: true } });
    session.current = { user: { id: u.id }, sid: randomUUID(), sv: u.sessionVersion };
  }
  beforeEach(() => signIn(null));

  it('create: a refused field comes back under its name, nothing stored; then the organization and its key, once', async () => {
    await signIn('admin@example.com');
    const state = snapshot({ except: ['ApiToken'] });
    const bad = await actionFailure(runAction(createOrganizationAction, { name: 'Bad Name', full_name: 'Bad' }));
    expect(bad.code).toBe('bad_request');
    expect(Object.keys(bad.fieldErrors)).toEqual(['name']);
    // The rule next to the field, and no second, form-level message.
    expect(bad.fieldErrors.name.join(' ')).toMatch(/a-z/);
    expect(bad.formError).toBeUndefined();
    const noFull = await actionFailure(runAction(createOrganizationAction, { name: 'act-org', full_name: '' }));
    expect(Object.keys(noFull.fieldErrors)).toEqual(['full_name']);
    expect(snapshot({ except: ['ApiToken'] })).toBe(state);

    const r = await runAction(createOrganizationAction, { name: 'act-org', full_name: 'Action Org' });
    expect(r).toMatchObject({ name: 'act-org', fullName: 'Action Org', validator: { name: 'act-org-validator' } });
    expect(r.validator.privateKey).toMatch(/PRIVATE KEY/);
    expect((await actionFailure(runAction(createOrganizationAction, { name: 'act-org', full_name: 'Again' }))).code).toBe('conflict');

    await signIn('viewer@example.com');
    expect((await actionFailure(runAction(createOrganizationAction, { name: 'act-viewer', full_name: 'No' }))).code).toBe('forbidden');
    expect((await actionFailure(runAction(deleteOrganizationAction, { name: 'act-org' }))).code).toBe('forbidden');
    expect((await actionFailure(runAction(associateUserAction, { userId: 'x', org: 'act-org' }))).code).toBe('forbidden');
    expect(await db().organization.count({ where: { name: { in: ['act-viewer'] } } })).toBe(0);
  });

  it("members of another organization: add, org admin and remove through Admin → Users' actions told the organization; the home organization unchanged; then delete", async () => {
    await signIn('admin@example.com');
    await runAction(createOrganizationAction, { name: 'act-members', full_name: 'Members' });
    const outsider = await db().user.findUniqueOrThrow({ where: { email: 'outsider@example.com' }, select: { id: true } });
    const org = await db().organization.findUniqueOrThrow({ where: { name: 'act-members' }, select: { id: true } });
    const member = () => db().orgMember.count({ where: { orgId: org.id, userId: outsider.id } });
    const homeMember = () => db().orgMember.count({ where: { orgId: HOME_ORG_ID, userId: outsider.id } });

    expect(await runAction(associateUserAction, { userId: outsider.id, org: 'act-members' })).toEqual({ email: 'outsider@example.com' });
    expect(await member()).toBe(1);
    expect(await homeMember()).toBe(1);
    expect((await actionFailure(runAction(associateUserAction, { userId: outsider.id, org: 'act-members' }))).code).toBe('conflict');
    expect((await actionFailure(runAction(associateUserAction, { userId: outsider.id, org: 'no-such-org' }))).code).toBe('not_found');
    // Chef organization admin of that organization only; Chef refuses to remove a member of `admins`.
    const admins = (orgId: string) => db().chefGroupMember.count({ where: { userId: outsider.id, group: { orgId, name: 'admins' } } });
    expect(await runAction(setOrgAdminAction, { userId: outsider.id, orgAdmin: true, org: 'act-members' })).toEqual({ email: 'outsider@example.com', orgAdmin: true });
    expect([await admins(org.id), await admins(HOME_ORG_ID)]).toEqual([1, 0]);
    expect((await actionFailure(runAction(dissociateUserAction, { userId: outsider.id, org: 'act-members' }))).code).toBe('forbidden');
    expect(await runAction(setOrgAdminAction, { userId: outsider.id, orgAdmin: false, org: 'act-members' })).toEqual({ email: 'outsider@example.com', orgAdmin: false });
    expect(await admins(org.id)).toBe(0);
    expect(await runAction(dissociateUserAction, { userId: outsider.id, org: 'act-members' })).toEqual({ email: 'outsider@example.com' });
    expect(await member()).toBe(0);
    expect(await homeMember()).toBe(1);

    // Without `org`: the home organization, as Admin → Users has always used them.
    expect(await runAction(dissociateUserAction, { userId: outsider.id })).toEqual({ email: 'outsider@example.com' });
    expect(await homeMember()).toBe(0);
    expect(await runAction(associateUserAction, { userId: outsider.id })).toEqual({ email: 'outsider@example.com' });
    expect(await homeMember()).toBe(1);

    // A pending invitation (Chef's association request) is cancelled from the page: administrators only, once.
    const adminUser = await db().user.findUniqueOrThrow({ where: { email: 'admin@example.com' }, select: { id: true } });
    const { id } = await createInvitation((await loadAccess(adminUser.id))!, 'viewer', { orgId: org.id });
    await signIn('viewer@example.com');
    expect((await actionFailure(runAction(cancelInvitationAction, { id, org: 'act-members' }))).code).toBe('forbidden');
    await signIn('admin@example.com');
    expect(await runAction(cancelInvitationAction, { id, org: 'act-members' })).toEqual({ username: 'viewer' });
    expect((await actionFailure(runAction(cancelInvitationAction, { id, org: 'act-members' }))).code).toBe('not_found');
    expect([await db().associationRequest.count(), await events('org.invite-cancel', 'act-members')]).toEqual([0, 1]);

    expect((await actionFailure(runAction(deleteOrganizationAction, { name: chefOrg() }))).code).toBe('bad_request');
    expect(await runAction(deleteOrganizationAction, { name: 'act-members' })).toMatchObject({ name: 'act-members' });
    expect(await db().organization.count({ where: { name: 'act-members' } })).toBe(0);
  });
});
