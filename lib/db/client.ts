import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { metrics, type GaugeSample } from '../ops/metrics';
import { PrismaClient } from './generated/client';
import { PrismaClient as PgPrismaClient } from './generated-pg/client';
import { isWriteConflictError } from '../errors';
import { databaseProvider, databaseUrl, type DatabaseProvider } from './url';
import { writeAheadLog, type SqlitePragma } from './sqlite-wal';
import { processBox, processState } from '../process-state';

/**
 * One set of types for both databases: the SQLite client's. The PostgreSQL
 * client (generated from prisma/postgres/schema.prisma, the same models) has
 * a superset of its API, so it is used through these types.
 */
export type Db = PrismaClient;
/** A client or an interactive transaction: what services and queries run against. */
export type Tx = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

/**
 * The process-wide client, and what createDb knows of every client it made
 * (provider, pg pool, SQLite direct statements), are process state
 * (lib/process-state.ts): scripts/serve.ts's copy of this module and the
 * copy in Next's server bundle must see the same. Kept in module WeakMaps,
 * the pool of a client made by the server's copy was unknown to the Next
 * copy, and every /api/v1 read on PostgreSQL failed (issue 40).
 */
const slot = processBox<{ url: string; client: PrismaClient }>('db.client');

/** How long a statement waits for another connection's write lock before SQLITE_BUSY (then a 503 with Retry-After). */
export function busyTimeoutMs(): number {
  const n = Number(process.env.SQLITE_BUSY_TIMEOUT_MS);
  return Number.isInteger(n) && n >= 0 ? n : 10_000;
}

/** PostgreSQL connections per instance (DATABASE_POOL_SIZE, default 20). */
export function poolSize(): number {
  const n = Number(process.env.DATABASE_POOL_SIZE);
  return Number.isInteger(n) && n > 0 ? n : 20;
}

/**
 * Interactive transactions wait up to 10 s for a connection (Prisma's default
 * is 2 s: bursts of concurrent writers on PostgreSQL failed to start with
 * P2028) and may run 20 s.
 */
export const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 20_000 } as const;

type AdapterFactory = InstanceType<typeof PrismaBetterSqlite3>;

/**
 * Interactive transactions start with BEGIN IMMEDIATE instead of BEGIN
 * (issue 17, item 9). A deferred transaction reads under a shared lock and
 * then asks for the write lock; if another connection (a CLI, another
 * instance) holds it, SQLite answers SQLITE_BUSY at once without waiting, as
 * waiting could deadlock. IMMEDIATE takes the write lock up front, where the
 * busy timeout applies. Every interactive transaction here writes, so
 * nothing is serialised that was not already.
 *
 * Statements are prepared once per SQL text (issue 22, wire speed): Prisma's
 * adapter prepares every query again and binds it for one use, which was a
 * twentieth of a chef-client run's time. The connection is Prisma's alone, so
 * its statements are only ever used the adapter's way: bound once, then
 * `run()` or `raw().all()`; here the binding travels with each use instead.
 */
function immediateTransactions(factory: AdapterFactory, opts: { readonly?: boolean } = {}, holder: DirectHolder = {}): AdapterFactory {
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    const client = (adapter as unknown as { client: { prepare: (sql: string) => SqliteStatement } & SqlitePragma }).client;
    if (!opts.readonly) writeAheadLog(client);
    const prepare = client.prepare.bind(client);
    holder.direct = directStatements(prepare as unknown as (sql: string) => RawStatement, holder.onStatement);
    const statements = new Map<string, SqliteStatement>();
    client.prepare = ((sql: string) => {
      const text = sql === 'BEGIN' ? 'BEGIN IMMEDIATE' : sql;
      let stmt = statements.get(text);
      if (!stmt) {
        stmt = prepare(text);
        if (statements.size >= 1000) statements.clear();
        statements.set(text, stmt);
      }
      return reusable(stmt);
    }) as typeof client.prepare;
    return adapter;
  };
  return factory;
}

/** The part of a better-sqlite3 statement Prisma's adapter uses. */
interface SqliteStatement {
  reader: boolean;
  bind(args: unknown[]): SqliteStatement;
  run(args?: unknown[]): unknown;
  columns(): unknown[];
  raw(on?: boolean): { all(args?: unknown[]): unknown[] };
}

/** A prepared statement as the adapter uses it, bound per use rather than once for good. */
function reusable(stmt: SqliteStatement): SqliteStatement {
  const bound = (args: unknown[] = []): SqliteStatement => ({
    reader: stmt.reader,
    bind: (more) => bound(more),
    run: () => stmt.run(args),
    columns: () => stmt.columns(),
    raw: () => ({ all: () => stmt.raw(true).all(args) }),
  });
  return bound();
}

/** A better-sqlite3 statement, used directly (directStatements). */
interface RawStatement {
  reader: boolean;
  safeIntegers(on: boolean): unknown;
  run(...params: unknown[]): { changes: number };
  all(...params: unknown[]): unknown[];
}

/**
 * SQLite: statements run directly on the connection Prisma's adapter holds,
 * synchronously, for hot paths made of many small statements (issue 25: a
 * node save's index write). Inside an interactive transaction they run in it:
 * the adapter has one connection, and the transaction holds it from BEGIN to
 * COMMIT (its queries run on it in order; a statement here runs between two
 * of them, never during one). Each Prisma query costs ~0.5 ms of its own
 * (request, serialization, result mapping) on top of SQLite's few
 * microseconds; six of them were two thirds of a chef-client node save's
 * index write. Parameters are strings, numbers or null (booleans as 0/1);
 * rows come back as objects keyed by column name.
 */
export interface SqliteDirect {
  /** A statement that returns no rows; how many rows it changed. */
  run(sql: string, params: readonly unknown[]): number;
  /** A statement that returns rows (a SELECT, or a write with RETURNING). */
  all<T>(sql: string, params: readonly unknown[]): T[];
}

/** `onStatement`: createDb's onQuery, so that statement counts include these. */
type DirectHolder = { direct?: SqliteDirect; onStatement?: () => void };

function directStatements(prepare: (sql: string) => RawStatement, onStatement?: () => void): SqliteDirect {
  const statements = new Map<string, RawStatement>();
  const stmt = (sql: string) => {
    onStatement?.();
    let st = statements.get(sql);
    if (!st) {
      st = prepare(sql);
      // Numbers as numbers (the adapter's connection answers BigInts by default): counts and small integers only here.
      st.safeIntegers(false);
      if (statements.size >= 500) statements.clear();
      statements.set(sql, st);
    }
    return st;
  };
  const args = (params: readonly unknown[]) => params.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));
  return {
    run: (sql, params) => stmt(sql).run(...args(params)).changes,
    all: <T>(sql: string, params: readonly unknown[]) => stmt(sql).all(...args(params)) as T[],
  };
}

/** Which SQLite connection (its holder) a client's engine uses: an interactive transaction's client shares its parent's engine. */
const directs = processState('db.directs', () => new WeakMap<object, DirectHolder>());

/**
 * The direct statements of a SQLite client made by createDb, or of an
 * interactive transaction of one (then they run inside it); undefined for
 * PostgreSQL and before the client's first query opened its connection.
 */
export function sqliteDirect(client: object): SqliteDirect | undefined {
  const engine = (client as { _engine?: unknown })._engine;
  return typeof engine === 'object' && engine !== null ? directs.get(engine)?.direct : undefined;
}

/** How many times an interactive transaction runs when PostgreSQL rolls it back for a deadlock or serialization failure. */
export const WRITE_CONFLICT_ATTEMPTS = 3;

/**
 * Interactive transactions that PostgreSQL aborts with a deadlock or a
 * serialization failure (P2034) run again, up to WRITE_CONFLICT_ATTEMPTS
 * times with a short random pause; the last failure surfaces (→ 409).
 * The callback must not have effects outside the transaction (none here do).
 */
function retryWriteConflicts(client: PrismaClient): PrismaClient {
  const original = client.$transaction.bind(client) as (arg: unknown, opts?: unknown) => Promise<unknown>;
  const retrying = async (arg: unknown, opts?: unknown) => {
    if (typeof arg !== 'function') return original(arg, opts);
    for (let attempt = 1; ; attempt++) {
      try {
        return await original(arg, opts);
      } catch (e) {
        if (attempt >= WRITE_CONFLICT_ATTEMPTS || !isWriteConflictError(e)) throw e;
        await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * attempt));
      }
    }
  };
  Object.defineProperty(client, '$transaction', { value: retrying, configurable: true, writable: true });
  return client;
}

const providers = processState('db.providers', () => new WeakMap<object, DatabaseProvider>());
const pools = processState('db.pools', () => new WeakMap<object, pg.Pool>());

/** A client's connections by state (/metrics): its PostgreSQL pool's, or SQLite's one connection. */
export function poolStats(client: object): GaugeSample[] {
  const pool = pools.get(client);
  if (pool) {
    return [
      { labels: { state: 'total' }, value: pool.totalCount },
      { labels: { state: 'idle' }, value: pool.idleCount },
      { labels: { state: 'waiting' }, value: pool.waitingCount },
    ];
  }
  return providers.get(client) === 'sqlite' ? [{ labels: { state: 'total' }, value: 1 }] : [];
}

// policy_console_db_pool_connections reads the process-wide client's pool.
metrics().dbPool.collect(() => {
  const c = slot.current?.client;
  return c ? poolStats(c) : [];
});

/** The pg pool of a PostgreSQL client made by createDb (prepared statements on the read path); undefined for SQLite. */
export function pgPoolOf(client: object): pg.Pool | undefined {
  return pools.get(client);
}

const closers = processState('db.closers', () => new Map<string, () => void>());

/**
 * Runs `close` when the process-wide client is disconnected (connections of
 * its own a query module keeps). One per `name`: each copy of the module
 * registers its own on load, and they close the same process-wide state.
 */
export function onDisconnect(name: string, close: () => void): void {
  closers.set(name, close);
}

/** Which database a client made by createDb talks to (else: the one DATABASE_URL names). */
export function providerOf(client: object): DatabaseProvider {
  const known = providers.get(client);
  if (known) return known;
  // An interactive transaction's client is not in the map: it names its provider itself.
  const active = (client as { _activeProvider?: unknown })._activeProvider;
  return active === 'postgresql' || active === 'sqlite' ? active : databaseProvider();
}

export interface CreateDbOptions {
  /** Called once per SQL statement (benchmarks, tests). */
  onQuery?: () => void;
  /** SQLite only. */
  busyTimeoutMs?: number;
  /** SQLite only: open the file read-only. */
  readonly?: boolean;
  /** PostgreSQL only: connections in the pool. */
  poolSize?: number;
}

/** A new client for `url`: PostgreSQL for postgres(ql):// URLs, the SQLite file otherwise. */
export function createDb(url = databaseUrl(), opts: CreateDbOptions = {}): PrismaClient {
  const log = opts.onQuery ? ([{ emit: 'event', level: 'query' }] as const) : undefined;
  let client: PrismaClient;
  if (databaseProvider(url) === 'postgresql') {
    // Sessions in UTC: timestamp columns have no time zone, and database-side defaults must agree with what the application writes.
    // The pool is ours (disposed with the client), so /metrics can report its use.
    const pool = new pg.Pool({ connectionString: url, max: opts.poolSize ?? poolSize(), options: '-c TimeZone=UTC' });
    const adapter = new PrismaPg(pool, { disposeExternalPool: true });
    const pgClient = new PgPrismaClient({ adapter, transactionOptions: TRANSACTION_OPTIONS, ...(log ? { log: [...log] } : {}) });
    client = pgClient as unknown as PrismaClient;
    providers.set(client, 'postgresql');
    pools.set(client, pool);
  } else {
    const holder: DirectHolder = { onStatement: opts.onQuery };
    const adapter = immediateTransactions(new PrismaBetterSqlite3({ url, timeout: opts.busyTimeoutMs ?? busyTimeoutMs(), ...(opts.readonly ? { readonly: true } : {}) }), { readonly: opts.readonly }, holder);
    client = new PrismaClient({ adapter, transactionOptions: TRANSACTION_OPTIONS, ...(log ? { log: [...log] } : {}) });
    providers.set(client, 'sqlite');
    const engine = (client as unknown as { _engine?: unknown })._engine;
    if (typeof engine === 'object' && engine !== null) directs.set(engine, holder);
  }
  // On both databases, so behaviour is the same (SQLite never reports P2034).
  retryWriteConflicts(client);
  if (opts.onQuery) (client as unknown as { $on(e: 'query', cb: () => void): void }).$on('query', opts.onQuery);
  return client;
}

/** Makes `client` the process-wide client for `url` (benchmarks and tests that count queries). */
export function installDb(client: PrismaClient, url = databaseUrl()): void {
  slot.current = { url, client };
}

/** The process-wide client (one per database URL, kept across hot reloads). */
export function db(): PrismaClient {
  const url = databaseUrl();
  const cached = slot.current;
  if (cached && cached.url === url) return cached.client;
  const client = createDb(url);
  slot.current = { url, client };
  return client;
}

/** Closes the process-wide client if one was opened (shutdown). */
export async function disconnectDb(): Promise<void> {
  for (const close of closers.values()) close();
  const cached = slot.current;
  if (!cached) return;
  slot.current = undefined;
  await cached.client.$disconnect();
}

/**
 * Serializes demo seeding across instances for the rest of the transaction:
 * a transaction-scoped advisory lock on PostgreSQL; nothing on SQLite, where
 * transactions already start with the write lock (BEGIN IMMEDIATE).
 */
export async function lockForSeed(tx: Tx, provider: DatabaseProvider): Promise<void> {
  if (provider !== 'postgresql') return;
  // hashtext('policy-console:seed'): any fixed 64-bit key; $executeRaw, as the lock function returns void.
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('policy-console:seed'))`;
}

/**
 * Spread into a Prisma string filter (`{ contains: x, ...caseInsensitive() }`)
 * to match regardless of case on both databases: SQLite's LIKE already
 * ignores (ASCII) case, PostgreSQL's needs `mode: 'insensitive'` (ILIKE),
 * which the SQLite client's types do not know.
 */
export function caseInsensitive(provider: DatabaseProvider = databaseProvider()): {} {
  return provider === 'postgresql' ? { mode: 'insensitive' } : {};
}
