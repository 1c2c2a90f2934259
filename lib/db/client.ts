import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaClient } from './generated/client';
import { databaseUrl } from './url';

export type Db = PrismaClient;
/** A client or an interactive transaction: what services and queries run against. */
export type Tx = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

const globalForDb = globalThis as unknown as { __policyConsoleDb?: { url: string; client: PrismaClient } };

/** A new client; `onQuery` (benchmarks, tests) is called once per SQL statement. */
export function createDb(url = databaseUrl(), opts: { onQuery?: () => void } = {}): PrismaClient {
  const adapter = new PrismaBetterSqlite3({ url, timeout: 10_000 });
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
