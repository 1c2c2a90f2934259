/** Issue 17, item 5: pages load only what the reader may view. */
import { beforeAll, describe, expect, it } from 'vitest';
import { accessFor, seed } from '@/test/helpers';
import { db } from '@/lib/db/client';
import { composeOptions } from '@/lib/services/compose';
import { comparePickerOptions } from '@/lib/db/queries/compare';
import { permissionsMatrix } from '@/lib/services/stages';
import { tokensFor, createApiToken } from '@/lib/services/users';
import { HOME_MEMBERSHIP } from '@/lib/services/organizations';

beforeAll(async () => {
  await seed();
  // Views dev only; manages nothing.
  const u = await db().user.create({ data: { email: 'devonly@example.com', name: 'Dev only', passwordHash: 'x', orgMemberships: HOME_MEMBERSHIP } });
  const dev = await db().policyGroup.findUniqueOrThrow({ where: { name: 'dev' } });
  await db().groupPermission.create({ data: { groupId: dev.id, userId: u.id, level: 'view' } });
  // Manages qa only.
  const m = await db().user.create({ data: { email: 'qamanager@example.com', name: 'QA manager', passwordHash: 'x', orgMemberships: HOME_MEMBERSHIP } });
  const qa = await db().policyGroup.findUniqueOrThrow({ where: { name: 'qa' } });
  await db().groupPermission.create({ data: { groupId: qa.id, userId: m.id, level: 'manage' } });
});

describe('item 5: stages the reader cannot view stay out of pages', () => {
  it('compose sends active revisions of viewable stages only', async () => {
    const o = await composeOptions(await accessFor('devonly@example.com'));
    const stagesSeen = new Set(Object.values(o.active).flatMap((byStage) => Object.keys(byStage)));
    expect([...stagesSeen]).toEqual(['dev']);
    expect(o.stages.map((s) => s.name)).toEqual(['dev']);
  });

  it('the compare picker lists viewable stages only', async () => {
    const o = await comparePickerOptions(await accessFor('devonly@example.com'), 'webapp');
    expect(o.stages).toEqual(['dev']);
    const admin = await comparePickerOptions(await accessFor('admin@example.com'), 'webapp');
    expect(admin.stages.length).toBeGreaterThan(1);
  });

  it('the permissions matrix is for admins and for managers of the stages shown', async () => {
    const none = await permissionsMatrix(await accessFor('devonly@example.com'));
    expect(none).toEqual({ stages: [], subjects: [], levels: {} });
    const viewer = await permissionsMatrix(await accessFor('viewer@example.com'));
    expect(viewer.stages).toEqual([]);
    const mgr = await permissionsMatrix(await accessFor('qamanager@example.com'));
    expect(mgr.stages.map((s) => s.name)).toEqual(['qa']);
    expect(Object.keys(mgr.levels).every((k) => k.endsWith('|qa'))).toBe(true);
    const admin = await permissionsMatrix(await accessFor('admin@example.com'));
    expect(admin.stages.length).toBeGreaterThanOrEqual(4);
  });

  it('API tokens: an administrator lists everyone’s and may make one for another user; anyone else, their own only', async () => {
    await createApiToken(null, { userEmail: 'viewer@example.com', name: 'pages-viewer' });
    await createApiToken(null, { userEmail: 'qamanager@example.com', name: 'pages-qa' });
    const admin = await tokensFor(await accessFor('admin@example.com'));
    expect(admin.forEveryUser).toBe(true);
    expect(admin.tokens.map((t) => t.owner)).toEqual(expect.arrayContaining(['viewer@example.com', 'qamanager@example.com']));
    // Managing a stage gives no right over other people's tokens.
    const mgr = await tokensFor(await accessFor('qamanager@example.com'));
    expect(mgr.forEveryUser).toBe(false);
    expect(mgr.tokens.map((t) => [t.owner, t.name])).toEqual([['qamanager@example.com', 'pages-qa']]);
  });
});
