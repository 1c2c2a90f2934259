/**
 * Coverage the review found missing (issue 10): user, team and membership
 * administration (self-lockout, token revocation on deactivation), token
 * expiry and revocation, the audit visibility filter for non-admins, CSV
 * formula neutralisation, orphan cleanup with keep_latest, and the node-move
 * audit event. Every test makes its own users, teams, policies and nodes.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes, accessFor, call, seed, snapshot, tokenFor } from '@/test/helpers';
import { db } from '@/lib/db/client';
import { loadAccess } from '@/lib/db/queries/access';
import { hashPassword } from '@/lib/auth/password';
import { createApiToken, revokeApiToken } from '@/lib/services/users';
import type { z } from 'zod';
import * as users from '@/lib/services/users';
import { parseInput } from '@/lib/validation/parse';
import { uploadRevision } from '@/lib/services/policies';
import { setGroupPolicy } from '@/lib/services/stages';
const board = apiRoutes('/api/v1/board');
const auditRoute = apiRoutes('/api/v1/audit');
const orphans = apiRoutes('/api/v1/orphans/cleanup');
const nodes = apiRoutes('/api/v1/nodes/[name]');
import type { Access } from '@/lib/auth/permissions';
import { HOME_MEMBERSHIP } from '@/lib/services/organizations';

// The server actions' edge (lib/actions/admin/users-actions.ts): the input parsed by the service's own schema, then the service.
const createUser = async (a: Access, raw: z.input<typeof users.ZCreateUserInput>) => users.createUser(a, parseInput(users.ZCreateUserInput, raw));
const updateUser = async (a: Access, raw: z.input<typeof users.ZUpdateUserInput>) => users.updateUser(a, parseInput(users.ZUpdateUserInput, raw));
const signOutEverywhere = async (a: Access, raw: z.input<typeof users.ZSignOutEverywhereInput>) => users.signOutEverywhere(a, parseInput(users.ZSignOutEverywhereInput, raw));
const createTeam = async (a: Access, raw: z.input<typeof users.ZTeamInput>) => users.createTeam(a, parseInput(users.ZTeamInput, raw));
const setTeamMembership = async (a: Access, raw: z.input<typeof users.ZMembershipInput>) => users.setTeamMembership(a, parseInput(users.ZMembershipInput, raw));

let admin: Access;
let dev: Access;

beforeAll(async () => {
  await seed();
  admin = await accessFor('admin@example.com');
  dev = await accessFor('dev@example.com');
});

const uid = () => randomUUID().slice(0, 8);

/** A fresh user (optionally with stage grants), with a live API token. */
async function freshUser(opts: { admin?: boolean; grants?: Record<string, 'view' | 'promote'> } = {}) {
  const s = uid();
  const email = `u-${s}@example.com`;
  const user = await db().user.create({ data: { email, name: `User ${s}`, passwordHash: await hashPassword('a-long-password'), isAdmin: !!opts.admin, orgMemberships: HOME_MEMBERSHIP } });
  for (const [stage, level] of Object.entries(opts.grants ?? {})) {
    const g = await db().policyGroup.findUniqueOrThrow({ where: { name: stage } });
    await db().groupPermission.create({ data: { groupId: g.id, userId: user.id, level } });
  }
  const token = (await createApiToken(null, { userEmail: email, name: `t-${s}` })).token;
  return { id: user.id, email, token, suffix: s, access: async () => (await loadAccess(user.id))! };
}

const lastAudit = (where: object) => db().auditEvent.findFirst({ where, orderBy: { createdAt: 'desc' } });

describe('user administration', () => {
  it('an admin creates a user (audited); a non-admin is refused and nothing changes; duplicates and bad input are named', async () => {
    const email = `new-${uid()}@example.com`;
    const before = snapshot({ except: ['ApiToken'] });
    await expect(createUser(dev, { email, name: 'N', password: 'a-long-password' })).rejects.toMatchObject({ status: 403 });
    expect(snapshot({ except: ['ApiToken'] })).toBe(before);
    await expect(createUser(admin, { email, name: 'N', password: 'short' })).rejects.toMatchObject({ status: 400, errors: [expect.objectContaining({ path: '/password' })] });
    await createUser(admin, { email: email.toUpperCase(), name: 'New User', password: 'a-long-password' });
    expect(await db().user.findUnique({ where: { email } })).toMatchObject({ name: 'New User', isAdmin: false, active: true });
    expect(await lastAudit({ action: 'user.create', target: email })).toMatchObject({ actorEmail: 'admin@example.com' });
    await expect(createUser(admin, { email, name: 'Again', password: 'a-long-password' })).rejects.toMatchObject({ status: 409 });
  });

  it('self-lockout guard: an admin can neither deactivate themselves nor drop their own admin flag', async () => {
    const me = await freshUser({ admin: true });
    const access = await me.access();
    const before = snapshot({ except: ['ApiToken'] });
    await expect(updateUser(access, { email: me.email, active: false })).rejects.toMatchObject({ status: 400, errors: [expect.objectContaining({ path: '/active' })] });
    await expect(updateUser(access, { email: me.email, isAdmin: false })).rejects.toMatchObject({ status: 400, errors: [expect.objectContaining({ path: '/isAdmin' })] });
    expect(snapshot({ except: ['ApiToken'] })).toBe(before);
    // Another admin may.
    await updateUser(admin, { email: me.email, isAdmin: false });
    expect((await db().user.findUniqueOrThrow({ where: { email: me.email } })).isAdmin).toBe(false);
  });

  it('deactivation revokes every live API token and ends sessions; reactivation does not bring the tokens back', async () => {
    const u = await freshUser({ grants: { dev: 'view' } });
    const second = (await createApiToken(null, { userEmail: u.email, name: 'second' })).token;
    for (const t of [u.token, second]) expect((await call(board.GET, 'GET', { token: t })).status).toBe(200);
    const versionBefore = (await db().user.findUniqueOrThrow({ where: { id: u.id } })).sessionVersion;
    await updateUser(admin, { email: u.email, active: false });
    const tokens = await db().apiToken.findMany({ where: { userId: u.id } });
    expect(tokens).toHaveLength(2);
    for (const t of tokens) expect(t.revokedAt).toBeInstanceOf(Date);
    expect((await db().user.findUniqueOrThrow({ where: { id: u.id } })).sessionVersion).toBe(versionBefore + 1);
    for (const t of [u.token, second]) expect((await call(board.GET, 'GET', { token: t })).status).toBe(401);
    expect(await lastAudit({ action: 'user.update', target: u.email })).toMatchObject({ before: expect.stringContaining('"active":true'), after: expect.stringContaining('"active":false') });
    await updateUser(admin, { email: u.email, active: true });
    for (const t of [u.token, second]) expect((await call(board.GET, 'GET', { token: t })).status).toBe(401);
  });

  it('a password reset ends sessions and is audited as such; sign-out-everywhere is for oneself or an admin', async () => {
    const u = await freshUser();
    const other = await freshUser();
    await updateUser(admin, { email: u.email, password: 'another-long-password' });
    expect((await db().user.findUniqueOrThrow({ where: { id: u.id } })).sessionVersion).toBe(1);
    expect(await lastAudit({ action: 'user.reset-password', target: u.email })).toBeTruthy();
    await signOutEverywhere(await u.access(), { email: u.email });
    expect((await db().user.findUniqueOrThrow({ where: { id: u.id } })).sessionVersion).toBe(2);
    await expect(signOutEverywhere(await u.access(), { email: other.email })).rejects.toMatchObject({ status: 403 });
    expect((await db().user.findUniqueOrThrow({ where: { id: other.id } })).sessionVersion).toBe(0);
  });
});

describe('team and membership administration', () => {
  it('teams: created by admins only, names checked, duplicates refused; membership changes what a user may do', async () => {
    const name = `team-${uid()}`;
    await expect(createTeam(dev, { name })).rejects.toMatchObject({ status: 403 });
    await expect(createTeam(admin, { name: 'Not A Name' })).rejects.toMatchObject({ status: 400, errors: [expect.objectContaining({ path: '/name' })] });
    await createTeam(admin, { name, description: 'd' });
    await expect(createTeam(admin, { name })).rejects.toMatchObject({ status: 409 });
    expect(await lastAudit({ action: 'team.create', target: name })).toBeTruthy();

    const u = await freshUser();
    // No team: may not create a policy.
    const policy = `member-${uid()}`;
    const lock = JSON.stringify({ name: policy, revision_id: 'r1', run_list: [], cookbook_locks: {} });
    await expect(uploadRevision(await u.access(), { policyName: policy, text: lock })).rejects.toMatchObject({ status: 403 });
    await expect(setTeamMembership(dev, { team: name, email: u.email, member: true })).rejects.toMatchObject({ status: 403 });
    expect(await setTeamMembership(admin, { team: name, email: u.email, member: true })).toEqual({ changed: true });
    expect(await setTeamMembership(admin, { team: name, email: u.email, member: true })).toEqual({ changed: false });
    expect(await lastAudit({ action: 'team.add-member', target: `${name}/${u.email}` })).toBeTruthy();
    expect((await uploadRevision(await u.access(), { policyName: policy, text: lock })).status).toBe(201);
    expect((await db().policy.findUniqueOrThrow({ where: { name: policy }, select: { ownerTeam: { select: { name: true } } } })).ownerTeam?.name).toBe(name);
    await setTeamMembership(admin, { team: name, email: u.email, member: false });
    expect(await lastAudit({ action: 'team.remove-member', target: `${name}/${u.email}` })).toBeTruthy();
    const lock2 = JSON.stringify({ name: policy, revision_id: 'r2', run_list: [], cookbook_locks: {} });
    await expect(uploadRevision(await u.access(), { policyName: policy, text: lock2 })).rejects.toMatchObject({ status: 403 });
    await expect(setTeamMembership(admin, { team: `nope-${uid()}`, email: u.email, member: true })).rejects.toMatchObject({ status: 404 });
  });
});

describe('API tokens: expiry and revocation', () => {
  it('an expired token is refused (401); one expiring later works', async () => {
    const u = await freshUser({ grants: { dev: 'view' } });
    const t = await createApiToken(null, { userEmail: u.email, name: 'expiring', expiresInDays: 1 });
    expect(t.expiresAt!.getTime()).toBeGreaterThan(Date.now());
    expect((await call(board.GET, 'GET', { token: t.token })).status).toBe(200);
    await db().apiToken.update({ where: { id: t.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const res = await call(board.GET, 'GET', { token: t.token });
    expect(res.status).toBe(401);
    // The node read path (its own query) refuses it too.
    expect((await call(nodes.PUT, 'PUT', { token: t.token, params: { name: `n-${uid()}` }, body: { policy_group: 'dev', policy_name: 'webapp' } })).status).toBe(401);
  });

  it('revocation: owners revoke their own, admins anyone’s, others are refused; revoking twice keeps the first time', async () => {
    const u = await freshUser({ grants: { dev: 'view' } });
    const other = await freshUser();
    const t = await createApiToken(null, { userEmail: u.email, name: 'mine' });
    await expect(revokeApiToken(await other.access(), { id: t.id })).rejects.toMatchObject({ status: 403 });
    expect((await call(board.GET, 'GET', { token: t.token })).status).toBe(200);
    const first = await revokeApiToken(await u.access(), { id: t.id });
    expect((await call(board.GET, 'GET', { token: t.token })).status).toBe(401);
    expect((await revokeApiToken(admin, { id: t.id })).revokedAt).toEqual(first.revokedAt);
    expect(await db().auditEvent.count({ where: { action: 'token.revoke', target: `${u.email}/mine` } })).toBe(1);
    // By the secret itself (the CLI), and tokens for another user need admin.
    const t2 = await createApiToken(null, { userEmail: u.email, name: 'cli' });
    await revokeApiToken(null, { token: t2.token });
    expect((await call(board.GET, 'GET', { token: t2.token })).status).toBe(401);
    await expect(createApiToken(await other.access(), { userEmail: u.email, name: 'not yours' })).rejects.toMatchObject({ status: 403 });
    await updateUser(admin, { email: other.email, active: false });
    await expect(createApiToken(admin, { userEmail: other.email, name: 'inactive' })).rejects.toMatchObject({ status: 404 });
  });
});

describe('the audit log', () => {
  async function events(marker: string) {
    const rows = [
      { action: 'user.create', targetType: 'user', target: `${marker}-user` },
      { action: 'team.create', targetType: 'team', target: `${marker}-team` },
      { action: 'pointer.promote', targetType: 'pointer', target: `${marker}-dev`, groupName: 'dev', policyName: marker },
      { action: 'pointer.promote', targetType: 'pointer', target: `${marker}-qa`, groupName: 'qa', policyName: marker },
      { action: 'revision.upload', targetType: 'revision', target: `${marker}-rev`, policyName: marker },
      { action: 'policy.create', targetType: 'policy', target: `${marker}-policy`, policyName: marker },
    ];
    for (const r of rows) await db().auditEvent.create({ data: { actorEmail: 'admin@example.com', ...r } });
  }
  const targets = (res: { json: { events: { target: string }[] } }) => res.json.events.map((e) => e.target).sort();

  it('non-admins see events of stages they may view and of policies and revisions; not users, teams or other stages', async () => {
    const marker = `vis-${uid()}`;
    await events(marker);
    const viewer = await freshUser({ grants: { dev: 'view' } });
    const mine = await call(auditRoute.GET, 'GET', { token: viewer.token, query: `actor=admin@example.com&limit=5000` });
    expect(mine.status).toBe(200);
    const seen = targets(mine).filter((t: string) => t.startsWith(marker));
    expect(seen).toEqual([`${marker}-dev`, `${marker}-policy`, `${marker}-rev`].sort());
    const all = await call(auditRoute.GET, 'GET', { token: await tokenFor('admin@example.com'), query: `limit=5000` });
    expect(targets(all).filter((t: string) => t.startsWith(marker))).toHaveLength(6);
    // The filter holds for the CSV export too.
    const csv = await call(auditRoute.GET, 'GET', { token: viewer.token, query: `policy=${marker}&format=csv` });
    expect(csv.text).toContain(`${marker}-dev`);
    expect(csv.text).not.toContain(`${marker}-qa`);
  });

  it('CSV export neutralises cells that a spreadsheet would read as a formula (= + - @, tab, carriage return)', async () => {
    const marker = `csv-${uid()}`;
    const nasty = ['=HYPERLINK("http://evil.example/","x")', '+1+1', '-2+3', '@SUM(A1)', '\t=1', '\r=1', 'plain "quoted"'];
    for (const [i, reason] of nasty.entries()) {
      await db().auditEvent.create({ data: { actorEmail: i === 0 ? '=cmd|calc' : 'admin@example.com', action: 'policy.create', targetType: 'policy', target: `${marker}-${i}`, policyName: marker, reason } });
    }
    const res = await call(auditRoute.GET, 'GET', { token: await tokenFor('admin@example.com'), query: `policy=${marker}&format=csv` });
    expect(res.status).toBe(200);
    const lines = res.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('at,actor,action,target_type,target,stage,policy,before,after,reason,request_id');
    expect(lines).toHaveLength(1 + nasty.length);
    const body = lines.slice(1).join('\n');
    for (const reason of nasty.slice(0, 6)) expect(body).toContain(`"'${reason.replace(/"/g, '""')}"`);
    expect(body).toContain(`"'=cmd|calc"`);
    expect(body).toContain(`"plain ""quoted"""`);
    // No cell starts with a formula character once its quotes are taken off.
    for (const cell of body.match(/"(?:[^"]|"")*"/g) ?? []) expect(cell.slice(1, -1)).not.toMatch(/^[=+\-@\t\r]/);
  });
});

describe('orphan cleanup with keep_latest', () => {
  it('keeps the newest N orphans per policy and every revision a stage runs; dry run deletes nothing; admins only; audited', async () => {
    const policy = `orph-${uid()}`;
    const revs = ['o1', 'o2', 'o3', 'o4', 'live'];
    for (const [i, rev] of revs.entries()) {
      await uploadRevision(dev, { policyName: policy, text: JSON.stringify({ name: policy, revision_id: rev, run_list: [], cookbook_locks: {} }) });
      // Distinct creation times, oldest first.
      await db().policyRevision.updateMany({ where: { revisionId: rev, policy: { name: policy } }, data: { createdAt: new Date(Date.UTC(2026, 0, 1 + i)) } });
    }
    // The newest revision runs in dev; the oldest too (a stage pins an old one): neither is an orphan.
    await setGroupPolicy(dev, { group: 'dev', policy, text: JSON.stringify({ name: policy, revision_id: 'live', run_list: [], cookbook_locks: {} }) });
    await setGroupPolicy(dev, { group: 'qa', policy, text: JSON.stringify({ name: policy, revision_id: 'o1', run_list: [], cookbook_locks: {} }) });

    const adminToken = await tokenFor('admin@example.com');
    const refused = await call(orphans.POST, 'POST', { token: await tokenFor('dev@example.com'), body: { policy, keep_latest: 1 } });
    expect(refused.status).toBe(403);
    const before = snapshot({ except: ['ApiToken'] });
    const dry = await call(orphans.POST, 'POST', { token: adminToken, body: { policy, keep_latest: 1, dry_run: true } });
    expect(dry.status).toBe(200);
    expect(dry.json).toEqual({ dry_run: true, removed: { [policy]: ['o3', 'o2'] } });
    expect(snapshot({ except: ['ApiToken'] })).toBe(before);
    const bad = await call(orphans.POST, 'POST', { token: adminToken, body: { policy, keep_latest: -1 } });
    expect(bad.status).toBe(400);

    const done = await call(orphans.POST, 'POST', { token: adminToken, body: { policy, keep_latest: 1 } });
    expect(done.json).toEqual({ dry_run: false, removed: { [policy]: ['o3', 'o2'] } });
    const left = (await db().policyRevision.findMany({ where: { policy: { name: policy } }, select: { revisionId: true } })).map((r) => r.revisionId).sort();
    expect(left).toEqual(['live', 'o1', 'o4']);
    expect(await lastAudit({ action: 'revision.cleanup-orphans', target: policy })).toMatchObject({ before: JSON.stringify({ [policy]: ['o3', 'o2'] }) });
    // keep_latest 0 removes the last orphan; the revisions stages run stay.
    expect((await call(orphans.POST, 'POST', { token: adminToken, body: { policy, keep_latest: 0 } })).json.removed).toEqual({ [policy]: ['o4'] });
    expect(await db().policyRevision.count({ where: { policy: { name: policy } } })).toBe(2);
  });
});

describe('nodes', () => {
  it('a node reporting another stage is a node.move audit event with where it came from; a plain check-in is not audited', async () => {
    const node = `node-${uid()}.example.com`;
    const token = await tokenFor('dev@example.com');
    const reg = await call(nodes.PUT, 'PUT', { token, params: { name: node }, body: { policy_group: 'dev', policy_name: 'webapp' } });
    expect(reg.status).toBe(201);
    expect(await db().auditEvent.count({ where: { target: node, action: 'node.register' } })).toBe(1);
    const checkIn = await call(nodes.PUT, 'PUT', { token, params: { name: node }, body: { policy_group: 'dev', policy_name: 'webapp', revision_id: 'abc' } });
    expect(checkIn.status).toBe(200);
    expect(await db().auditEvent.count({ where: { target: node } })).toBe(1);
    const moved = await call(nodes.PUT, 'PUT', { token, params: { name: node }, body: { policy_group: 'qa', policy_name: 'webapp' } });
    expect(moved.status).toBe(200);
    const ev = await lastAudit({ target: node, action: 'node.move' });
    expect(ev).toMatchObject({ actorEmail: 'dev@example.com', groupName: 'qa', policyName: 'webapp' });
    expect(JSON.parse(ev!.before!)).toEqual({ policy_group: 'dev', policy_name: 'webapp' });
    expect(JSON.parse(ev!.after!)).toEqual({ policy_group: 'qa', policy_name: 'webapp' });
    expect((await db().node.findUniqueOrThrow({ where: { name: node }, include: { group: true } })).group?.name).toBe('qa');
  });
});
