import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/client';
import { PrismaClient as PgPrismaClient } from './generated-pg/client';
import { databaseProvider, databaseUrl, type DatabaseProvider } from './url';

/**
 * One set of types for both databases: the SQLite client's. The PostgreSQL
 * client (generated from prisma/postgres/schema.prisma, the same models) has
 * a superset of its API, so it is used through these types.
 */
export type Db = PrismaClient;
/** A client or an interactive transaction: what services and queries run against. */
export type Tx = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

const globalForDb = globalThis as unknown as { __policyConsoleDb?: { url: string; client: PrismaClient } };

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
 */
function immediateTransactions(factory: AdapterFactory): AdapterFactory {
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    const client = (adapter as unknown as { client: { prepare: (sql: string) => unknown } }).client;
    const prepare = client.prepare.bind(client);
    client.prepare = (sql: string) => prepare(sql === 'BEGIN' ? 'BEGIN IMMEDIATE' : sql);
    return adapter;
  };
  return factory;
}

/** P2034: PostgreSQL rolled the transaction back (deadlock or serialization failure); running it again is safe. */
export function isWriteConflict(e: unknown): boolean {
  for (let cur: unknown = e, i = 0; cur && i < 5; cur = (cur as { cause?: unknown }).cause, i++) {
    const c = cur as { code?: unknown; kind?: unknown; originalCode?: unknown };
    if (c.code === 'P2034' || c.kind === 'TransactionWriteConflict' || c.code === '40001' || c.code === '40P01' || c.originalCode === '40001' || c.originalCode === '40P01') return true;
  }
  return false;
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
        if (attempt >= WRITE_CONFLICT_ATTEMPTS || !isWriteConflict(e)) throw e;
        await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * attempt));
      }
    }
  };
  Object.defineProperty(client, '$transaction', { value: retrying, configurable: true, writable: true });
  return client;
}

const providers = new WeakMap<object, DatabaseProvider>();

/** Which database a client made by createDb talks to (else: the one DATABASE_URL names). */
export function providerOf(client: object): DatabaseProvider {
  return providers.get(client) ?? databaseProvider();
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
    const adapter = new PrismaPg({ connectionString: url, max: opts.poolSize ?? poolSize(), options: '-c TimeZone=UTC' });
    const pg = new PgPrismaClient({ adapter, transactionOptions: TRANSACTION_OPTIONS, ...(log ? { log: [...log] } : {}) });
    client = retryWriteConflicts(pg as unknown as PrismaClient);
    providers.set(client, 'postgresql');
  } else {
    const adapter = immediateTransactions(new PrismaBetterSqlite3({ url, timeout: opts.busyTimeoutMs ?? busyTimeoutMs(), ...(opts.readonly ? { readonly: true } : {}) }));
    client = new PrismaClient({ adapter, transactionOptions: TRANSACTION_OPTIONS, ...(log ? { log: [...log] } : {}) });
    providers.set(client, 'sqlite');
  }
  if (opts.onQuery) (client as unknown as { $on(e: 'query', cb: () => void): void }).$on('query', opts.onQuery);
  return client;
}

/** Makes `client` the process-wide client for `url` (benchmarks and tests that count queries). */
export function installDb(client: PrismaClient, url = databaseUrl()): void {
  globalForDb.__policyConsoleDb = { url, client };
}

/** The process-wide client (one per database URL, kept across hot reloads). */
export function db(): PrismaClient {
  const url = databaseUrl();
  const cached = globalForDb.__policyConsoleDb;
  if (cached && cached.url === url) return cached.client;
  const client = createDb(url);
  globalForDb.__policyConsoleDb = { url, client };
  return client;
}
