/**
 * Issue 43's console fixes below the pages: who is offered which Admin page (lib/services/organizations/admin-areas.ts), the
 * invitee's own invitations and their answer through the console's doors (by user id and e-mail, not only the
 * Chef name), the organizations an org admin administers, and the sign-in page's demo users (named only while the
 * demo is seeded and their password is still the seeded one). On the seeded demo.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { db } from '@/lib/db/client';
import { accessFor, seed } from '@/test/helpers';
import {
  adminAreas,
  administeredOrganizations,
  createInvitation,
  listMyInvitations,
  respondToInvitation,
  setOrgAdmin,
  createOrganization,
  demoLogins,
  orgSettings,
} from '@/lib/services/organizations';
import { hashPassword } from '@/lib/auth/password';
import { DEMO_USERS } from '@/lib/seed/demo-data';
import { describeDemoUser } from '@/lib/seed/demo-logins';

beforeAll(async () => {
  await seed();
});

const userId = async (email: string) => (await db().user.findUniqueOrThrow({ where: { email }, select: { id: true } })).id;

describe('Admin areas', () => {
  it('offers each Admin page only to those who may use it', async () => {
    expect(await adminAreas(await accessFor('admin@example.com'))).toEqual(['permissions', 'stages', 'users', 'organizations', 'teams', 'tokens', 'clients', 'git', 'webhooks', 'import']);
    // View and promote rights are no Admin page: their own API tokens only (the account menu's link).
    expect(await adminAreas(await accessFor('viewer@example.com'))).toEqual(['tokens']);
    expect(await adminAreas(await accessFor('release@example.com'))).toEqual(['tokens']);
    // Managing a stage: its permissions and settings.
    const qa = await db().policyGroup.findUniqueOrThrow({ where: { name: 'qa' }, select: { id: true } });
    await db().groupPermission.create({ data: { groupId: qa.id, userId: await userId('ops@example.com'), level: 'manage' } });
    expect(await adminAreas(await accessFor('ops@example.com'))).toEqual(['permissions', 'stages', 'tokens']);
  });

  it("an organization's admin gets Admin → Organizations, for the organizations they administer only", async () => {
    const admin = await accessFor('admin@example.com');
    await createOrganization(admin, { name: 'polish-acme', full_name: 'Acme' });
    await createOrganization(admin, { name: 'polish-other', full_name: 'Other' });
    const acme = await db().organization.findUniqueOrThrow({ where: { name: 'polish-acme' }, select: { id: true } });
    const lead = await userId('lead@example.com');
    await db().orgMember.create({ data: { orgId: acme.id, userId: lead } });
    await setOrgAdmin(admin, lead, true, { orgId: acme.id, orgName: 'polish-acme' });
    expect(await adminAreas(await accessFor('lead@example.com'))).toEqual(['organizations', 'tokens']);
    expect((await administeredOrganizations(await accessFor('lead@example.com'))).map((o) => o.name)).toEqual(['polish-acme']);
    expect(await administeredOrganizations(await accessFor('viewer@example.com'))).toEqual([]);
    expect((await administeredOrganizations(admin)).map((o) => o.name)).toEqual(expect.arrayContaining(['console', 'polish-acme', 'polish-other']));
  });
});

describe("the invitee's invitations in the console", () => {
  it('an org admin invites by e-mail; the invitee sees it with who and when, accepts by their user id and is a member', async () => {
    const lead = await accessFor('lead@example.com');
    const org = { orgId: (await db().organization.findUniqueOrThrow({ where: { name: 'polish-acme' }, select: { id: true } })).id, orgName: 'polish-acme' };
    const made = await createInvitation(lead, { email: 'dba@example.com' }, org);
    const dba = await accessFor('dba@example.com');
    expect(await listMyInvitations(dba)).toEqual([{ id: made.id, organization: 'polish-acme', fullName: 'Acme', inviter: 'lead', createdAt: expect.any(String), valid: true }]);
    // Nobody else sees or answers it.
    const viewer = await accessFor('viewer@example.com');
    expect(await listMyInvitations(viewer)).toEqual([]);
    await expect(respondToInvitation(viewer, { userId: viewer.userId }, made.id, { response: 'accept' })).rejects.toMatchObject({ status: 404 });
    await respondToInvitation(dba, { userId: dba.userId }, made.id, { response: 'accept' });
    expect(await db().orgMember.count({ where: { orgId: org.orgId, userId: dba.userId } })).toBe(1);
    expect(await listMyInvitations(dba)).toEqual([]);
    expect(await db().auditEvent.count({ where: { action: 'org.invite-accept', target: 'polish-acme/users/dba' } })).toBe(1);
  });

  it('an invitation whose inviter may no longer invite is shown as no longer valid, and declining it works', async () => {
    const admin = await accessFor('admin@example.com');
    const lead = await accessFor('lead@example.com');
    const org = { orgId: (await db().organization.findUniqueOrThrow({ where: { name: 'polish-acme' }, select: { id: true } })).id, orgName: 'polish-acme' };
    const made = await createInvitation(lead, { username: 'viewer' }, org);
    await setOrgAdmin(admin, lead.userId, false, org);
    const viewer = await accessFor('viewer@example.com');
    expect(await listMyInvitations(viewer)).toMatchObject([{ id: made.id, valid: false }]);
    await expect(respondToInvitation(viewer, { userId: viewer.userId }, made.id, { response: 'accept' })).rejects.toMatchObject({ status: 403 });
    await respondToInvitation(viewer, { userId: viewer.userId }, made.id, { response: 'reject' });
    expect(await listMyInvitations(viewer)).toEqual([]);
    expect(await db().orgMember.count({ where: { orgId: org.orgId, userId: viewer.userId } })).toBe(0);
  });
});

describe("the sign-in page's demo users", () => {
  it('names the seeded demo users while their password is the seeded one, and nobody once the demo mark is gone', async () => {
    const roleOf = (e: string) => describeDemoUser(e) ?? '';
    const all = await demoLogins(roleOf);
    expect(all.map((d) => d.email).sort()).toEqual(DEMO_USERS.map((u) => u.email).sort());
    expect(all.find((d) => d.email === 'release@example.com')?.can).toBe('promotes into staging, production; views dev, qa');
    expect(all.find((d) => d.email === 'lead@example.com')?.can).toBe('approves changes into staging, production; views every stage');
    // The seed's mark is not a change anyone made.
    expect(await orgSettings()).toMatchObject({ updated_at: null, updated_by: null });
    // A changed password or a deactivated user drops out.
    await db().user.update({ where: { email: 'ops@example.com' }, data: { passwordHash: await hashPassword('something-else') } });
    await db().user.update({ where: { email: 'dba@example.com' }, data: { active: false } });
    expect((await demoLogins(roleOf)).map((d) => d.email)).not.toEqual(expect.arrayContaining(['ops@example.com']));
    expect((await demoLogins(roleOf)).map((d) => d.email)).not.toEqual(expect.arrayContaining(['dba@example.com']));
    expect((await demoLogins(roleOf)).length).toBe(DEMO_USERS.length - 2);
    // A database the demo was never seeded into has no mark: no hint.
    await db().orgSetting.update({ where: { id: 'org' }, data: { demoPasswordHash: null } });
    expect(await demoLogins(roleOf)).toEqual([]);
  });
});
