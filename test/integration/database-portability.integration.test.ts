/**
 * Issue 14: what must hold the same on SQLite and PostgreSQL (this file runs
 * in both integration runs): migration names, seeding once, retried write
 * conflicts, case-insensitive audit filters.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createDb, db, providerOf } from '@/lib/db/client';
import { applyMigrations, appliedMigrationNames, migrationNames } from '@/lib/db/migrate';
import { databaseProvider, databaseUrl } from '@/lib/db/url';
import { seedDemo, DEMO_USERS } from '@/lib/seed/seed-demo';
import { apiRoutes, call, NOW, tokenFor } from '@/test/helpers';
const auditRoute = apiRoutes('/api/v1/audit');
import * as healthRoute from '@/app/api/health/route';
import { resetWriteStateCache } from '@/lib/db/queries/health';

describe(`on ${databaseProvider()}`, () => {
  it('migrations are recorded by folder name, and names recorded as absolute paths are rewritten once', async () => {
    const expected = migrationNames(databaseProvider());
    expect(expected.length).toBeGreaterThan(0);
    expect(await appliedMigrationNames()).toEqual(expected);
    // What a database migrated before the fix looks like: the engine was given absolute paths.
    const affected = await db().$executeRawUnsafe(`UPDATE "_prisma_migrations" SET "migration_name" = '/old/checkout/prisma/migrations/' || "migration_name"`);
    expect(affected).toBe(expected.length);
    expect((await appliedMigrationNames()).every((n) => n.startsWith('/old/checkout/'))).toBe(true);
    // From this checkout (another path), nothing is applied again and the names are relative.
    expect(await applyMigrations(databaseUrl())).toEqual([]);
    expect(await appliedMigrationNames()).toEqual(expected);
    expect(await applyMigrations(databaseUrl())).toEqual([]);
  });

  it('two instances seeding one empty database at once: seeded once', async () => {
    const a = createDb(databaseUrl());
    const b = createDb(databaseUrl());
    try {
      const results = await Promise.all([seedDemo(a, NOW), seedDemo(b, NOW)]);
      expect(results.map((r) => r.seeded).sort()).toEqual([false, true]);
      expect(await db().user.count()).toBe(DEMO_USERS.length);
      expect(await db().auditEvent.count({ where: { action: 'seed.demo' } })).toBe(1);
    } finally {
      await a.$disconnect();
      await b.$disconnect();
    }
  });

  it('an interactive transaction the database aborted for a write conflict (P2034) runs again, a bounded number of times', async () => {
    let attempts = 0;
    const value = await db().$transaction(async (tx) => {
      attempts++;
      await tx.loginThrottle.upsert({ where: { key: 'conflict-probe' }, create: { key: 'conflict-probe', failures: 1 }, update: { failures: { increment: 1 } } });
      if (attempts === 1) throw Object.assign(new Error('Transaction failed due to a write conflict or a deadlock'), { code: 'P2034' });
      return 'done';
    });
    expect(value).toBe('done');
    expect(attempts).toBe(2);
    // The first attempt's write was rolled back.
    expect((await db().loginThrottle.findUniqueOrThrow({ where: { key: 'conflict-probe' } })).failures).toBe(1);

    let always = 0;
    await expect(
      db().$transaction(async () => {
        always++;
        throw Object.assign(new Error('deadlock detected'), { code: 'P2034' });
      }),
    ).rejects.toMatchObject({ code: 'P2034' });
    expect(always).toBe(3);
    expect(providerOf(db())).toBe(databaseProvider());
  });

  it('the health check reads and writes (its probes are portable SQL)', async () => {
    resetWriteStateCache();
    const res = await healthRoute.GET();
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok', database: 'up', writes: 'writable' });
  });

  describe('audit filters', () => {
    let admin: string;
    beforeAll(async () => {
      admin = await tokenFor('admin@example.com');
    });

    it('actor and action match regardless of case', async () => {
      const lower = await call(auditRoute.GET, 'GET', { token: admin, query: 'actor=system' });
      expect(lower.status).toBe(200);
      expect(lower.json.events.length).toBeGreaterThan(0);
      const upper = await call(auditRoute.GET, 'GET', { token: admin, query: 'actor=YSTE' });
      expect(upper.json.events.map((e: { id: string }) => e.id)).toEqual(lower.json.events.map((e: { id: string }) => e.id));
      const action = await call(auditRoute.GET, 'GET', { token: admin, query: 'action=SEED.' });
      expect(action.json.events.map((e: { action: string }) => e.action)).toEqual(['seed.demo']);
    });
  });
});
