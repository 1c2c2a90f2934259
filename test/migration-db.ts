/**
 * For a test of one migration on data from before it: a scratch project folder holding the project's migrations up
 * to (not including) the one whose name ends in `_<name>`, and an empty database of this run's provider (a SQLite
 * file in the folder, or a PostgreSQL database on the run's server), made before the file's tests and removed after
 * them. `addMine()` then puts that migration itself in the folder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, inject } from 'vitest';
import { migrationNames } from '@/lib/db/migrate';
import { layout } from '@/lib/db/schema-engine';
import { databaseProvider, isPostgresUrl } from '@/lib/db/url';
import { createDatabase, dropDatabase } from '@/test/pg-server';

export function databaseBeforeMigration(name: string) {
  const provider = databaseProvider();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `pc-${name}-`));
  const lay = layout(provider, dir);
  const from = layout(provider).migrationsDir;
  const all = migrationNames(provider);
  const mine = all.filter((n) => n.endsWith(`_${name}`));
  const scratch = { dir, mine, url: '', addMine: () => fs.cpSync(path.join(from, mine[0]), path.join(lay.migrationsDir, mine[0]), { recursive: true }) };
  let dropPg: (() => Promise<void>) | null = null;

  beforeAll(async () => {
    fs.mkdirSync(lay.migrationsDir, { recursive: true });
    fs.copyFileSync(layout(provider).schemaPath, lay.schemaPath);
    fs.copyFileSync(path.join(from, 'migration_lock.toml'), path.join(lay.migrationsDir, 'migration_lock.toml'));
    for (const n of all.filter((n) => n < mine[0])) fs.cpSync(path.join(from, n), path.join(lay.migrationsDir, n), { recursive: true });
    if (isPostgresUrl()) {
      const admin = inject('pgAdminUrl');
      const db = `${name.replace(/[^a-z0-9]/g, '')}_${randomUUID().replace(/-/g, '')}`;
      scratch.url = await createDatabase(admin, db);
      dropPg = () => dropDatabase(admin, db);
    } else {
      scratch.url = `file:${path.join(dir, 'old.db')}`;
    }
  });

  afterAll(async () => {
    await dropPg?.();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return scratch;
}
