/**
 * Issue 23: Chef's association requests (erchef's oc_chef_wm_org_invites and the user's invitation resources,
 * pedant's associations_spec): how `knife org user add` associates — the organization invites, the user (or the
 * superuser for them) accepts. Invite → both lists → count → accept makes a member; erchef's errors with nothing
 * stored; an org admin invites, and once out of `admins` their invitation cannot be accepted; reject, cancel;
 * two instances inviting one user at once (one 201, one 409); invitations go with their organization.
 * One harness, tests in order, in the organization `acme` (made here, no members).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChefHarness, type ChefActor, type ChefHarness } from '@/test/chef-harness';
import { db } from '@/lib/db/client';

let chef: ChefHarness;
let acmeId = '';

beforeAll(async () => {
  chef = await startChefHarness({ seed: false });
  const made = await chef.request('POST', '/organizations', { as: 'admin', body: { name: 'acme', full_name: 'Acme' } });
  expect(made.status).toBe(201);
  acmeId = (await db().organization.findUniqueOrThrow({ where: { name: 'acme' }, select: { id: true } })).id;
});

afterAll(async () => {
  await chef?.close();
});

const ACME = '/organizations/acme';
const invite = (user: unknown, as: ChefActor = 'admin') =>
  chef.request('POST', `${ACME}/association_requests`, { as, body: user === undefined ? {} : { user } });
const respond = (user: string, id: string, response: unknown, as: ChefActor = user as ChefActor) =>
  chef.request('PUT', `/users/${user}/association_requests/${id}`, { as, body: { response } });
const isMember = async (chefName: string) => (await db().orgMember.count({ where: { orgId: acmeId, user: { chefName } } })) === 1;
const auditCount = (action: string) => db().auditEvent.count({ where: { action } });
const stored = async () => ({
  invites: await db().associationRequest.count(),
  members: await db().orgMember.count({ where: { orgId: acmeId } }),
  audit: await db().auditEvent.count({ where: { action: { startsWith: 'org.invite' } } }),
});

describe('association requests', () => {
  it('invite → listed for the organization and the user → counted → accepted: the user is a member', async () => {
    const made = await invite('viewer');
    expect(made.status).toBe(201);
    const id = String(made.json.uri).split('/').pop()!;
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(made.json).toEqual({
      uri: `${chef.url}${ACME}/association_requests/${id}`,
      organization_user: { username: 'admin' },
      organization: { name: 'acme' },
      user: { email: 'viewer@example.com', first_name: 'Victor' },
    });
    expect(made.headers.get('location')).toBe(made.json.uri);

    expect((await chef.request('GET', `${ACME}/association_requests`, { as: 'admin' })).json).toEqual([{ id, username: 'viewer' }]);
    expect((await chef.request('GET', '/users/viewer/association_requests', { as: 'viewer' })).json).toEqual([{ id, orgname: 'acme' }]);
    expect((await chef.request('GET', '/users/viewer/association_requests/count', { as: 'viewer' })).json).toEqual({ value: 1 });
    expect((await chef.request('GET', '/users/viewer/association_requests/count', { as: 'admin' })).json).toEqual({ value: 1 });
    expect(await isMember('viewer')).toBe(false);

    const accepted = await respond('viewer', id, 'accept');
    expect([accepted.status, accepted.json]).toEqual([200, { organization: { name: 'acme' } }]);
    expect(await isMember('viewer')).toBe(true);
    const users = await chef.request('GET', `${ACME}/users`, { as: 'admin' });
    expect(users.json).toEqual([{ user: { username: 'viewer' } }]);
    expect((await chef.request('GET', `${ACME}/association_requests`, { as: 'admin' })).json).toEqual([]);
    expect((await chef.request('GET', '/users/viewer/association_requests', { as: 'viewer' })).json).toEqual([]);
    expect((await chef.request('GET', '/users/viewer/association_requests/count', { as: 'viewer' })).json).toEqual({ value: 0 });
    expect([await auditCount('org.invite'), await auditCount('org.invite-accept')]).toEqual([1, 1]);
  });

  it("refuses with erchef's answers and stores nothing", async () => {
    const pending = await invite('dev');
    expect(pending.status).toBe(201);
    const id = String(pending.json.uri).split('/').pop()!;
    const before = await stored();

    const member = await invite('viewer');
    expect([member.status, member.json]).toEqual([409, { error: 'The association already exists.' }]);
    const twice = await invite('dev');
    expect([twice.status, twice.json]).toEqual([409, { error: 'The invite already exists.' }]);
    const nobody = await invite('nobody');
    expect([nobody.status, nobody.json]).toEqual([404, { error: 'Could not find user nobody' }]);
    expect((await invite(undefined)).status).toBe(400);
    expect((await invite(['dba'])).status).toBe(400);
    // A member who is not an org admin; a user who is not a member (erchef's gate, before any handler).
    expect((await invite('dba', 'viewer')).status).toBe(403);
    const outsider = await invite('dba', 'ops');
    expect([outsider.status, outsider.json]).toEqual([403, { error: ["'ops' not associated with organization 'acme'"] }]);
    expect((await chef.request('GET', `${ACME}/association_requests`, { as: 'viewer' })).status).toBe(403);
    expect((await chef.request('DELETE', `${ACME}/association_requests/${id}`, { as: 'viewer' })).status).toBe(403);

    // Another user's invitations: neither read nor answered (an org admin neither, as erchef); the superuser may.
    const read = await chef.request('GET', '/users/dev/association_requests', { as: 'viewer' });
    expect([read.status, read.json]).toEqual([403, { error: ['missing read permission'] }]);
    expect((await chef.request('GET', '/users/dev/association_requests/count', { as: 'viewer' })).status).toBe(403);
    expect((await respond('dev', id, 'accept', 'viewer')).status).toBe(403);
    const flappy = await chef.request('GET', '/users/flappy/association_requests', { as: 'admin' });
    expect([flappy.status, flappy.json]).toEqual([404, { error: 'Could not find user flappy' }]);
    // Not the user's invitation; a bad answer; DELETE on the user's path; the user's paths under an organization.
    const notYours = await respond('viewer', id, 'accept');
    expect([notYours.status, notYours.json]).toEqual([404, { error: `Cannot find association request: ${id}` }]);
    const blither = await respond('dev', id, 'blither');
    expect([blither.status, blither.json]).toEqual([400, { error: ["Param response must be either 'accept' or 'reject'"] }]);
    expect((await chef.request('PUT', `/users/dev/association_requests/${id}`, { as: 'dev', body: '[' })).status).toBe(400);
    expect((await chef.request('DELETE', `/users/dev/association_requests/${id}`, { as: 'dev' })).status).toBe(405);
    expect((await chef.request('GET', `${ACME}/users/dev/association_requests`, { as: 'admin' })).status).toBe(404);
    // Another organization's invitation through the home organization's path: 400 naming both.
    const mismatch = await chef.request('DELETE', `association_requests/${id}`, { as: 'admin' });
    expect([mismatch.status, mismatch.json]).toEqual([400, { error: `Organization ${chef.org} does not match acme in association request` }]);

    expect(await stored()).toEqual(before);
  });

  it('an org admin invites; out of admins, their invitation cannot be accepted; reject, cancel, the superuser accepts for a user', async () => {
    expect((await chef.request('POST', `${ACME}/users`, { as: 'admin', body: { username: 'release' } })).status).toBe(201);
    expect((await chef.request('PUT', `${ACME}/groups/admins`, { as: 'admin', body: { actors: { users: ['release'], clients: [], groups: [] } } })).status).toBe(200);
    const byOrgAdmin = await invite('dba', 'release');
    expect([byOrgAdmin.status, byOrgAdmin.json.organization_user]).toEqual([201, { username: 'release' }]);
    const dbaInvite = String(byOrgAdmin.json.uri).split('/').pop()!;
    expect((await chef.request('GET', `${ACME}/association_requests`, { as: 'release' })).json.map((i: { username: string }) => i.username)).toEqual(['dba', 'dev']);

    expect((await chef.request('PUT', `${ACME}/groups/admins`, { as: 'admin', body: { actors: { users: [], clients: [], groups: [] } } })).status).toBe(200);
    const invalid = await respond('dba', dbaInvite, 'accept');
    expect([invalid.status, invalid.json]).toEqual([403, { error: 'This invitation is no longer valid. Please notify an administrator and request to be re-invited to the organization.' }]);
    expect(await isMember('dba')).toBe(false);
    const rejected = await respond('dba', dbaInvite, 'reject');
    expect([rejected.status, rejected.json]).toEqual([200, { organization: { name: 'acme' } }]);
    expect((await respond('dba', dbaInvite, 'accept')).json).toEqual({ error: `Cannot find association request: ${dbaInvite}` });
    expect(await isMember('dba')).toBe(false);

    const [devInvite] = (await chef.request('GET', '/users/dev/association_requests', { as: 'dev' })).json as { id: string }[];
    const cancelled = await chef.request('DELETE', `${ACME}/association_requests/${devInvite.id}`, { as: 'admin' });
    expect([cancelled.status, cancelled.json]).toEqual([200, { id: devInvite.id, username: 'dev', orgname: 'acme' }]);
    expect((await chef.request('DELETE', `${ACME}/association_requests/${devInvite.id}`, { as: 'admin' })).json).toEqual({ error: `Cannot find association request: ${devInvite.id}` });
    expect((await chef.request('GET', '/users/dev/association_requests', { as: 'dev' })).json).toEqual([]);

    const forOps = await invite('ops');
    const accepted = await respond('ops', String(forOps.json.uri).split('/').pop()!, 'accept', 'admin');
    expect(accepted.status).toBe(200);
    expect(await isMember('ops')).toBe(true);
    expect([await auditCount('org.invite-reject'), await auditCount('org.invite-cancel'), await auditCount('org.invite-accept')]).toEqual([1, 1, 2]);
  });

  it('two instances inviting one user at once: one 201, one 409, one row; invitations go with their organization', async () => {
    const answers = await Promise.all([0, 1].map(() => invite('dba')));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    expect(await db().associationRequest.count({ where: { orgId: acmeId, user: { chefName: 'dba' } } })).toBe(1);
    // A direct association fulfils a pending invitation.
    expect((await chef.request('POST', `${ACME}/users`, { as: 'admin', body: { username: 'dba' } })).status).toBe(201);
    expect(await db().associationRequest.count({ where: { orgId: acmeId } })).toBe(0);

    expect((await invite('dev')).status).toBe(201);
    expect((await chef.request('DELETE', `${ACME}`, { as: 'admin' })).status).toBe(200);
    expect(await db().associationRequest.count()).toBe(0);
  });
});
