/** Server support for issue 16's promotion path: previews, starting a revision, board naming, one-write reorder. */
import { beforeAll, describe, expect, it } from 'vitest';
import { accessFor, seed, snapshot } from '@/test/helpers';
import { db } from '@/lib/db/client';
import type { Access } from '@/lib/auth/permissions';
import { loadBoard } from '@/lib/db/queries/board';
import { moveStage, putStage } from '@/lib/services/stages';
import { promoteCookbook, promotePolicy } from '@/lib/services/promotion';

let admin: Access;
let release: Access;
let dev: Access;
const active = async (stage: string, policy: string) =>
  (await db().groupPolicy.findFirst({ where: { group: { name: stage }, policy: { name: policy } }, select: { revision: { select: { revisionId: true } } } }))?.revision.revisionId ?? null;

beforeAll(async () => {
  await seed();
  [admin, release, dev] = await Promise.all(['admin', 'release', 'dev'].map((r) => accessFor(`${r}@example.com`)));
});

describe('release path (issue 16)', () => {
  it("a cookbook dry run returns the derived lock's diff: that cookbook only, and writes nothing", async () => {
    const before = snapshot();
    const r = await promoteCookbook(release, { policy: 'api-gateway', cookbook: 'nginx', from: 'staging', to: 'production', expectedRevisionId: await active('production', 'api-gateway'), dryRun: true });
    expect(r.noop).toBe(false);
    const diff = (r as { diff: { cookbooks: { name: string }[]; attributes: unknown[]; runList: unknown[] } }).diff;
    expect(diff.cookbooks.map((c) => c.name)).toEqual(['nginx']);
    expect(diff.attributes).toEqual([]);
    expect(diff.runList).toEqual([]);
    expect(snapshot()).toBe(before);
  });

  it('promotePolicy starts a stored revision with from=rev:<id>, still checking promote on the target and the expectation', async () => {
    const old = await db().policyRevision.findFirstOrThrow({ where: { policy: { name: 'jenkins-ci' } }, orderBy: { createdAt: 'asc' } });
    const current = await active('dev', 'jenkins-ci');
    expect(old.revisionId).not.toBe(current);
    const refused = await promotePolicy(release, { policy: 'jenkins-ci', from: `rev:${old.revisionId}`, to: 'dev', expectedRevisionId: current }).catch((e) => e);
    expect(refused.status).toBe(403);
    const stale = await promotePolicy(dev, { policy: 'jenkins-ci', from: `rev:${old.revisionId}`, to: 'dev', expectedRevisionId: 'stale' }).catch((e) => e);
    expect(stale.status).toBe(409);
    const missing = await promotePolicy(dev, { policy: 'jenkins-ci', from: 'rev:nope', to: 'dev', expectedRevisionId: current }).catch((e) => e);
    expect(missing.status).toBe(404);
    const ok = await promotePolicy(dev, { policy: 'jenkins-ci', from: `rev:${old.revisionId}`, to: 'dev', expectedRevisionId: current });
    expect(ok).toMatchObject({ changed: true, toRevisionId: old.revisionId });
    expect(await active('dev', 'jenkins-ci')).toBe(old.revisionId);
  });

  it('the board names the stage it compared with (skipping an empty one) and says behind', async () => {
    await putStage(admin, { name: 'canary', position: 3 });
    await putStage(admin, { name: 'production', position: 4 });
    const board = await loadBoard(admin);
    const cell = board.policies.find((p) => p.name === 'redis-cache')!.cells;
    expect(cell.canary).toBeNull();
    expect(cell.production).toMatchObject({ differsFromPrevious: true, comparedWith: 'staging', relation: 'behind' });
    expect(board.policies.find((p) => p.name === 'redis-cache')!.latestRevisionId).toBe(await active('staging', 'redis-cache'));
  });

  it('moving a stage is one audit event and keeps every other stage in order', async () => {
    const events = await db().auditEvent.count();
    const r = await moveStage(admin, { name: 'canary', direction: 'later' });
    expect(r.order.slice(-2)).toEqual(['production', 'canary']);
    expect(await db().auditEvent.count()).toBe(events + 1);
    const refused = await moveStage(release, { name: 'canary', direction: 'earlier' }).catch((e) => e);
    expect(refused.status).toBe(403);
  });
});
