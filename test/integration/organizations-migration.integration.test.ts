/**
 * Issue 23, step 1 (docs/organizations-design.md): the organization tables. Runs on SQLite and, in the
 * PostgreSQL run, on PostgreSQL. The migrated database holds the home organization with Chef's system groups;
 * the writers that make users and clients put them in it; a database that already has users and clients is
 * backfilled by the migration; ensureHomeOrganization (start-up) follows CHEF_ORG, is idempotent, is safe when
 * two instances run it at once, and refuses a name another organization has.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createDb, db } from '@/lib/db/client';
import { applyMigrations } from '@/lib/db/migrate';
import { databaseProvider, databaseUrl, isPostgresUrl } from '@/lib/db/url';
import { ensureHomeOrganization, homeGroupId, homeOrganization, HomeOrganizationError, HOME_ORG_ID, organizationByName, SYSTEM_GROUPS } from '@/lib/services/organizations';
import { createUser, createChefUser } from '@/lib/services/users';
import { createClient, rotateValidator } from '@/lib/services/clients';
import { accessFor, seed, snapshot } from '@/test/helpers';
import { databaseBeforeMigration } from '@/test/migration-db';

const provider = databaseProvider();
const SYSTEM = { kind: 'system' as const, userId: null, email: 'test' };

async function homeGroups() {
  const groups = await db().chefGroup.findMany({ where: { orgId: HOME_ORG_ID }, select: { name: true, members: { select: { member: true, childGroup: { select: { name: true } } } } }, orderBy: { name: 'asc' } });
  return Object.fromEntries(groups.map((g) => [g.name, g.members.map((m) => m.childGroup?.name ?? m.member).sort()]));
}

/**
 * ensureHomeOrganization(name) by two instances: two clients, each running its own transaction; at once on
 * PostgreSQL (two pools). Two SQLite instances are two processes whose writers queue on the file lock; in one
 * process better-sqlite3 would block the event loop while it waits, so there they run one after the other.
 */
async function twoInstances(name: string) {
  const a = createDb(databaseUrl());
  const b = createDb(databaseUrl());
  try {
    return isPostgresUrl()
      ? await Promise.all([ensureHomeOrganization(name, a), ensureHomeOrganization(name, b)])
      : [await ensureHomeOrganization(name, a), await ensureHomeOrganization(name, b)];
  } finally {
    await Promise.all([a.$disconnect(), b.$disconnect()]);
  }
}

const DEFAULT_GROUPS = { admins: [], 'billing-admins': [], clients: [], public_key_read_access: ['clients', 'users'], users: [] };

describe(`organizations (issue 23, step 1) on ${provider}`, () => {
  beforeAll(async () => {
    await seed();
  });

  it('the migrated database has the home organization, named after CHEF_ORG’s default, with Chef’s five groups', async () => {
    const home = await homeOrganization();
    expect(home).toMatchObject({ id: HOME_ORG_ID, name: 'console', fullName: 'console', home: true });
    expect(home!.createdAt).toBeInstanceOf(Date);
    expect(await organizationByName('console')).toEqual(home);
    expect(await organizationByName('nope')).toBeNull();
    expect(await homeGroups()).toEqual(DEFAULT_GROUPS);
    expect(Object.keys(DEFAULT_GROUPS).sort()).toEqual([...SYSTEM_GROUPS].sort());
    expect(await db().chefGroup.count({ where: { id: homeGroupId('public_key_read_access') } })).toBe(1);
  });

  it('users made by the seed and by an administrator are members; every client belongs to the home organization; Chef-created users are not members yet', async () => {
    const admin = await accessFor('admin@example.com');
    await createUser(admin, { email: 'org-new@example.com', name: 'New', password: 'a-long-password', isAdmin: false });
    await createClient(admin, { name: 'org-node-1', create_key: true }, { apiVersion: 1 });
    await rotateValidator(SYSTEM, 'console');
    await createChefUser(admin, { username: 'org-chef-user', email: 'org-chef-user@example.com', first_name: 'C', last_name: 'U', display_name: 'Chef User', password: 'a-long-password' }, { apiVersion: 1 });

    const users = await db().user.findMany({ select: { email: true, orgMemberships: { select: { orgId: true } } } });
    const members = users.filter((u) => u.orgMemberships.some((m) => m.orgId === HOME_ORG_ID)).map((u) => u.email);
    expect(users.filter((u) => !members.includes(u.email)).map((u) => u.email)).toEqual(['org-chef-user@example.com']);
    expect(members).toContain('org-new@example.com');
    expect(members).toContain('admin@example.com');

    const clients = await db().chefClient.findMany({ select: { name: true, orgId: true } });
    expect(clients.map((c) => c.name)).toEqual(expect.arrayContaining(['org-node-1', 'console-validator']));
    expect(clients.length).toBeGreaterThan(2); // the demo's vault clients too
    expect(clients.filter((c) => c.orgId !== HOME_ORG_ID)).toEqual([]);
  });

  it('ensureHomeOrganization with nothing to do changes nothing, however often it runs', async () => {
    const before = snapshot();
    expect(await ensureHomeOrganization('console')).toEqual({ name: 'console', created: false, renamedFrom: null, groupsCreated: [] });
    expect(await ensureHomeOrganization('console')).toEqual({ name: 'console', created: false, renamedFrom: null, groupsCreated: [] });
    expect(snapshot()).toBe(before);
  });

  it('refuses a CHEF_ORG that names another organization, and changes nothing', async () => {
    await db().organization.create({ data: { id: 'org_other', name: 'other', fullName: 'Other Inc.' } });
    try {
      const before = snapshot();
      const err = await ensureHomeOrganization('other').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HomeOrganizationError);
      expect((err as Error).message).toBe(
        "CHEF_ORG is 'other', but the organization 'other' already exists and is not this server's home organization ('console'): delete or rename that organization, or set CHEF_ORG back to 'console'.",
      );
      expect(snapshot()).toBe(before);
    } finally {
      await db().organization.delete({ where: { id: 'org_other' } });
    }
  });

  it('follows CHEF_ORG and restores missing groups, once when two instances start at once; members and clients stay', async () => {
    const members = await db().orgMember.count({ where: { orgId: HOME_ORG_ID } });
    const clients = await db().chefClient.count({ where: { orgId: HOME_ORG_ID } });
    await db().chefGroup.deleteMany({ where: { orgId: HOME_ORG_ID, name: { in: ['admins', 'public_key_read_access'] } } });
    const changed = (await twoInstances('acme')).filter((r) => r.renamedFrom !== null || r.groupsCreated.length);
    expect(changed).toEqual([{ name: 'acme', created: false, renamedFrom: 'console', groupsCreated: ['admins', 'public_key_read_access'] }]);
    expect(await homeOrganization()).toMatchObject({ id: HOME_ORG_ID, name: 'acme', fullName: 'acme', home: true });
    expect(await homeGroups()).toEqual(DEFAULT_GROUPS);
    expect(await db().orgMember.count({ where: { orgId: HOME_ORG_ID } })).toBe(members);
    expect(await db().chefClient.count({ where: { orgId: HOME_ORG_ID } })).toBe(clients);
    const events = await db().auditEvent.findMany({ where: { action: 'org.home' }, select: { actorEmail: true, target: true, before: true, after: true } });
    expect(events).toEqual([{ actorEmail: 'start-up', target: 'acme', before: '{"name":"console"}', after: '{"name":"acme","groups_created":["admins","public_key_read_access"]}' }]);

    // Back to the default name (a rename alone, again by two instances at once): one rename, one event; a full
    // name given by hand is kept.
    await db().organization.update({ where: { id: HOME_ORG_ID }, data: { fullName: 'Acme Corp.' } });
    const back = (await twoInstances('console')).filter((r) => r.renamedFrom !== null);
    expect(back).toEqual([{ name: 'console', created: false, renamedFrom: 'acme', groupsCreated: [] }]);
    expect(await homeOrganization()).toMatchObject({ name: 'console', fullName: 'Acme Corp.' });
    expect(await db().auditEvent.count({ where: { action: 'org.home' } })).toBe(2);
  });

  it('remakes a removed home organization with every user a member', async () => {
    await db().organization.delete({ where: { id: HOME_ORG_ID } });
    expect(await ensureHomeOrganization('console')).toEqual({ name: 'console', created: true, renamedFrom: null, groupsCreated: [...SYSTEM_GROUPS] });
    expect(await homeOrganization()).toMatchObject({ name: 'console', fullName: 'console', home: true });
    expect(await homeGroups()).toEqual(DEFAULT_GROUPS);
    expect(await db().orgMember.count({ where: { orgId: HOME_ORG_ID } })).toBe(await db().user.count());
  });
});

describe(`the organizations migration on a ${provider} database that already has users and clients`, () => {
  const scratch = databaseBeforeMigration('organizations');

  it('makes every user a member and puts every client (keys kept) in the home organization', async () => {
    expect(scratch.mine).toHaveLength(1);
    await applyMigrations(scratch.url, scratch.dir);
    const old = createDb(scratch.url);
    try {
      const at = "'2026-11-20T12:00:00.000+00:00'";
      await old.$executeRawUnsafe(`INSERT INTO "User" ("id", "email", "name", "passwordHash", "chefName", "createdAt") VALUES ('u1', 'old@example.com', 'Old', 'x', 'old', ${at}), ('u2', 'old2@example.com', 'Old 2', 'x', NULL, ${at})`);
      await old.$executeRawUnsafe(`INSERT INTO "ChefName" ("name", "kind", "createdAt") VALUES ('old', 'user', ${at}), ('old-node', 'client', ${at})`);
      await old.$executeRawUnsafe(`INSERT INTO "ChefClient" ("id", "name", "createdAt") VALUES ('c1', 'old-node', ${at})`);
      await old.$executeRawUnsafe(`INSERT INTO "ChefKey" ("id", "userId", "clientId", "name", "publicKey", "createdAt") VALUES ('k1', NULL, 'c1', 'default', 'PEM', ${at}), ('k2', 'u1', NULL, 'default', 'PEM', ${at})`);
    } finally {
      await old.$disconnect();
    }

    scratch.addMine();
    expect(await applyMigrations(scratch.url, scratch.dir)).toEqual(scratch.mine);

    const after = createDb(scratch.url);
    try {
      expect(await after.organization.findMany({ select: { id: true, name: true, homeKey: true } })).toEqual([{ id: HOME_ORG_ID, name: 'console', homeKey: 'home' }]);
      expect(await after.orgMember.findMany({ select: { orgId: true, userId: true, createdAt: true }, orderBy: { userId: 'asc' } })).toEqual([
        { orgId: HOME_ORG_ID, userId: 'u1', createdAt: new Date('2026-11-20T12:00:00Z') },
        { orgId: HOME_ORG_ID, userId: 'u2', createdAt: new Date('2026-11-20T12:00:00Z') },
      ]);
      expect(await after.chefClient.findMany({ select: { id: true, name: true, orgId: true, createdAt: true, keys: { select: { id: true } } } })).toEqual([
        { id: 'c1', name: 'old-node', orgId: HOME_ORG_ID, createdAt: new Date('2026-11-20T12:00:00Z'), keys: [{ id: 'k1' }] },
      ]);
      expect(await after.chefKey.findMany({ select: { id: true, userId: true, clientId: true }, orderBy: { id: 'asc' } })).toEqual([
        { id: 'k1', userId: null, clientId: 'c1' },
        { id: 'k2', userId: 'u1', clientId: null },
      ]);
      expect(await after.chefGroup.count({ where: { orgId: HOME_ORG_ID } })).toBe(SYSTEM_GROUPS.length);
      // A client is made in an organization: the column is required and has no default.
      await expect(after.$executeRawUnsafe(`INSERT INTO "ChefClient" ("id", "name", "createdAt") VALUES ('c2', 'no-org', '2026-11-20T12:00:00.000+00:00')`)).rejects.toThrow();
      // Start-up on that database: nothing to do under the default name.
      expect(await ensureHomeOrganization('console', after)).toMatchObject({ created: false, renamedFrom: null, groupsCreated: [] });
    } finally {
      await after.$disconnect();
    }
  });
});
