/**
 * The Chef read path remembers answers while the database is unchanged (lib/db/queries/chef-read-path.ts):
 * a change made through the console (another connection than the read path's) is seen by the very next
 * request — a key deleted, a grant removed, a pointer moved — exactly as without the memo.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '@/lib/db/client';
import { startChefHarness, type ChefHarness } from '@/test/chef-harness';

let chef: ChefHarness;
const read = (as: 'viewer' | 'dev' = 'viewer') => chef.request('GET', 'policy_groups/production/policies/webapp', { as });

beforeAll(async () => {
  chef = await startChefHarness();
  await db().stageProtection.deleteMany();
});
afterAll(async () => {
  await chef.close();
});

describe('the read path memo', () => {
  it('serves the new document on the request after a pointer moves', async () => {
    const first = await read();
    expect(first.status).toBe(200);
    expect((await read()).text).toBe(first.text);
    const stagingPk = (await db().groupPolicy.findFirstOrThrow({ where: { group: { name: 'staging' }, policy: { name: 'webapp' } }, select: { revisionPk: true, revision: { select: { revisionId: true } } } }));
    const production = await db().groupPolicy.findFirstOrThrow({ where: { group: { name: 'production' }, policy: { name: 'webapp' } }, select: { id: true, revisionPk: true } });
    expect(production.revisionPk).not.toBe(stagingPk.revisionPk);
    await db().groupPolicy.update({ where: { id: production.id }, data: { revisionPk: stagingPk.revisionPk } });
    const after = await read();
    expect(after.status).toBe(200);
    expect(after.json.revision_id).toBe(stagingPk.revision.revisionId);
    await db().groupPolicy.update({ where: { id: production.id }, data: { revisionPk: production.revisionPk } });
    expect((await read()).text).toBe(first.text);
  });

  it('refuses the request after the grant that allowed it is removed', async () => {
    expect((await read('dev')).status).toBe(200);
    const dev = await db().user.findUniqueOrThrow({ where: { email: 'dev@example.com' }, select: { id: true } });
    const removed = await db().groupPermission.findMany({ where: { group: { name: 'production' }, OR: [{ userId: dev.id }, { team: { members: { some: { userId: dev.id } } } }] } });
    expect(removed.length).toBeGreaterThan(0);
    await db().groupPermission.deleteMany({ where: { id: { in: removed.map((g) => g.id) } } });
    try {
      expect((await read('dev')).status).toBe(404);
    } finally {
      await db().groupPermission.createMany({ data: removed });
    }
    expect((await read('dev')).status).toBe(200);
  });

  it('refuses the request after the signing key is deleted', async () => {
    expect((await read()).status).toBe(200);
    const viewer = await db().user.findUniqueOrThrow({ where: { email: 'viewer@example.com' }, select: { id: true } });
    await db().chefKey.deleteMany({ where: { userId: viewer.id } });
    expect((await read()).status).toBe(401);
  });
});
