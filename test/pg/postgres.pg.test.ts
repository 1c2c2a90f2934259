/**
 * PostgreSQL only (the integration-pg project): the migrations folder builds
 * exactly the schema, timestamps stay UTC under a non-UTC server time zone,
 * real deadlocks are retried, and the Chef read path runs as prepared
 * statements.
 */
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import pg from 'pg';
import { createDb, db, installDb } from '@/lib/db/client';
import { applyMigrations } from '@/lib/db/migrate';
import { diffToSchema } from '@/lib/db/migrate-dev';
import { layout } from '@/lib/db/schema-engine';
import { databaseUrl } from '@/lib/db/url';
import { chefKeysFor, policyDocument } from '@/lib/db/queries/chef-read-path';
import { loadAccess } from '@/lib/db/queries/access';
import { seed } from '@/test/helpers';
import { policyNames } from '@/lib/db/queries/policies';
import { createDatabase, dropDatabase, pgExec } from '@/test/pg-server';

describe('PostgreSQL', () => {
  it('applying prisma/postgres/migrations to an empty database gives prisma/postgres/schema.prisma exactly (no drift)', async () => {
    const admin = inject('pgAdminUrl');
    const name = `drift_${Date.now()}`;
    const url = await createDatabase(admin, name);
    try {
      expect((await applyMigrations(url)).length).toBeGreaterThan(0);
      expect(await diffToSchema(url, layout('postgresql'))).toBe('');
    } finally {
      await dropDatabase(admin, name);
    }
  }, 60_000);

  it('timestamps are UTC even when the server time zone is not', async () => {
    const dbName = new URL(databaseUrl()).pathname.slice(1);
    await pgExec(databaseUrl(), `ALTER DATABASE "${dbName}" SET timezone TO 'America/New_York'`);
    const client = createDb(databaseUrl());
    try {
      // A database-side default (CURRENT_TIMESTAMP), and a value the application writes.
      await client.$executeRaw`INSERT INTO "ChefName" ("name", "kind") VALUES ('tz-probe', 'user')`;
      const row = await client.chefName.findUniqueOrThrow({ where: { scope_name: { scope: '', name: 'tz-probe' } } });
      expect(Math.abs(row.createdAt.getTime() - Date.now())).toBeLessThan(60_000);
      const at = new Date('2026-06-01T12:00:00.000Z');
      await client.chefName.create({ data: { name: 'tz-app', kind: 'user', createdAt: at } });
      expect((await client.chefName.findUniqueOrThrow({ where: { scope_name: { scope: '', name: 'tz-app' } } })).createdAt.toISOString()).toBe(at.toISOString());
    } finally {
      await client.$disconnect();
      await pgExec(databaseUrl(), `ALTER DATABASE "${dbName}" RESET timezone`);
    }
  });

  it('a real deadlock between two transactions is retried: both finish', async () => {
    await db().loginThrottle.createMany({ data: [{ key: 'dl-a' }, { key: 'dl-b' }] });
    // Two transactions lock the same two rows in opposite orders; PostgreSQL aborts one (40P01), which then runs again.
    let attempts = 0;
    const barrier = (() => {
      let n = 0;
      let release!: () => void;
      const all = new Promise<void>((r) => (release = r));
      // The first two arrivals wait for each other (so both hold their first row); the retry passes at once.
      return () => {
        if (++n === 2) release();
        return n <= 2 ? all : Promise.resolve();
      };
    })();
    const move = (first: string, second: string) =>
      db().$transaction(async (tx) => {
        attempts++;
        await tx.loginThrottle.update({ where: { key: first }, data: { failures: { increment: 1 } } });
        await barrier();
        await tx.loginThrottle.update({ where: { key: second }, data: { failures: { increment: 1 } } });
      });
    await Promise.all([move('dl-a', 'dl-b'), move('dl-b', 'dl-a')]);
    expect(attempts).toBe(3);
    const rows = await db().loginThrottle.findMany({ where: { key: { in: ['dl-a', 'dl-b'] } } });
    expect(rows.map((r) => r.failures)).toEqual([2, 2]);
  });

  it('the Chef read path runs as named prepared statements on the pool and reads what Prisma reads', async () => {
    await seed();
    const main = db();
    // One connection, so the session that prepared the statements is the one asked about them.
    const single = createDb(databaseUrl(), { poolSize: 1 });
    installDb(single);
    try {
      const admin = await single.user.findFirstOrThrow({ where: { isAdmin: true }, select: { id: true, email: true, chefName: true } });
      expect(await loadAccess(admin.id)).toMatchObject({ userId: admin.id, email: admin.email, isAdmin: true });
      const dev = await single.user.findUniqueOrThrow({ where: { email: 'dev@example.com' }, select: { id: true } });
      const grants = await single.groupPermission.findMany({ where: { OR: [{ userId: dev.id }, { team: { members: { some: { userId: dev.id } } } }] }, select: { group: { select: { name: true } } } });
      expect([...(await loadAccess(dev.id))!.stageLevels.keys()].sort()).toEqual([...new Set(grants.map((g) => g.group.name))].sort());
      const stored = await single.groupPolicy.findFirstOrThrow({ select: { group: { select: { name: true } }, policy: { select: { name: true } }, revision: { select: { document: true } } } });
      expect((await policyDocument(stored.group.name, stored.policy.name))?.toString('utf8')).toBe(stored.revision.document);
      expect(await policyDocument(stored.group.name, 'no-such-policy')).toBeNull();
      // Timestamps come back as the instants stored (read as epoch milliseconds, whatever the zones).
      const at = new Date('2026-06-01T12:34:56.789Z');
      const key = await single.chefKey.create({ data: { userId: admin.id, name: 'read-path-probe', publicKey: 'x', lastUsedAt: at, expiresAt: at } });
      const keys = await chefKeysFor(admin.chefName!);
      expect(keys.find((k) => k.keyId === key.id)).toMatchObject({ keyName: 'read-path-probe', lastUsedAt: at, expiresAt: at, userId: admin.id, clientId: null, validator: false });
      expect(await chefKeysFor('no-such-actor')).toEqual([]);
      const prepared = await single.$queryRaw<{ name: string }[]>`SELECT name FROM pg_prepared_statements WHERE name LIKE 'chef-read-path:%' ORDER BY name`;
      expect(prepared.map((p) => p.name)).toEqual(['chef-read-path:access', 'chef-read-path:keys', 'chef-read-path:policy-pointer', 'chef-read-path:revision-document']);
    } finally {
      installDb(main);
      await single.$disconnect();
    }
  });

  it('the pool sessions run in UTC', async () => {
    const c = new pg.Client({ connectionString: databaseUrl(), options: '-c TimeZone=UTC' });
    await c.connect();
    try {
      expect((await c.query('SHOW TimeZone')).rows[0].TimeZone).toBe('UTC');
    } finally {
      await c.end();
    }
  });

  it('lists by name come out in the same order under a linguistic collation (sorted in the application)', async () => {
    const admin = inject('pgAdminUrl');
    const name = `coll_${Date.now()}`;
    await pgExec(admin, `CREATE DATABASE "${name}" TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'`);
    const url = admin.replace(/\/postgres$/, `/${name}`);
    const original = { url: databaseUrl(), client: db() };
    const client = createDb(url);
    try {
      await applyMigrations(url);
      const names = ['basement', 'Zeta', 'base_app', 'alpha', 'base-web'];
      for (const n of names) await client.policy.create({ data: { name: n } });
      const byDatabase = (await client.policy.findMany({ orderBy: { name: 'asc' }, select: { name: true } })).map((p) => p.name);
      const binary = [...names].sort();
      expect(byDatabase).not.toEqual(binary); // en-US: alpha, base_app, base-web, basement, Zeta
      process.env.DATABASE_URL = url;
      installDb(client, url);
      expect(await policyNames()).toEqual(binary); // as SQLite's BINARY collation: Zeta, alpha, base-web, base_app, basement
    } finally {
      process.env.DATABASE_URL = original.url;
      installDb(original.client, original.url);
      await client.$disconnect();
      await dropDatabase(admin, name);
    }
  }, 60_000);
});
