import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaClient } from './generated/client';
import { databaseUrl } from './url';

export type Db = PrismaClient;
/** A client or an interactive transaction: what services and queries run against. */
export type Tx = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

const globalForDb = globalThis as unknown as { __policyConsoleDb?: { url: string; client: PrismaClient } };

/** How long a statement waits for another connection's write lock before SQLITE_BUSY (then a 503 with Retry-After). */
export function busyTimeoutMs(): number {
  const n = Number(process.env.SQLITE_BUSY_TIMEOUT_MS);
  return Number.isInteger(n) && n >= 0 ? n : 10_000;
}

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

/** A new client; `onQuery` (benchmarks, tests) is called once per SQL statement. */
export function createDb(url = databaseUrl(), opts: { onQuery?: () => void; busyTimeoutMs?: number; readonly?: boolean } = {}): PrismaClient {
  const adapter = immediateTransactions(new PrismaBetterSqlite3({ url, timeout: opts.busyTimeoutMs ?? busyTimeoutMs(), ...(opts.readonly ? { readonly: true } : {}) }));
  if (!opts.onQuery) return new PrismaClient({ adapter });
  const client = new PrismaClient({ adapter, log: [{ emit: 'event', level: 'query' }] });
  (client as unknown as { $on(e: 'query', cb: () => void): void }).$on('query', opts.onQuery);
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

/** Closes the process-wide client if one was opened (shutdown). */
export async function disconnectDb(): Promise<void> {
  const cached = globalForDb.__policyConsoleDb;
  if (!cached) return;
  globalForDb.__policyConsoleDb = undefined;
  await cached.client.$disconnect();
}
