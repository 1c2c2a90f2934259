/**
 * One validated write funnel (issue 10): every path that stores a revision
 * passes the lock validator on the bytes it stores, and every path that
 * creates a policy asks the one owner-team rule. Each test makes its own
 * users, teams and policies (names carry a per-test suffix).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes, accessFor, call, seed, snapshot, tokenFor } from '@/test/helpers';
import { startChefHarness, type ChefHarness } from '@/test/chef-harness';
import { db } from '@/lib/db/client';
import { hashPassword } from '@/lib/auth/password';
import { promoteCookbook } from '@/lib/services/promotion';
import { checkRevision, storeRevision } from '@/lib/services/funnel';
const compose = apiRoutes('/api/v1/policies/[name]/compose');
const revisions = apiRoutes('/api/v1/policies/[name]/revisions');
const groupPolicy = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]');
import { HOME_MEMBERSHIP } from '@/lib/services/organizations';

let chef: ChefHarness;
let dev: string;

beforeAll(async () => {
  await seed();
  chef = await startChefHarness();
  dev = await tokenFor('dev@example.com');
});

afterAll(async () => {
  await chef?.close();
});

const uid = () => randomUUID().slice(0, 8);

function lock(name: string, rev: string, extra: Record<string, unknown> = {}) {
  return { revision_id: rev, name, run_list: ['recipe[app::default]'], cookbook_locks: { app: { version: '1.0.0', identifier: 'app100' } }, ...extra };
}

/** A user in two fresh teams, with promote on the dev stage, and an API token. */
async function twoTeamUser() {
  const s = uid();
  const [a, b] = [`red-${s}`, `blue-${s}`];
  const email = `two-${s}@example.com`;
  const dev = await db().policyGroup.findUniqueOrThrow({ where: { name: 'dev' }, select: { id: true } });
  const user = await db().user.create({ data: { email, name: 'Two Teams', passwordHash: await hashPassword('x-password-123'), chefName: `two-${s}`, orgMemberships: HOME_MEMBERSHIP } });
  for (const t of [a, b]) await db().team.create({ data: { name: t, members: { create: { userId: user.id } } } });
  await db().groupPermission.create({ data: { groupId: dev.id, userId: user.id, level: 'promote' } });
  return { email, teams: [a, b], token: await tokenFor(email), suffix: s };
}

async function ownerOf(policy: string) {
  const p = await db().policy.findUnique({ where: { name: policy }, select: { ownerTeam: { select: { name: true } } } });
  return p ? (p.ownerTeam?.name ?? null) : undefined;
}

describe('every stored revision passes the lock validator', () => {
  it('compose refuses to store (or preview) a lock with version "banana": 422 with pointers, nothing stored', async () => {
    const policy = `funnel-compose-${uid()}`;
    const body = { parent: { run_list: ['role[web]'], cookbook_locks: { web: { version: 'banana', identifier: 'web1' } } }, includes: [], save: true };
    const before = snapshot({ except: ['ApiToken'] });
    const res = await call(compose.POST, 'POST', { token: dev, params: { name: policy }, body });
    expect(res.status).toBe(422);
    // role[web] is normalised as chef-cli does (recipe[web::default]); the version is not a version.
    expect(res.json.errors).toEqual([expect.objectContaining({ path: '/cookbook_locks/web/version', message: expect.stringContaining("invalid version 'banana'") })]);
    expect(snapshot({ except: ['ApiToken'] })).toBe(before);
    const preview = await call(compose.POST, 'POST', { token: dev, params: { name: policy }, body: { ...body, save: false } });
    expect(preview.status).toBe(422);
    expect(await ownerOf(policy)).toBeUndefined();
  });

  it('upload refuses an invalid lock: 400 listing every violation, nothing stored', async () => {
    const policy = `funnel-upload-${uid()}`;
    const before = snapshot({ except: ['ApiToken'] });
    const res = await call(revisions.POST, 'POST', { token: dev, params: { name: policy }, body: lock(policy, 'r1', { run_list: ['role[web]'], cookbook_locks: { app: { version: 'banana', identifier: 'a' } } }) });
    expect(res.status).toBe(400);
    expect(res.json.errors.map((e: { path: string }) => e.path).sort()).toEqual(['/cookbook_locks/app/version', '/run_list/0']);
    expect(snapshot({ except: ['ApiToken'] })).toBe(before);
  });

  it('PUT on a stage refuses an invalid lock: 400, nothing stored', async () => {
    const policy = `funnel-put-${uid()}`;
    const before = snapshot({ except: ['ApiToken'] });
    const res = await call(groupPolicy.PUT, 'PUT', { token: dev, params: { group: 'dev', name: policy }, body: lock(policy, 'r1', { cookbook_locks: { app: { version: 'banana', identifier: 'a' } } }) });
    expect(res.status).toBe(400);
    expect(res.json.errors).toEqual([expect.objectContaining({ path: '/cookbook_locks/app/version' })]);
    expect(snapshot({ except: ['ApiToken'] })).toBe(before);
  });

  it('Chef PUT refuses what Chef accepts but the lock rules do not (version "banana"): 400, nothing stored', async () => {
    const policy = `funnel-chef-${uid()}`;
    const before = snapshot({ except: ['ApiToken', 'ChefKey', 'ChefName', 'User', 'AuditEvent'] });
    const res = await chef.request('PUT', `policy_groups/dev/policies/${policy}`, { as: 'admin', body: lock(policy, 'r1', { cookbook_locks: { app: { version: 'banana', identifier: 'a' } } }) });
    expect(res.status).toBe(400);
    expect(await ownerOf(policy)).toBeUndefined();
    expect(snapshot({ except: ['ApiToken', 'ChefKey', 'ChefName', 'User', 'AuditEvent'] })).toBe(before);
  });

  it('cookbook promotion refuses to derive a lock from a stored invalid revision (written before the funnel): 422, nothing stored', async () => {
    const policy = `funnel-promote-${uid()}`;
    const admin = await accessFor('admin@example.com');
    const p = await db().policy.create({ data: { name: policy } });
    const good = JSON.stringify(lock(policy, 'good1'), null, 2);
    // A legacy row, as compose could store it before: its cookbook version is not a version.
    const bad = JSON.stringify(lock(policy, 'legacy1', { cookbook_locks: { app: { version: 'banana', identifier: 'appbanana' } } }), null, 2);
    const rows = [];
    for (const [rev, doc] of [['good1', good], ['legacy1', bad]]) {
      rows.push(await db().policyRevision.create({ data: { policyId: p.id, revisionId: rev, document: doc, contentHash: rev, computedRevisionId: rev } }));
    }
    const [qa, devStage] = await Promise.all(['qa', 'dev'].map((n) => db().policyGroup.findUniqueOrThrow({ where: { name: n } })));
    await db().groupPolicy.create({ data: { groupId: qa.id, policyId: p.id, revisionPk: rows[0].id } });
    await db().groupPolicy.create({ data: { groupId: devStage.id, policyId: p.id, revisionPk: rows[1].id } });
    const before = snapshot();
    const attempt = promoteCookbook(admin, { policy, cookbook: 'app', from: 'dev', to: 'qa', expectedRevisionId: 'good1' });
    await expect(attempt).rejects.toMatchObject({ status: 422 });
    const err = await attempt.catch((e) => e);
    expect(err.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: '/cookbook_locks/app/version' })]));
    expect(snapshot()).toBe(before);
  });

  it('storeRevision stores only what checkRevision approved: a forged document is refused', async () => {
    const policy = `funnel-forged-${uid()}`;
    const p = await db().policy.create({ data: { name: policy }, select: { id: true, name: true } });
    const forged = { text: '{"name":"x"}', lock: { name: policy, revision_id: 'r', run_list: ['role[web]'], cookbook_locks: {} }, policyName: policy };
    await expect(db().$transaction((tx) => storeRevision(tx, null, p, forged as never, 'seed'))).rejects.toThrow(/not checked/);
    const other = checkRevision(JSON.stringify(lock('someone-else', 'r1')), 'someone-else');
    await expect(db().$transaction((tx) => storeRevision(tx, null, p, other, 'seed'))).rejects.toThrow(/cannot be stored under/);
    expect(await db().policyRevision.count({ where: { policyId: p.id } })).toBe(0);
  });
});

describe('content identity across the serializer change', () => {
  it('a revision whose stored hash came from the old key order is still the same content on re-upload (200), and other content is still a 409', async () => {
    const policy = `hash-${uid()}`;
    const doc = lock(policy, 'r1', { default_attributes: { b: 1, 10: 2, 9: 3, '\u{1F600}': 4, '\uFF01': 5 } });
    expect((await call(revisions.POST, 'POST', { token: dev, params: { name: policy }, body: doc })).status).toBe(201);
    // As the previous serializer hashed it (UTF-16 and integer-key order): a different hash for the same content.
    await db().policyRevision.updateMany({ where: { policy: { name: policy } }, data: { contentHash: 'hash-from-the-old-serializer' } });
    expect((await call(revisions.POST, 'POST', { token: dev, params: { name: policy }, body: doc })).status).toBe(200);
    const other = await call(revisions.POST, 'POST', { token: dev, params: { name: policy }, body: { ...doc, default_attributes: { b: 2 } } });
    expect(other.status).toBe(409);
  });
});

describe('one owner-team rule for a new policy (a user in two teams)', () => {
  it('upload: 422 naming owner_team and the choices; owner_team picks the team; a team not theirs is refused', async () => {
    const u = await twoTeamUser();
    const policy = `owner-upload-${u.suffix}`;
    const body = lock(policy, 'r1');
    const refused = await call(revisions.POST, 'POST', { token: u.token, params: { name: policy }, body });
    expect(refused.status).toBe(422);
    expect(refused.json.errors[0].path).toBe('/owner_team');
    for (const t of u.teams) expect(refused.json.errors[0].message).toContain(t);
    expect(await ownerOf(policy)).toBeUndefined();
    const notMine = await call(revisions.POST, 'POST', { token: u.token, params: { name: policy }, body, query: 'owner_team=web' });
    expect(notMine.status).toBe(422);
    expect(notMine.json.errors[0].path).toBe('/owner_team');
    const ok = await call(revisions.POST, 'POST', { token: u.token, params: { name: policy }, body, query: `owner_team=${u.teams[1]}` });
    expect(ok.status).toBe(201);
    expect(await ownerOf(policy)).toBe(u.teams[1]);
  });

  it('PUT on a stage: 422 instead of an unowned policy; ?owner_team= picks the team', async () => {
    const u = await twoTeamUser();
    const policy = `owner-put-${u.suffix}`;
    const before = snapshot({ except: ['ApiToken'] });
    const refused = await call(groupPolicy.PUT, 'PUT', { token: u.token, params: { group: 'dev', name: policy }, body: lock(policy, 'r1') });
    expect(refused.status).toBe(422);
    expect(refused.json.errors[0]).toMatchObject({ path: '/owner_team' });
    expect(snapshot({ except: ['ApiToken'] })).toBe(before);
    const ok = await call(groupPolicy.PUT, 'PUT', { token: u.token, params: { group: 'dev', name: policy }, body: lock(policy, 'r1'), query: `owner_team=${u.teams[0]}` });
    expect(ok.status).toBe(201);
    expect(await ownerOf(policy)).toBe(u.teams[0]);
  });

  it('Chef PUT: 422 instead of an unowned policy; ?owner_team= picks the team', async () => {
    const u = await twoTeamUser();
    const policy = `owner-chef-${u.suffix}`;
    const refused = await chef.request('PUT', `policy_groups/dev/policies/${policy}`, { as: `bearer:${u.email}`, body: lock(policy, 'r1') });
    expect(refused.status).toBe(422);
    expect(await ownerOf(policy)).toBeUndefined();
    const ok = await chef.request('PUT', `policy_groups/dev/policies/${policy}?owner_team=${u.teams[1]}`, { as: `bearer:${u.email}`, body: lock(policy, 'r1') });
    expect(ok.status).toBe(201);
    expect(await ownerOf(policy)).toBe(u.teams[1]);
  });

  it('compose save: 422 instead of an unowned policy; owner_team picks the team', async () => {
    const u = await twoTeamUser();
    const policy = `owner-compose-${u.suffix}`;
    const body = { parent: { run_list: ['app'], cookbook_locks: { app: { version: '1.0.0', identifier: 'app100' } } }, includes: [], save: true };
    const refused = await call(compose.POST, 'POST', { token: u.token, params: { name: policy }, body });
    expect(refused.status).toBe(422);
    expect(refused.json.errors[0].path).toBe('/owner_team');
    expect(await ownerOf(policy)).toBeUndefined();
    const ok = await call(compose.POST, 'POST', { token: u.token, params: { name: policy }, body: { ...body, owner_team: u.teams[0] } });
    expect(ok.status).toBe(201);
    expect(await ownerOf(policy)).toBe(u.teams[0]);
    // Its creator can save the next revision: the policy is theirs.
    const again = await call(compose.POST, 'POST', { token: u.token, params: { name: policy }, body: { ...body, parent: { ...body.parent, default_attributes: { a: 1 } } } });
    expect(again.status).toBe(201);
  });

  it('one team: that team; an administrator in no team: administrator-owned (null)', async () => {
    const policy = `owner-one-${uid()}`;
    expect((await call(revisions.POST, 'POST', { token: dev, params: { name: policy }, body: lock(policy, 'r1') })).status).toBe(201);
    expect(await ownerOf(policy)).toBe('web');
    const s = uid();
    await db().user.create({ data: { email: `noteam-admin-${s}@example.com`, name: 'Admin', passwordHash: 'x', isAdmin: true, orgMemberships: HOME_MEMBERSHIP } });
    const adminPolicy = `owner-admin-${s}`;
    const res = await call(revisions.POST, 'POST', { token: await tokenFor(`noteam-admin-${s}@example.com`), params: { name: adminPolicy }, body: lock(adminPolicy, 'r1') });
    expect(res.status).toBe(201);
    expect(await ownerOf(adminPolicy)).toBeNull();
  });
});

describe('include cycles are found in one place', () => {
  it('one self-include is reported exactly once', async () => {
    const policy = `cycle-${uid()}`;
    const self = lock(policy, 'selfrev');
    const res = await call(compose.POST, 'POST', { token: dev, params: { name: policy }, body: { parent: { run_list: [] }, includes: [{ name: 'me', source: { type: 'upload', lock: self } }] } });
    expect(res.status).toBe(409);
    const cycles = res.json.conflicts.filter((c: { kind: string }) => c.kind === 'include_cycle');
    expect(cycles).toHaveLength(1);
    expect(cycles[0].message).toBe(`Include cycle: ${policy} → me → ${policy}`);
  });
});
