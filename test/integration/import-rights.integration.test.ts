/**
 * Issue 42: imported people keep what Chef let them do (`--rights chef`): a knife-ec-backup tree with the admins
 * and users groups, a custom group and a policy group whose ACL narrows who may change it. The dry run lists each
 * person's resulting rights as the run gives them; an account the console had before gets none without --prefer
 * source; a second run changes nothing. Both databases.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { can, type Access } from '@/lib/auth/permissions';
import { db } from '@/lib/db/client';
import { computeRevisionId } from '@/lib/domain';
import { actorGroups, HOME_MEMBERSHIP } from '@/lib/services/organizations';
import { DirectorySource, runImport } from '@/lib/services/import';
import { accessFor } from '../helpers';

let ops: Access;
let dir: string;

function put(rel: string, body: unknown) {
  const p = path.join(dir, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, typeof body === 'string' ? body : JSON.stringify(body));
}

beforeAll(async () => {
  await db().user.create({ data: { email: 'ops@example.com', name: 'Ops', isAdmin: true, passwordHash: '', orgMemberships: HOME_MEMBERSHIP } });
  // dave: a console user before any import (same Chef name as the source's dave).
  await db().user.create({ data: { email: 'dave@example.com', name: 'Dave', chefName: 'dave', passwordHash: '', orgMemberships: HOME_MEMBERSHIP } });
  ops = await accessFor('ops@example.com');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-rights-'));
  const text = JSON.stringify({ revision_id: '0'.repeat(64), name: 'web', run_list: ['recipe[web::default]'], cookbook_locks: { web: { version: '1.0.0', identifier: '1'.repeat(40) } } });
  const id = computeRevisionId(text);
  for (const u of ['alice', 'bob', 'carol', 'dave']) put(`users/${u}.json`, { username: u, email: `${u}@example.com`, display_name: u[0].toUpperCase() + u.slice(1), first_name: u[0].toUpperCase() + u.slice(1), last_name: 'Example' });
  put('organizations/acme/members.json', ['alice', 'bob', 'carol', 'dave'].map((u) => ({ user: { username: u } })));
  put(`organizations/acme/policies/web-${id}.json`, text.replace('0'.repeat(64), id));
  for (const g of ['dev', 'production']) put(`organizations/acme/policy_groups/${g}.json`, { policies: { web: { revision_id: id } } });
  put('organizations/acme/data_bags/secrets/db.json', { id: 'db', password: 'x' });
  // knife-ec-backup's groups (chef_fs: users, clients, groups) and ACLs.
  put('organizations/acme/groups/admins.json', { name: 'admins', users: ['alice', 'pivotal'], clients: [], groups: [] });
  put('organizations/acme/groups/users.json', { name: 'users', users: ['alice', 'bob', 'carol', 'dave'], clients: [], groups: [] });
  put('organizations/acme/groups/clients.json', { name: 'clients', users: [], clients: ['web-1'], groups: [] });
  put('organizations/acme/groups/release.json', { name: 'release', users: ['carol'], clients: [], groups: [] });
  const ace = (groups: string[], actors: string[] = []) => ({ actors, groups });
  put('organizations/acme/acls/policy_groups/production.json', { create: ace(['admins']), read: ace(['admins', 'users', 'clients']), update: ace(['admins', 'release']), delete: ace(['admins']), grant: ace(['admins']) });
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('rights on import (--rights chef)', () => {
  it('the dry run lists each person’s rights; the run gives them; an existing account gets none; a second run changes nothing', async () => {
    const dry = await runImport(ops, new DirectorySource(dir), { dryRun: true });
    const people = Object.fromEntries(dry.report.rights!.people.map((p) => [p.user, p]));
    expect(Object.keys(people).sort()).toEqual(['alice', 'bob', 'carol', 'dave']);
    expect(people.alice.rights).toEqual(
      expect.arrayContaining([expect.stringMatching(/^organization admin/), 'team chef-admins (Chef group admins): manage on dev, production; write on data bags secrets', expect.stringMatching(/^team chef-users \(Chef group users\): promote on dev; view on production; write on data bags secrets; owner of policies web$/)]),
    );
    expect(people.carol.rights).toEqual(expect.arrayContaining(['team chef-release (Chef group release): promote on production']));
    expect(people.dave).toMatchObject({ given: false, note: expect.stringMatching(/existing console account .*--prefer source/) });
    expect(await db().team.count()).toBe(0);

    const real = await runImport(ops, new DirectorySource(dir));
    expect(real.report.rights).toEqual(dry.report.rights);
    const rights = async (email: string) => {
      const a = await accessFor(email);
      return { promoteDev: can(a, 'stage.promote', { stage: 'dev' }), promoteProd: can(a, 'stage.promote', { stage: 'production' }), manageProd: can(a, 'stage.manage', { stage: 'production' }), orgAdmin: (await actorGroups(a)).has('admins') };
    };
    expect(await rights('alice@example.com')).toEqual({ promoteDev: true, promoteProd: true, manageProd: true, orgAdmin: true });
    expect(await rights('bob@example.com')).toEqual({ promoteDev: true, promoteProd: false, manageProd: false, orgAdmin: false });
    expect(await rights('carol@example.com')).toEqual({ promoteDev: true, promoteProd: true, manageProd: false, orgAdmin: false });
    expect(await rights('dave@example.com')).toEqual({ promoteDev: false, promoteProd: false, manageProd: false, orgAdmin: false });
    // The policy has an owner its people belong to; the bag takes their writes; names kept.
    const web = await db().policy.findUniqueOrThrow({ where: { name: 'web' }, select: { ownerTeam: { select: { name: true } } } });
    expect(web.ownerTeam?.name).toBe('chef-users');
    const bob = await accessFor('bob@example.com');
    expect(can(bob, 'policy.upload', { ownerTeamId: (await db().team.findUniqueOrThrow({ where: { name: 'chef-users' } })).id })).toBe(true);
    const grants = await db().dataBagGrant.findMany({ where: { bag: { name: 'secrets' } }, select: { level: true, team: { select: { name: true } } } });
    expect(grants.map((g) => `${g.team.name}:${g.level}`).sort()).toEqual(['chef-admins:write', 'chef-users:write']);
    expect(await db().user.findUniqueOrThrow({ where: { chefName: 'carol' }, select: { firstName: true, lastName: true, origin: true } })).toEqual({ firstName: 'Carol', lastName: 'Example', origin: 'import' });

    const again = await runImport(ops, new DirectorySource(dir));
    expect(again.report.imported).toEqual([]);

    // Asked for: the existing account gets the source's rights too.
    const taken = await runImport(ops, new DirectorySource(dir), { prefer: 'source' });
    expect(taken.report.imported.map((e) => `${e.kind} ${e.name}`)).toEqual(['right chef-users/dave']);
    expect((await rights('dave@example.com')).promoteDev).toBe(true);
  });
});
