/**
 * Prisma's schema engine without the native binary (see README, "Database"):
 * the WebAssembly build of the same engine, over a driver adapter
 * (better-sqlite3 for SQLite, pg for PostgreSQL).
 *
 * The WASM module is instantiated once per process and kept as process state
 * (lib/process-state.ts):
 * instantiating it twice in one process panics ("RuntimeError: unreachable"),
 * and a module can be loaded twice (test workers, bundles). Calls are
 * serialized for the same reason.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { databaseProvider, type DatabaseProvider } from './url';
import { processState } from '../process-state';

const require = createRequire(import.meta.url);

export type Engine = {
  applyMigrations(input: unknown): Promise<{ appliedMigrationNames: string[] }>;
  diff(input: unknown): Promise<{ exitCode: number; stdout: string }>;
  free(): void;
};

type Connection = { dispose(): Promise<void> };

/** Where each provider keeps its schema and migrations, relative to the project root. */
export interface Layout {
  provider: DatabaseProvider;
  root: string;
  schemaPath: string;
  migrationsDir: string;
}

export function layout(provider: DatabaseProvider, root = process.cwd()): Layout {
  return provider === 'postgresql'
    ? { provider, root, schemaPath: path.join(root, 'prisma', 'postgres', 'schema.prisma'), migrationsDir: path.join(root, 'prisma', 'postgres', 'migrations') }
    : { provider, root, schemaPath: path.join(root, 'prisma', 'schema.prisma'), migrationsDir: path.join(root, 'prisma', 'migrations') };
}

export function layoutFor(url: string, root = process.cwd()): Layout {
  return layout(databaseProvider(url), root);
}

function engineState() {
  return processState<{ wasm: Promise<any>; queue: Promise<unknown> }>('schema-engine.wasm', () => ({
    wasm: (async () => {
      const pkgDir = path.dirname(require.resolve('@prisma/schema-engine-wasm'));
      const bg = await import('@prisma/schema-engine-wasm/schema_engine_bg');
      const wasm = fs.readFileSync(path.join(pkgDir, 'schema_engine_bg.wasm'));
      const { instance } = await WebAssembly.instantiate(wasm, { './schema_engine_bg.js': bg });
      const exports = instance.exports as Record<string, unknown> & { __wbindgen_start?: () => void };
      bg.__wbg_set_wasm(exports);
      exports.__wbindgen_start?.();
      return bg;
    })(),
    queue: Promise.resolve(),
  }));
}

/**
 * A pg pool whose results report PostgreSQL's internal `"char"` type (OID 18,
 * used by the catalog columns the engine reads when it describes a live
 * database) as text: the pg adapter refuses OID 18 otherwise.
 */
function charAsTextPool(connectionString: string): pg.Pool {
  const pool = new pg.Pool({ connectionString, max: 4, options: '-c TimeZone=UTC' });
  const fix = (r: unknown) => {
    const fields = (r as { fields?: { dataTypeID: number }[] } | undefined)?.fields;
    if (Array.isArray(fields)) for (const f of fields) if (f.dataTypeID === 18) f.dataTypeID = 25;
    return r;
  };
  const patch = (target: { query: (...a: unknown[]) => unknown; __charAsText?: boolean }) => {
    if (target.__charAsText) return;
    target.__charAsText = true;
    const query = target.query.bind(target);
    target.query = (...a: unknown[]) => {
      const r = query(...a) as unknown;
      return r && typeof (r as Promise<unknown>).then === 'function' ? (r as Promise<unknown>).then(fix) : r;
    };
  };
  patch(pool as unknown as Parameters<typeof patch>[0]);
  // pool.query() itself calls connect(callback): keep both forms.
  const connect = pool.connect.bind(pool) as (cb?: (err: Error | undefined, c: pg.PoolClient, done: unknown) => void) => Promise<pg.PoolClient> | void;
  (pool as unknown as { connect: typeof connect }).connect = (cb) => {
    if (cb) {
      return connect((err, c, done) => {
        if (c) patch(c as unknown as Parameters<typeof patch>[0]);
        cb(err, c, done);
      });
    }
    return (connect() as Promise<pg.PoolClient>).then((c) => {
      patch(c as unknown as Parameters<typeof patch>[0]);
      return c;
    });
  };
  return pool;
}

type SqlExecutor = { executeRaw(query: { sql: string }): Promise<number> };

/**
 * The engine opens SQLite with `PRAGMA main.locking_mode=EXCLUSIVE`. The
 * console's databases are in write-ahead-log mode (lib/db/sqlite-wal.ts),
 * where an exclusive-mode connection needs the file to itself: with the
 * console (or any reader) connected it waited out its timeout and failed.
 * Without it the engine takes SQLite's ordinary locks, as every other writer
 * does: each migration's writes hold the write lock while they run.
 */
function sharedLocking(c: SqlExecutor): void {
  const executeRaw = c.executeRaw.bind(c);
  c.executeRaw = (query) => (/^\s*PRAGMA\s+(main\.)?locking_mode\s*=\s*EXCLUSIVE\s*;?\s*$/i.test(query.sql) ? Promise.resolve(0) : executeRaw(query));
}

/**
 * Runs `fn` with a schema engine connected to `url` (for `layout`'s schema),
 * one call at a time per process; then closes every connection it opened
 * (SQLite would stay locked otherwise).
 */
export async function withEngine<T>(url: string, lay: Layout, fn: (engine: Engine) => Promise<T>): Promise<T> {
  const state = engineState();
  const run = async () => {
    const bg = await state.wasm;
    const opened: Connection[] = [];
    let pool: pg.Pool | null = null;
    let raw: { connect(): Promise<Connection>; connectToShadowDb(): Promise<Connection> };
    if (lay.provider === 'postgresql') {
      pool = charAsTextPool(url);
      raw = new PrismaPg(pool) as unknown as typeof raw;
    } else {
      raw = new PrismaBetterSqlite3({ url }) as unknown as typeof raw;
    }
    const tracked = Object.assign(Object.create(Object.getPrototypeOf(raw)), raw, {
      connect: async () => {
        const c = await raw.connect();
        opened.push(c);
        if (lay.provider === 'sqlite') sharedLocking(c as unknown as SqlExecutor);
        return c;
      },
      connectToShadowDb: async () => {
        const c = await raw.connectToShadowDb();
        opened.push(c);
        return c;
      },
    });
    const factory = bindMigrationAwareSqlAdapterFactory(tracked);
    const schema = fs.readFileSync(lay.schemaPath, 'utf8');
    const engine = (await bg.SchemaEngine.new({ datamodels: [[lay.schemaPath, schema]] }, () => {}, factory)) as Engine;
    try {
      return await fn(engine);
    } finally {
      engine.free();
      for (const c of opened) await c.dispose().catch(() => {});
      await pool?.end().catch(() => {});
    }
  };
  const result = state.queue.then(run, run);
  state.queue = result.catch(() => {});
  return result;
}
