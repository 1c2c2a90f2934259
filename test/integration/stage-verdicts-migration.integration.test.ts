/**
 * Issues 43 and 41: the `stage_verdicts` migration on a database from before it (SQLite, and PostgreSQL in the
 * PostgreSQL run). A bad mark the automatic rollback made (a global refusal) becomes what it was evidence of: a
 * verdict about the stage that rolled back, with that rollback's numbers; a person's bad mark stays. Rings that
 * were gated keep rolling back on a failure (that was implied by the gate before).
 */
import { describe, expect, it } from 'vitest';
import { createDb } from '@/lib/db/client';
import { applyMigrations } from '@/lib/db/migrate';
import { databaseProvider } from '@/lib/db/url';
import { databaseBeforeMigration } from '@/test/migration-db';

const provider = databaseProvider();

describe(`the stage_verdicts migration on a ${provider} database with automatic bad marks`, () => {
  const scratch = databaseBeforeMigration('stage_verdicts');

  it('turns the automatic rollback’s bad marks into verdicts of the stages that rolled back, keeps a person’s mark, and keeps gated rings rolling back', async () => {
    expect(scratch.mine).toHaveLength(1);
    await applyMigrations(scratch.url, scratch.dir);
    const old = createDb(scratch.url);
    const at = "'2026-11-20T12:00:00.000+00:00'";
    try {
      await old.$executeRawUnsafe(`INSERT INTO "Policy" ("id", "name", "createdAt") VALUES ('p1', 'webapp', ${at})`);
      await old.$executeRawUnsafe(
        `INSERT INTO "BadRevision" ("id", "policyId", "policyName", "revisionId", "revisionPk", "reason", "markedById", "markedByEmail", "createdAt") VALUES ` +
          `('b1', 'p1', 'webapp', 'rev-auto', 'pk-auto', 'Automatic rollback in qa: 2 of 3 run(s) failed', NULL, 'system (automatic rollback)', ${at}), ` +
          `('b2', 'p1', 'webapp', 'rev-person', 'pk-person', 'breaks TLS', 'u1', 'admin@example.com', ${at})`,
      );
      await old.$executeRawUnsafe(
        `INSERT INTO "RolloutOutcome" ("id", "key", "groupName", "policyName", "revisionId", "event", "evidence", "createdAt") VALUES ` +
          `('o1', 'h1:rollout.rolled_back', 'qa', 'webapp', 'rev-auto', 'rollout.rolled_back', '{"runs":3,"failed":2,"failed_nodes":["a","b"]}', ${at}), ` +
          `('o2', 'h1:rollout.failed', 'qa', 'webapp', 'rev-auto', 'rollout.failed', '{}', ${at})`,
      );
      await old.$executeRawUnsafe(
        `INSERT INTO "RingRollout" ("id", "groupId", "policyId", "groupName", "policyName", "fromRevisionPk", "fromRevisionId", "toRevisionPk", "toRevisionId", "steps", "status", "gateOnConvergence", "createdByEmail") VALUES ` +
          `('r1', 'g1', 'p1', 'qa', 'webapp', 'f', 'f', 't', 't', '[50,100]', 'active', true, 'admin@example.com'), ` +
          `('r2', 'g1', 'p1', 'qa', 'webapp', 'f', 'f', 't', 't', '[50,100]', 'rolled_back', false, 'admin@example.com')`,
      );
    } finally {
      await old.$disconnect();
    }

    scratch.addMine();
    expect(await applyMigrations(scratch.url, scratch.dir)).toEqual(scratch.mine);

    const after = createDb(scratch.url);
    try {
      expect(await after.badRevision.findMany({ select: { id: true } })).toEqual([{ id: 'b2' }]);
      expect(await after.stageVerdict.findMany({ select: { key: true, groupName: true, policyName: true, revisionId: true, source: true, nodes: true, failedNodes: true, summary: true, overriddenAt: true } })).toEqual([
        { key: 'rollback:h1:rollout.rolled_back', groupName: 'qa', policyName: 'webapp', revisionId: 'rev-auto', source: 'rollback', nodes: 3, failedNodes: 2, summary: 'Automatic rollback in qa: 2 of 3 run(s) failed', overriddenAt: null },
      ]);
      expect(await after.ringRollout.findMany({ select: { id: true, rollbackOnFailure: true }, orderBy: { id: 'asc' } })).toEqual([
        { id: 'r1', rollbackOnFailure: true },
        { id: 'r2', rollbackOnFailure: false },
      ]);
    } finally {
      await after.$disconnect();
    }
  });
});
