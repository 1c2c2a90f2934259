import path from 'node:path';

/**
 * The database URL: `DATABASE_URL`, else `file:./data/console.db` (relative to the project root).
 * `postgresql://…` or `postgres://…` selects PostgreSQL; anything else is a SQLite file.
 */
export function databaseUrl(): string {
  return process.env.DATABASE_URL ?? 'file:./data/console.db';
}

export type DatabaseProvider = 'sqlite' | 'postgresql';

/** Whether `url` names a PostgreSQL database (postgresql:// or postgres://). */
export function isPostgresUrl(url = databaseUrl()): boolean {
  return /^postgres(ql)?:\/\//i.test(url.trim());
}

/** Which database `url` names: PostgreSQL for postgres(ql):// URLs, SQLite for anything else. */
export function databaseProvider(url = databaseUrl()): DatabaseProvider {
  return isPostgresUrl(url) ? 'postgresql' : 'sqlite';
}

/** The file path behind a SQLite `file:` URL, resolved against the working directory. */
export function databaseFile(url = databaseUrl()): string {
  if (isPostgresUrl(url)) throw new Error('databaseFile(): DATABASE_URL names a PostgreSQL database, not a SQLite file');
  const p = url.replace(/^file:/, '');
  return path.resolve(/* turbopackIgnore: true */ process.cwd(), p);
}

/** The URL with its password masked, for log lines. */
export function redactedUrl(url = databaseUrl()): string {
  return url.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1***@');
}
