import { beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes, accessFor, call, seed, snapshot, tokenFor } from '@/test/helpers';
import fs from 'node:fs';
import path from 'node:path';
import { db } from '@/lib/db/client';
import { computeRevisionId, parseLossless, type PolicyLock } from '@/lib/domain';
import { setGroupPolicy, setStageGrant, pointerHistory } from '@/lib/services/stages';
import type { Access } from '@/lib/auth/permissions';
import { isAppError } from '@/lib/errors';
import { promotePolicy, promoteCookbook, promotePolicies, rollback } from '@/lib/services/promotion';
const promoteRoute = apiRoutes('/api/v1/policy_groups/[group]/promote');
const cookbookRoute = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]/promote-cookbook');
const rollbackRoute = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]/rollback');
const permissionsRoute = apiRoutes('/api/v1/policy_groups/[group]/permissions');
const historyRoute = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]/history');
const auditRoute = apiRoutes('/api/v1/audit');
import { HOME_MEMBERSHIP } from '@/lib/services/organizations';

const ROLES = ['admin', 'release', 'dev', 'viewer', 'nogrants'] as const;
type Role = (typeof ROLES)[number];
const access: Partial<Record<Role, Access>> = {};

async function active(stage: string, policy: string): Promise<string | null> {
  const row = await db().groupPolicy.findFirst({ where: { group: { name: stage }, policy: { name: policy } }, select: { revision: { select: { revisionId: true } } } });
  return row?.revision.revisionId ?? null;
}

beforeAll(async () => {
  await seed();
  // These tests cover the promotion mechanics; the demo's protected stages (issue 15) are covered in guarded-stages.integration.test.ts.
  await db().stageProtection.deleteMany();
  await db().user.create({ data: { email: 'nogrants@example.com', name: 'Nobody', passwordHash: 'x', orgMemberships: HOME_MEMBERSHIP } });
  for (const r of ROLES) access[r] = await accessFor(`${r}@example.com`);
});

/** The revision row a stage runs for a policy (the pointer), or null. */
async function pointer(stage: string, policy: string): Promise<string | null> {
  const row = await db().groupPolicy.findFirst({ where: { group: { name: stage }, policy: { name: policy } }, select: { revisionPk: true } });
  return row?.revisionPk ?? null;
}

/** Test set-up (not a use case): points `stage` at revision row `revisionPk` for `policy`. */
async function pointAt(stage: string, policy: string, revisionPk: string): Promise<void> {
  const [group, pol] = [await db().policyGroup.findUniqueOrThrow({ where: { name: stage } }), await db().policy.findUniqueOrThrow({ where: { name: policy } })];
  await db().groupPolicy.update({ where: { groupId_policyId: { groupId: group.id, policyId: pol.id } }, data: { revisionPk } });
}

/** The cookbook → "version|identifier" a stage's revision of a policy pins. */
async function cookbooks(stage: string, policy: string): Promise<Record<string, string>> {
  const row = await db().groupPolicy.findFirstOrThrow({ where: { group: { name: stage }, policy: { name: policy } }, select: { revision: { select: { cookbookDigest: true } } } });
  return JSON.parse(row.revision.cookbookDigest || '{}');
}

/** The seed's pointers, read once: each allowed row starts from them, so every allowed role makes the move itself. */
const seedPointers = new Map<string, string>();
const SEEDED = [
  ['production', 'webapp'],
  ['staging', 'webapp'],
  ['qa', 'jenkins-ci'],
  ['production', 'logstash-shipper'],
  ['production', 'haproxy-lb'],
] as const;
beforeAll(async () => {
  for (const [stage, policy] of SEEDED) seedPointers.set(`${stage}/${policy}`, (await pointer(stage, policy))!);
});
const restore = (stage: string, policy: string) => pointAt(stage, policy, seedPointers.get(`${stage}/${policy}`)!);

/**
 * One use case per row; `allowed` lists the roles the permission table lets through. For an allowed role,
 * `prepare` puts the state back where the move is still to be made, and `moved` asserts the move happened.
 */
const CASES: { name: string; allowed: Role[]; run: (a: Access) => Promise<unknown>; prepare: () => Promise<unknown>; moved: () => Promise<void> }[] = [
  {
    name: 'promotePolicy staging → production',
    allowed: ['admin', 'release'],
    run: async (a) => promotePolicy(a, { policy: 'webapp', from: 'staging', to: 'production', expectedRevisionId: await active('production', 'webapp') }),
    prepare: () => restore('production', 'webapp'),
    moved: async () => expect(await pointer('production', 'webapp')).toBe(await pointer('staging', 'webapp')),
  },
  {
    name: 'promotePolicy dev → qa',
    allowed: ['admin', 'dev'],
    run: async (a) => promotePolicy(a, { policy: 'jenkins-ci', from: 'dev', to: 'qa', expectedRevisionId: await active('qa', 'jenkins-ci') }),
    prepare: () => restore('qa', 'jenkins-ci'),
    moved: async () => expect(await pointer('qa', 'jenkins-ci')).toBe(await pointer('dev', 'jenkins-ci')),
  },
  {
    name: 'promoteCookbook ntp staging → production',
    allowed: ['admin', 'release'],
    run: async (a) => promoteCookbook(a, { policy: 'logstash-shipper', cookbook: 'ntp', from: 'qa', to: 'production', expectedRevisionId: await active('production', 'logstash-shipper') }),
    prepare: () => restore('production', 'logstash-shipper'),
    moved: async () => {
      expect(await pointer('production', 'logstash-shipper')).not.toBe(seedPointers.get('production/logstash-shipper'));
      expect((await cookbooks('production', 'logstash-shipper')).ntp).toBe((await cookbooks('qa', 'logstash-shipper')).ntp);
    },
  },
  {
    name: 'promotePolicies staging → production',
    allowed: ['admin', 'release'],
    run: async (a) => promotePolicies(a, { from: 'staging', to: 'production', policies: ['haproxy-lb'], expected: { 'haproxy-lb': await active('production', 'haproxy-lb') } }),
    prepare: () => restore('production', 'haproxy-lb'),
    moved: async () => expect(await pointer('production', 'haproxy-lb')).toBe(await pointer('staging', 'haproxy-lb')),
  },
  {
    name: 'rollback production',
    allowed: ['admin', 'release'],
    run: async (a) => {
      const history = await pointerHistory('production', 'webapp');
      const target = history.find((h) => h.kind === 'seed')!.toRevisionId!;
      return rollback(a, { policy: 'webapp', group: 'production', toRevisionId: target, expectedRevisionId: await active('production', 'webapp'), reason: 'matrix' });
    },
    // Production runs staging's webapp, so there is something to roll back to the seed's revision.
    prepare: () => pointAt('production', 'webapp', seedPointers.get('staging/webapp')!),
    moved: async () => expect(await pointer('production', 'webapp')).toBe(seedPointers.get('production/webapp')),
  },
  {
    name: 'setStageGrant on production',
    allowed: ['admin'],
    run: (a) => setStageGrant(a, { stage: 'production', subject: { type: 'team', name: 'web' }, level: 'view' }),
    prepare: async () => db().groupPermission.deleteMany({ where: { group: { name: 'production' }, team: { name: 'web' } } }),
    moved: async () => expect((await db().groupPermission.findMany({ where: { group: { name: 'production' }, team: { name: 'web' } }, select: { level: true } })).map((g) => g.level)).toEqual(['view']),
  },
];

describe('authorization matrix', () => {
  it('each allowed row starts with its move still to make', async () => {
    expect(seedPointers.get('production/webapp')).not.toBe(seedPointers.get('staging/webapp'));
    expect(seedPointers.get('qa/jenkins-ci')).not.toBe(await pointer('dev', 'jenkins-ci'));
    expect((await cookbooks('production', 'logstash-shipper')).ntp).not.toBe((await cookbooks('qa', 'logstash-shipper')).ntp);
    expect(seedPointers.get('production/haproxy-lb')).not.toBe(await pointer('staging', 'haproxy-lb'));
  });

  for (const c of CASES) {
    for (const role of ROLES) {
      const allowed = c.allowed.includes(role);
      it(`${c.name} × ${role}: ${allowed ? 'allowed, and the move happens' : 'refused'}`, async () => {
        if (allowed) await c.prepare();
        const before = snapshot();
        let error: unknown = null;
        try {
          await c.run(access[role]!);
        } catch (e) {
          error = e;
        }
        if (allowed) {
          expect(error).toBeNull();
          await c.moved();
        } else {
          expect(isAppError(error) && error.status).toBe(403);
          expect(snapshot()).toBe(before);
        }
      });
    }
  }

  it('every route refuses a call without a token (401) and changes nothing', async () => {
    const before = snapshot();
    const routes = [
      call(promoteRoute.POST, 'POST', { params: { group: 'production' }, body: { from: 'staging', policies: ['webapp'], expected: {} } }),
      call(cookbookRoute.POST, 'POST', { params: { group: 'production', name: 'webapp' }, body: { from: 'staging', cookbook: 'nginx', expected_revision_id: null } }),
      call(rollbackRoute.POST, 'POST', { params: { group: 'production', name: 'webapp' }, body: {} }),
      call(permissionsRoute.PUT, 'PUT', { params: { group: 'production' }, body: { subject: { type: 'team', name: 'web' }, level: 'promote' } }),
      call(historyRoute.GET, 'GET', { params: { group: 'production', name: 'webapp' } }),
      call(auditRoute.GET, 'GET', {}),
    ];
    for (const res of await Promise.all(routes)) expect(res.status).toBe(401);
    expect(snapshot()).toBe(before);
  });

  it('a user with no grants cannot read a stage history either (the stage answers as a missing one: 404)', async () => {
    const t = await tokenFor('nogrants@example.com');
    const res = await call(historyRoute.GET, 'GET', { token: t, params: { group: 'production', name: 'webapp' } });
    expect(res.status).toBe(404);
  });
});

describe('race: 50 concurrent promotions of the same stage and policy', () => {
  it('exactly one succeeds; 49 get 409; one audit event and one history entry', async () => {
    const expected = await active('production', 'mysql-primary');
    const auditBefore = await db().auditEvent.count({ where: { action: 'pointer.promote', policyName: 'mysql-primary', groupName: 'production' } });
    const historyBefore = await db().pointerHistory.count({ where: { policyName: 'mysql-primary', groupName: 'production' } });
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, () => promotePolicy(access.release!, { policy: 'mysql-primary', from: 'staging', to: 'production', expectedRevisionId: expected, reason: 'race' })),
    );
    const ok = results.filter((r) => r.status === 'fulfilled' && (r.value as { changed: boolean }).changed);
    const conflicts = results.filter((r) => r.status === 'rejected' && isAppError(r.reason) && r.reason.status === 409);
    expect(ok).toHaveLength(1);
    expect(conflicts).toHaveLength(49);
    expect(await db().auditEvent.count({ where: { action: 'pointer.promote', policyName: 'mysql-primary', groupName: 'production' } })).toBe(auditBefore + 1);
    expect(await db().pointerHistory.count({ where: { policyName: 'mysql-primary', groupName: 'production' } })).toBe(historyBefore + 1);
  });
});

describe('promotion behaviour', () => {
  it('a stale expectation is a 409 naming the change, and nothing moves', async () => {
    const before = snapshot();
    const err = await promotePolicy(access.release!, { policy: 'redis-cache', from: 'staging', to: 'production', expectedRevisionId: 'not-what-is-there' }).catch((e) => e);
    expect(err.status).toBe(409);
    expect(err.message).toMatch(/production' changed since you looked/);
    expect(snapshot()).toBe(before);
  });

  it('promoteCookbook builds a derived revision with its origin; a dependency failure writes nothing', async () => {
    const before = snapshot();
    const err = await promoteCookbook(access.release!, { policy: 'webapp', cookbook: 'nginx', from: 'dev', to: 'production', expectedRevisionId: await active('production', 'webapp') }).catch((e) => e);
    // The matrix's rollback left production on the seed revision: webapp 1.4.0 needs nginx ~> 11.5; dev runs nginx 12.1.0.
    expect(err.status).toBe(422);
    expect(err.errors[0].message).toBe('webapp (1.4.0) needs nginx ~> 11.5, but the lock would have nginx 12.1.0');
    expect(snapshot()).toBe(before);
    const ok = await promoteCookbook(access.release!, { policy: 'mysql-replica', cookbook: 'apt', from: 'qa', to: 'production', expectedRevisionId: await active('production', 'mysql-replica'), reason: 'apt fix' });
    expect(ok).toMatchObject({ cookbook: 'apt', noop: false, before: { version: '7.4.0' }, after: { version: '7.5.0' } });
    const rev = await db().policyRevision.findFirstOrThrow({ where: { revisionId: ok.revisionId } });
    expect(rev.origin).toBe('cookbook-promotion');
    expect(JSON.parse(rev.originDetail!)).toMatchObject({ cookbook: 'apt', fromStage: 'qa', baseRevisionId: ok.baseRevisionId });
    expect(rev.computedRevisionId).toBe(rev.revisionId);
    expect(await active('production', 'mysql-replica')).toBe(ok.revisionId);
    const again = await promoteCookbook(access.release!, { policy: 'mysql-replica', cookbook: 'apt', from: 'qa', to: 'production', expectedRevisionId: ok.revisionId });
    expect(again.noop).toBe(true);
  });

  it('promotePolicies is all or nothing', async () => {
    const before = snapshot();
    const err = await promotePolicies(access.release!, {
      from: 'staging',
      to: 'production',
      policies: ['monitoring', 'redis-cache'],
      expected: { monitoring: await active('production', 'monitoring'), 'redis-cache': 'stale' },
    }).catch((e) => e);
    expect(err.status).toBe(409);
    expect(snapshot()).toBe(before);
    const res = await promotePolicies(access.release!, {
      from: 'staging',
      to: 'production',
      policies: 'all',
      expected: Object.fromEntries(await Promise.all((await db().policy.findMany({ select: { name: true } })).map(async ({ name: p }) => [p, await active('production', p)]))),
    });
    expect(res.promoted.map((p) => p.policy)).toContain('monitoring');
    expect(await active('production', 'monitoring')).toBe(await active('staging', 'monitoring'));
  });

  it('rollback returns to a revision the stage held, and refuses one it never held', async () => {
    const history = await pointerHistory('production', 'monitoring');
    const old = history.find((h) => h.kind === 'seed')!.toRevisionId!;
    const res = await rollback(access.release!, { policy: 'monitoring', group: 'production', toRevisionId: old, expectedRevisionId: await active('production', 'monitoring'), reason: 'bad collectd' });
    expect(res.toRevisionId).toBe(old);
    expect((await pointerHistory('production', 'monitoring'))[0]).toMatchObject({ kind: 'rollback', toRevisionId: old, reason: 'bad collectd', actor: 'release@example.com' });
    const never = await db().policyRevision.findFirstOrThrow({ where: { policy: { name: 'webapp' } } });
    const err = await rollback(access.release!, { policy: 'monitoring', group: 'production', toRevisionId: never.revisionId, expectedRevisionId: old, reason: 'x' }).catch((e) => e);
    expect(err.status).toBe(400);
  });

  it('the audit API filters and exports CSV', async () => {
    const t = await tokenFor('admin@example.com');
    const res = await call(auditRoute.GET, 'GET', { token: t, query: 'action=pointer.rollback&stage=production' });
    expect(res.json.events.length).toBeGreaterThan(0);
    for (const e of res.json.events) expect(e.action).toBe('pointer.rollback');
    const csv = await call(auditRoute.GET, 'GET', { token: t, query: 'policy=monitoring&format=csv' });
    expect(csv.text.split('\r\n')[0]).toBe('at,actor,action,target_type,target,stage,policy,before,after,reason,request_id');
    const bad = await call(auditRoute.GET, 'GET', { token: t, query: 'since=yesterday' });
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0].path).toBe('/since');
  });

  it('promoteCookbook keeps number lexemes: the derived revision is what chef-cli hashes for the same content (issue 13)', async () => {
    // chef-cli 5.6.24's lock with 1.0e+15, -0.0, 31-digit integers and named run lists "10" before "9".
    const entry = JSON.parse(fs.readFileSync(path.resolve('test/fixtures/chef-cli-corpus/numbers-through-merge.json'), 'utf8')) as { chef: Record<string, { lock: string }> };
    const chefText = entry.chef['.'].lock;
    const chef = parseLossless(chefText) as PolicyLock;
    const newId = 'e'.repeat(40);
    // The same lock with other content for cookbook app, under its own (chef-cli) revision id.
    const changed = chefText.split(chef.cookbook_locks.app.identifier).join(newId);
    const changedId = computeRevisionId(changed);
    const sourceText = changed.replace(chef.revision_id, changedId);
    await setGroupPolicy(access.admin!, { group: 'qa', policy: chef.name, text: chefText });
    await setGroupPolicy(access.admin!, { group: 'dev', policy: chef.name, text: sourceText });
    const r = await promoteCookbook(access.admin!, { policy: chef.name, cookbook: 'app', from: 'dev', to: 'qa', expectedRevisionId: chef.revision_id });
    // Taking app from dev gives dev's content: chef-cli's id for it.
    expect(r.revisionId).toBe(changedId);
    const rows = await db().policyRevision.findMany({ where: { policy: { name: chef.name } }, select: { revisionId: true, document: true, computedRevisionId: true, origin: true } });
    expect(rows.map((x) => x.revisionId).sort()).toEqual([chef.revision_id, changedId].sort());
    const upload = rows.find((x) => x.revisionId === changedId)!;
    expect(upload.computedRevisionId).toBe(changedId);
  });

  it('promoteCookbook writes a new derived lock losslessly (1.0e+15, -0.0, 31-digit integers kept)', async () => {
    const entry = JSON.parse(fs.readFileSync(path.resolve('test/fixtures/chef-cli-corpus/numbers-through-merge.json'), 'utf8')) as { chef: Record<string, { lock: string }> };
    const chefText = entry.chef['.'].lock;
    const target = parseLossless(chefText) as PolicyLock;
    // This test's own policy: chef-cli's lock renamed (the name is hashed, so its id is recomputed).
    const withId = (text: string) => text.replace(/"revision_id": "[0-9a-f]{64}"/, `"revision_id": "${computeRevisionId(text)}"`);
    const qaText = withId(chefText.split('"numparent"').join('"numparent2"'));
    const appChanged = (text: string) => text.split(target.cookbook_locks.app.identifier).join('d'.repeat(40));
    // The source differs in app *and* in an attribute; only app is taken.
    const stagingText = withId(appChanged(qaText).replace('"f": 1.0', '"f": 2.0'));
    await setGroupPolicy(access.admin!, { group: 'qa', policy: 'numparent2', text: qaText });
    await setGroupPolicy(access.admin!, { group: 'dev', policy: 'numparent2', text: stagingText });
    const expected = computeRevisionId(appChanged(qaText));
    const r = await promoteCookbook(access.admin!, { policy: 'numparent2', cookbook: 'app', from: 'dev', to: 'qa', expectedRevisionId: (parseLossless(qaText) as PolicyLock).revision_id });
    expect(r.revisionId).toBe(expected);
    const row = await db().policyRevision.findFirstOrThrow({ where: { revisionId: expected, policy: { name: 'numparent2' } }, select: { document: true, computedRevisionId: true, origin: true } });
    expect(row.origin).toBe('cookbook-promotion');
    expect(row.computedRevisionId).toBe(expected);
    expect(computeRevisionId(row.document)).toBe(expected);
    for (const lexeme of ['"big": 1.0e+15', '"negzero": -0.0', '"huge": 1000000000000000000000000000000', '"beyond": 9007199254740993', '"f": 1.0', '"o": 1.5e+300']) expect(row.document).toContain(lexeme);
  });
});

