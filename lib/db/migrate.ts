/**
 * Applying migrations, on SQLite (prisma/migrations) or PostgreSQL
 * (prisma/postgres/migrations), through the WebAssembly schema engine
 * (lib/db/schema-engine.ts). Creating migrations is in migrate-dev.ts.
 *
 * Migrations are recorded under their folder name (`20261122203312_init`),
 * relative to the migrations folder, so the same database migrates from any
 * checkout path. Databases migrated before that recorded the absolute path
 * (`/…/prisma/migrations/20261122203312_init`); applyMigrations rewrites those
 * names once, before it applies anything.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { writeAheadLog } from './sqlite-wal';
import pg from 'pg';
import { layout, layoutFor, withEngine, type Layout } from './schema-engine';
import { databaseFile, databaseProvider, databaseUrl, type DatabaseProvider } from './url';

export const MIGRATIONS_DIR = layout('sqlite').migrationsDir;
export const SCHEMA_PATH = layout('sqlite').schemaPath;
export const LOCKFILE = 'migration_lock.toml';
export const FILTERS = { externalTables: [] as string[], externalEnums: [] as string[] };

/** The migration folder names of a provider, in the order they apply. */
export function migrationNames(provider: DatabaseProvider = databaseProvider(), root = process.cwd()): string[] {
  const dir = layout(provider, root).migrationsDir;
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort();
}

/** The migrations list the engine takes: each directory by its name relative to the migrations folder. */
export function migrationsList(lay: Layout) {
  const lockPath = path.join(lay.migrationsDir, LOCKFILE);
  return {
    baseDir: lay.migrationsDir,
    lockfile: { path: LOCKFILE, content: fs.existsSync(lockPath) ? fs.readFileSync(lockPath, 'utf8') : null },
    shadowDbInitScript: '',
    migrationDirectories: migrationNames(lay.provider, lay.root).map((name) => ({
      path: name,
      migrationFile: { path: 'migration.sql', content: { tag: 'ok', value: fs.readFileSync(path.join(lay.migrationsDir, name, 'migration.sql'), 'utf8') } },
    })),
  };
}

const baseName = (name: string) => name.split(/[\\/]/).filter(Boolean).pop() ?? name;

/**
 * Rewrites migration names recorded as paths (`/…/migrations/<name>`) to
 * `<name>`; returns how many rows changed. A database without a migrations
 * table is left alone. Idempotent, so two instances may run it at once.
 */
export async function relativizeMigrationNames(url = databaseUrl()): Promise<number> {
  if (databaseProvider(url) === 'postgresql') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const exists = await client.query(`SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS "exists"`);
      if (!exists.rows[0]?.exists) return 0;
      const rows = await client.query<{ id: string; migration_name: string }>(`SELECT "id", "migration_name" FROM "_prisma_migrations" WHERE "migration_name" LIKE '%/%' OR "migration_name" LIKE '%\\%'`);
      for (const r of rows.rows) await client.query(`UPDATE "_prisma_migrations" SET "migration_name" = $1 WHERE "id" = $2`, [baseName(r.migration_name), r.id]);
      return rows.rows.length;
    } finally {
      await client.end();
    }
  }
  const file = databaseFile(url);
  if (!fs.existsSync(file)) return 0;
  const conn = new Database(file);
  try {
    conn.pragma('busy_timeout = 10000');
    const table = conn.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'`).get();
    if (!table) return 0;
    const rows = conn.prepare(`SELECT id, migration_name FROM _prisma_migrations WHERE migration_name LIKE '%/%' OR migration_name LIKE '%\\%'`).all() as { id: string; migration_name: string }[];
    const update = conn.prepare(`UPDATE _prisma_migrations SET migration_name = ? WHERE id = ?`);
    conn.transaction(() => {
      for (const r of rows) update.run(baseName(r.migration_name), r.id);
    })();
    return rows.length;
  } finally {
    conn.close();
  }
}

/** Applies every pending migration to the database at `url` (SQLite file or PostgreSQL); returns the names applied. */
export async function applyMigrations(url = databaseUrl(), root = process.cwd()): Promise<string[]> {
  const lay = layoutFor(url, root);
  if (lay.provider === 'sqlite') fs.mkdirSync(path.dirname(databaseFile(url)), { recursive: true });
  await relativizeMigrationNames(url);
  // The engine takes an advisory lock on PostgreSQL, so two instances starting at once apply each migration once.
  const result = await withEngine(url, lay, (engine) => engine.applyMigrations({ migrationsList: migrationsList(lay), filters: FILTERS }));
  if (lay.provider === 'sqlite') {
    // The file is in write-ahead-log mode from the start (lib/db/sqlite-wal.ts).
    const conn = new Database(databaseFile(url));
    try {
      conn.pragma('busy_timeout = 10000');
      writeAheadLog(conn);
    } finally {
      conn.close();
    }
  }
  return result.appliedMigrationNames;
}

/** Names of the migrations recorded as applied (finished, not rolled back) in the database at `url`. */
export async function appliedMigrationNames(url = databaseUrl()): Promise<string[]> {
  const sql = `SELECT "migration_name" AS name FROM "_prisma_migrations" WHERE "finished_at" IS NOT NULL AND "rolled_back_at" IS NULL ORDER BY "migration_name"`;
  if (databaseProvider(url) === 'postgresql') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const exists = await client.query(`SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS "exists"`);
      if (!exists.rows[0]?.exists) return [];
      return (await client.query<{ name: string }>(sql)).rows.map((r) => r.name);
    } finally {
      await client.end();
    }
  }
  const file = databaseFile(url);
  if (!fs.existsSync(file)) return [];
  const conn = new Database(file, { readonly: true });
  try {
    if (!conn.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'`).get()) return [];
    return (conn.prepare(sql).all() as { name: string }[]).map((r) => r.name);
  } finally {
    conn.close();
  }
}
