/**
 * Issue 25's Nodes page service: the same search service and index as
 * GET /search/node (users see the nodes of stages they may view), a malformed
 * query answered with the parser's position, and saved searches per user
 * (audited, a taken name a 409, a bad query refused, another user's search
 * out of reach).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { db } from '@/lib/db/client';
import { accessFor, NOW, seed } from '@/test/helpers';
import { deleteSavedSearch, listSavedSearches, nodeRunStatus, saveSearch, searchNodesPage } from '@/lib/services/search';
import { rolloutHealth } from '@/lib/services/runs';
import { RUN_FILTERS } from '@/lib/types/nodes';
import { HOME_MEMBERSHIP } from '@/lib/services/organizations';

beforeAll(async () => {
  await seed();
});

describe('searchNodesPage', () => {
  it('answers a query with its total and rows, only from the stages the user may view', async () => {
    const admin = await accessFor('admin@example.com');
    const prod = await searchNodesPage(admin, 'policy_name:bastion AND policy_group:production');
    expect(prod.error).toBeNull();
    expect(prod.total).toBe(8);
    expect(prod.rows.every((r) => r.stage === 'production' && r.policy === 'bastion')).toBe(true);
    expect(prod.rows[0]).toMatchObject({ name: 'bastion-production-01.example.com', platform: 'ubuntu 22.04' });

    // A user who may view only dev: the same query finds nothing in production, and '' lists only dev nodes.
    const u = await db().user.create({ data: { email: 'devonly@example.com', name: 'Dev Only', chefName: 'devonly', passwordHash: 'x', orgMemberships: HOME_MEMBERSHIP } });
    const dev = await db().policyGroup.findUniqueOrThrow({ where: { name: 'dev' }, select: { id: true } });
    await db().groupPermission.create({ data: { groupId: dev.id, userId: u.id, level: 'view' } });
    const devOnly = await accessFor('devonly@example.com');
    expect((await searchNodesPage(devOnly, 'policy_name:bastion AND policy_group:production')).total).toBe(0);
    const all = await searchNodesPage(devOnly, '');
    expect(all.total).toBe(await db().node.count({ where: { group: { name: 'dev' } } }));
    expect(all.rows.every((r) => r.stage === 'dev')).toBe(true);
  });

  it("pages by 50, and a malformed query gives the parser's error with its position", async () => {
    const admin = await accessFor('admin@example.com');
    const total = await db().node.count();
    const p2 = await searchNodesPage(admin, '', 2);
    expect(p2).toMatchObject({ total, start: 50 });
    expect(p2.rows.length).toBe(Math.min(50, total - 50));
    const bad = await searchNodesPage(admin, 'policy_name:(web');
    expect(bad.rows).toEqual([]);
    expect(bad.error).toMatch(/position \d+/);
  });
});

describe('run status (issue 43)', () => {
  it("gives each node the standing the board counts it under, and ?run= lists exactly the nodes a board cell counts", async () => {
    const admin = await accessFor('admin@example.com');
    const health = await rolloutHealth(admin, NOW);
    const cell = (policy: string, stage: string) => `policy_name:${policy} AND policy_group:${stage}`;
    // webapp in qa is mid-rollout (one converged, one failed in nginx, one not yet run); base has a missing production node.
    for (const [stage, policy] of [['qa', 'webapp'], ['production', 'base'], ['dev', 'base']] as const) {
      const h = health[`${stage}/${policy}`];
      for (const run of RUN_FILTERS) {
        const listed = await searchNodesPage(admin, cell(policy, stage), 1, run, NOW);
        expect([stage, policy, run, listed.total]).toEqual([stage, policy, run, h[run]]);
        expect(listed.rows.every((r) => r.run.standing === run && r.stage === stage && r.policy === policy)).toBe(true);
      }
    }
    const failing = await searchNodesPage(admin, cell('webapp', 'qa'), 1, 'failed', NOW);
    expect(failing.rows.map((r) => r.name)).toEqual(['webapp-qa-02.example.com']);
    expect(failing.rows[0].run).toMatchObject({ standing: 'failed', lastRun: { status: 'failure', resource: 'template[/etc/nginx/nginx.conf]', cookbook: 'nginx' } });
    // Unfiltered rows carry it too, and a node's page reads the same.
    expect((await searchNodesPage(admin, 'name:webapp-qa-02.example.com', 1, null, NOW)).rows[0].run.standing).toBe('failed');
    expect((await nodeRunStatus(admin, 'webapp-qa-02.example.com', NOW)).standing).toBe('failed');
    // Every failing node of the organization, without a query; a malformed query with a filter is its error.
    expect((await searchNodesPage(admin, '', 1, 'failed', NOW)).total).toBe(Object.values(health).reduce((n, c) => n + c.failed, 0));
    expect((await searchNodesPage(admin, 'name:(x', 1, 'failed', NOW)).error).toMatch(/position \d+/);
  });

  it('never lists a node of a stage the reader may not view, filtered or not', async () => {
    const u = await db().user.create({ data: { email: 'devonly-runs@example.com', name: 'Dev Only', chefName: 'devonly-runs', passwordHash: 'x', orgMemberships: HOME_MEMBERSHIP } });
    const dev = await db().policyGroup.findUniqueOrThrow({ where: { name: 'dev' }, select: { id: true } });
    await db().groupPermission.create({ data: { groupId: dev.id, userId: u.id, level: 'view' } });
    const devOnly = await accessFor('devonly-runs@example.com');
    for (const run of RUN_FILTERS) {
      const r = await searchNodesPage(devOnly, '', 1, run, NOW);
      expect(r.rows.every((n) => n.stage === 'dev')).toBe(true);
    }
    expect((await searchNodesPage(devOnly, 'policy_name:webapp AND policy_group:qa', 1, 'failed', NOW)).total).toBe(0);
    expect(await nodeRunStatus(devOnly, 'webapp-qa-02.example.com', NOW)).toEqual({ standing: null, lastRun: null });
  });
});

describe('saved searches', () => {
  it('save (audited), list, refuse a taken name and a bad query, delete (audited), never another user’s', async () => {
    const release = await accessFor('release@example.com');
    const viewer = await accessFor('viewer@example.com');
    const s = await saveSearch(release, { name: 'prod web', query: 'policy_name:webapp AND policy_group:production' });
    expect((await listSavedSearches(release)).map((x) => x.name)).toEqual(['prod web']);
    expect(await listSavedSearches(viewer)).toEqual([]);
    await expect(saveSearch(release, { name: 'prod web', query: 'name:*' })).rejects.toMatchObject({ status: 409, errors: [{ path: '/name' }] });
    await expect(saveSearch(release, { name: 'broken', query: 'name:(x' })).rejects.toMatchObject({ status: 400, errors: [{ path: '/query' }] });
    await expect(saveSearch(release, { name: ' ', query: 'name:x' })).rejects.toMatchObject({ status: 400, errors: [{ path: '/name' }] });
    expect(await db().savedSearch.count({ where: { name: { in: ['broken', ' '] } } })).toBe(0);
    // The same name is free for another user.
    await saveSearch(viewer, { name: 'prod web', query: 'policy_group:production' });

    await expect(deleteSavedSearch(viewer, s.id)).rejects.toMatchObject({ status: 404 });
    await deleteSavedSearch(release, s.id);
    expect(await listSavedSearches(release)).toEqual([]);
    const events = await db().auditEvent.findMany({ where: { targetType: 'saved-search' }, select: { action: true, target: true, actorEmail: true } });
    expect(events).toHaveLength(3);
    expect(events).toEqual(expect.arrayContaining([
      { action: 'saved-search.create', target: 'prod web', actorEmail: 'release@example.com' },
      { action: 'saved-search.create', target: 'prod web', actorEmail: 'viewer@example.com' },
      { action: 'saved-search.delete', target: 'prod web', actorEmail: 'release@example.com' },
    ]));
  });
});
