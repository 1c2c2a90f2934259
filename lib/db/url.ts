import path from 'node:path';

/** The SQLite database URL: `DATABASE_URL`, else `file:./data/console.db` (relative to the project root). */
export function databaseUrl(): string {
  return process.env.DATABASE_URL ?? 'file:./data/console.db';
}

/** The file path behind a `file:` URL, resolved against the working directory. */
export function databaseFile(url = databaseUrl()): string {
  const p = url.replace(/^file:/, '');
  return path.resolve(/* turbopackIgnore: true */ process.cwd(), p);
}
