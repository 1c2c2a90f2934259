import fs from 'node:fs';
import path from 'node:path';
import { db } from '../client';
import { processBox } from '@/lib/process-state';
import { databaseUrl, isPostgresUrl } from '../url';

export interface Readiness {
  ready: boolean;
  database: 'up' | 'down';
  migrations: {
    /** Migration folders this code ships. */
    expected: number;
    /** Of those, applied and finished. */
    applied: number;
    /** Shipped but not applied (the instance must not serve yet). */
    pending: string[];
    /** Started and neither finished nor rolled back (needs an operator). */
    failed: string[];
  } | null;
}

/** The migrations folder of the database `url` names (PostgreSQL has its own, next to the SQLite one). */
export function migrationsDirFor(url = databaseUrl(), root = process.cwd()): string {
  return isPostgresUrl(url) ? path.join(root, 'prisma', 'postgres', 'migrations') : path.join(root, 'prisma', 'migrations');
}

/** The migration folder names last read (process state, lib/process-state.ts). */
const shipped = processBox<{ dir: string; names: string[] }>('readiness.shipped-migrations');

/** The migration folder names in `dir` (read once per process: the code does not change under a running server). */
function shippedMigrations(dir: string): string[] {
  if (shipped.current?.dir === dir) return shipped.current.names;
  let names: string[] = [];
  try {
    names = fs
      .readdirSync(/* turbopackIgnore: true */ dir, { withFileTypes: true })
      .filter((d) => d.isDirectory() && fs.existsSync(path.join(/* turbopackIgnore: true */ dir, d.name, 'migration.sql')))
      .map((d) => d.name)
      .sort();
  } catch {
    names = [];
  }
  shipped.current = { dir, names };
  return names;
}

/** Names may be recorded as paths by older versions (`/…/migrations/<name>`): compare folder names. */
const baseName = (name: string) => name.split(/[\\/]/).filter(Boolean).pop() ?? name;

/**
 * Whether this instance may take traffic: the database answers and every
 * migration the code ships is applied, none failed. Works on both databases
 * (`_prisma_migrations` has the same columns on each).
 */
export async function readiness(): Promise<Readiness> {
  let rows: { migration_name: string; finished_at: unknown; rolled_back_at: unknown }[];
  try {
    await db().$queryRaw`SELECT 1`;
  } catch {
    return { ready: false, database: 'down', migrations: null };
  }
  const names = shippedMigrations(migrationsDirFor());
  try {
    rows = await db().$queryRaw`SELECT "migration_name", "finished_at", "rolled_back_at" FROM "_prisma_migrations"`;
  } catch {
    // Reachable but never migrated: no migrations table yet.
    rows = [];
  }
  const applied = new Set<string>();
  const failed = new Set<string>();
  for (const r of rows) {
    const n = baseName(r.migration_name);
    if (r.rolled_back_at !== null && r.rolled_back_at !== undefined) continue;
    if (r.finished_at === null || r.finished_at === undefined) failed.add(n);
    else applied.add(n);
  }
  for (const n of applied) failed.delete(n);
  const pending = names.filter((n) => !applied.has(n) && !failed.has(n));
  const failedList = [...failed].sort();
  return {
    ready: pending.length === 0 && failedList.length === 0,
    database: 'up',
    migrations: { expected: names.length, applied: names.filter((n) => applied.has(n)).length, pending, failed: failedList },
  };
}
