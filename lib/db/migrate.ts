/**
 * Prisma migrations without the native schema engine (see README, "Database"):
 * the WebAssembly build of the same engine runs over the better-sqlite3 driver
 * adapter. This module is the only place that knows about it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import { databaseFile, databaseUrl } from './url';

const require = createRequire(import.meta.url);
const ROOT = process.cwd();
export const MIGRATIONS_DIR = path.join(ROOT, 'prisma', 'migrations');
export const SCHEMA_PATH = path.join(ROOT, 'prisma', 'schema.prisma');
const LOCKFILE = 'migration_lock.toml';
const FILTERS = { externalTables: [] as string[], externalEnums: [] as string[] };

type Engine = {
  applyMigrations(input: unknown): Promise<{ appliedMigrationNames: string[] }>;
  diff(input: unknown): Promise<{ exitCode: number; stdout: string }>;
  free(): void;
};

type Connection = { dispose(): Promise<void> };

/** Runs `fn` with a schema engine on `url`, then closes every connection it opened (SQLite would stay locked otherwise). */
async function withEngine<T>(url: string, schemaPath: string, fn: (engine: Engine) => Promise<T>): Promise<T> {
  const raw = new PrismaBetterSqlite3({ url });
  const opened: Connection[] = [];
  const tracked = Object.assign(Object.create(Object.getPrototypeOf(raw)), raw, {
    connect: async () => {
      const c = await raw.connect();
      opened.push(c);
      return c;
    },
    connectToShadowDb: async () => {
      const c = await raw.connectToShadowDb();
      opened.push(c);
      return c;
    },
  });
  const engine = await loadEngine(tracked, schemaPath);
  try {
    return await fn(engine);
  } finally {
    engine.free();
    for (const c of opened) await c.dispose().catch(() => {});
  }
}

let wasmReady: Promise<any> | null = null;

/** Instantiates the WebAssembly module once per process. */
function loadWasm() {
  wasmReady ??= (async () => {
    const pkgDir = path.dirname(require.resolve('@prisma/schema-engine-wasm'));
    const bg = await import('@prisma/schema-engine-wasm/schema_engine_bg');
    const wasm = fs.readFileSync(path.join(pkgDir, 'schema_engine_bg.wasm'));
    const { instance } = await WebAssembly.instantiate(wasm, { './schema_engine_bg.js': bg });
    const exports = instance.exports as Record<string, unknown> & { __wbindgen_start?: () => void };
    bg.__wbg_set_wasm(exports);
    exports.__wbindgen_start?.();
    return bg;
  })();
  return wasmReady;
}

async function loadEngine(adapter: PrismaBetterSqlite3, schemaPath: string): Promise<Engine> {
  const bg = await loadWasm();
  const factory = bindMigrationAwareSqlAdapterFactory(adapter);
  const schema = fs.readFileSync(schemaPath, 'utf8');
  const log = () => {};
  return bg.SchemaEngine.new({ datamodels: [[schemaPath, schema]] }, log, factory) as Promise<Engine>;
}

/** Where the migrations and the schema are: the project's own unless a test points elsewhere. */
export interface MigrationPaths {
  migrationsDir?: string;
  schemaPath?: string;
}

function migrationDirectories(migrationsDir: string) {
  if (!fs.existsSync(migrationsDir)) return [];
  return fs
    .readdirSync(migrationsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const dir = path.join(migrationsDir, name);
      const sql = fs.readFileSync(path.join(dir, 'migration.sql'), 'utf8');
      return { path: dir, migrationFile: { path: 'migration.sql', content: { tag: 'ok', value: sql } } };
    });
}

/** Applies every pending migration to the database at `url`; returns the names applied. */
export async function applyMigrations(url = databaseUrl(), paths: MigrationPaths = {}): Promise<string[]> {
  const migrationsDir = paths.migrationsDir ?? MIGRATIONS_DIR;
  fs.mkdirSync(path.dirname(databaseFile(url)), { recursive: true });
  const lockPath = path.join(migrationsDir, LOCKFILE);
  const result = await withEngine(url, paths.schemaPath ?? SCHEMA_PATH, (engine) => engine.applyMigrations({
    migrationsList: {
      baseDir: migrationsDir,
      lockfile: { path: LOCKFILE, content: fs.existsSync(lockPath) ? fs.readFileSync(lockPath, 'utf8') : null },
      shadowDbInitScript: '',
      migrationDirectories: migrationDirectories(migrationsDir),
    },
    filters: FILTERS,
  }));
  return result.appliedMigrationNames;
}

/**
 * Writes the SQL that takes the database built by the existing migrations to
 * the current schema, as `prisma/migrations/<timestamp>_<name>/migration.sql`.
 * Returns the new folder, or null when the schema has not changed.
 */
export async function createMigration(name: string, paths: MigrationPaths = {}): Promise<string | null> {
  const migrationsDir = paths.migrationsDir ?? MIGRATIONS_DIR;
  const schemaPath = paths.schemaPath ?? SCHEMA_PATH;
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`migration name must match [a-z0-9_]+, got '${name}'`);
  fs.mkdirSync(path.join(ROOT, 'data'), { recursive: true });
  const scratch = path.join(fs.mkdtempSync(path.join(ROOT, 'data', '.scratch-')), 'scratch.db');
  try {
    const url = `file:${scratch}`;
    const hasMigrations = migrationDirectories(migrationsDir).length > 0;
    if (hasMigrations) await applyMigrations(url, { migrationsDir, schemaPath });
    const schema = fs.readFileSync(schemaPath, 'utf8');
    const result = await withEngine(url, schemaPath, (engine) => engine.diff({
      from: hasMigrations
        ? { tag: 'schemaDatasource', files: [{ path: schemaPath, content: schema }], configDir: ROOT }
        : { tag: 'empty' },
      to: { tag: 'schemaDatamodel', files: [{ path: schemaPath, content: schema }] },
      script: true,
      exitCode: null,
      filters: FILTERS,
    }));
    const sql = result.stdout.trim();
    if (!sql || /^-- This is an empty migration/.test(sql)) return null;
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
    const dir = path.join(migrationsDir, `${stamp}_${name}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'migration.sql'), sql + '\n');
    fs.writeFileSync(
      path.join(migrationsDir, LOCKFILE),
      '# Please do not edit this file manually\n# It should be added in your version-control system (e.g., Git)\nprovider = "sqlite"\n',
    );
    return dir;
  } finally {
    fs.rmSync(path.dirname(scratch), { recursive: true, force: true });
  }
}
