import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaClient } from './generated/client';
import { databaseUrl } from './url';

export type Db = PrismaClient;
/** A client or an interactive transaction: what services and queries run against. */
export type Tx = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

const globalForDb = globalThis as unknown as { __policyConsoleDb?: { url: string; client: PrismaClient } };

export function createDb(url = databaseUrl()): PrismaClient {
  return new PrismaClient({ adapter: new PrismaBetterSqlite3({ url, timeout: 10_000 }) });
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
