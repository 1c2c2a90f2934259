/**
 * Backups (`npm run db:backup -- <file>`). SQLite: a consistent copy of a
 * live database through SQLite's online backup API (better-sqlite3's
 * `backup`), safe while the console writes: readers and writers keep going,
 * and the copy is one point in time. Written to a temporary file beside the
 * target, checked (`PRAGMA integrity_check`), then renamed into place, so a
 * failed backup never leaves a half-written file under the name asked for.
 * PostgreSQL: the pg_dump command to run (nothing is executed here).
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export class BackupError extends Error {}

export interface SqliteBackupResult {
  file: string;
  bytes: number;
  pages: number;
}

/** Copies the SQLite database `sourceFile` to `target`; refuses an existing target unless `force`. */
export async function backupSqlite(sourceFile: string, target: string, opts: { force?: boolean; busyTimeoutMs?: number } = {}): Promise<SqliteBackupResult> {
  const source = path.resolve(sourceFile);
  const dest = path.resolve(target);
  if (!fs.existsSync(source)) throw new BackupError(`There is no SQLite database at ${source} (DATABASE_URL).`);
  if (dest === source) throw new BackupError('The backup file must differ from the database file.');
  if (fs.existsSync(dest)) {
    if (!opts.force) throw new BackupError(`${dest} already exists; choose another file or pass --force to replace it.`);
    if (!fs.statSync(dest).isFile()) throw new BackupError(`${dest} exists and is not a file.`);
  }
  if (!fs.existsSync(path.dirname(dest))) throw new BackupError(`The directory ${path.dirname(dest)} does not exist.`);
  const tmp = path.join(path.dirname(dest), `.${path.basename(dest)}.partial-${process.pid}-${Date.now()}`);
  // Not read-only: a connection must be able to roll back a hot journal left by a crashed writer before it can read.
  const db = new Database(source, { fileMustExist: true });
  try {
    db.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 10_000}`);
    // After the first step, copy everything left in one step: a writer between steps would make SQLite restart the copy.
    const progress = await db.backup(tmp, { progress: () => 0x7fffffff });
    // The copy is one self-contained file: out of write-ahead-log mode (the console's, lib/db/sqlite-wal.ts), which
    // the copy inherits and which keeps -wal and -shm files beside a database while it is open.
    const single = new Database(tmp, { fileMustExist: true });
    try {
      single.pragma('journal_mode = DELETE');
    } finally {
      single.close();
    }
    const check = new Database(tmp, { readonly: true, fileMustExist: true });
    let verdict: unknown;
    try {
      verdict = check.pragma('integrity_check', { simple: true });
    } finally {
      check.close();
    }
    if (verdict !== 'ok') throw new BackupError(`The copy failed its integrity check: ${String(verdict)}`);
    fs.renameSync(tmp, dest);
    return { file: dest, bytes: fs.statSync(dest).size, pages: progress.totalPages };
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  } finally {
    db.close();
  }
}

/** Single-quotes `s` for a POSIX shell. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The pg_dump command that backs up the PostgreSQL database in DATABASE_URL
 * to `target` (custom format, restorable with pg_restore). The URL is read
 * from the environment by the shell, so its password is not printed.
 */
export function pgDumpCommand(target: string): string {
  return `pg_dump --format=custom --no-owner --file=${shellQuote(path.resolve(target))} "$DATABASE_URL"`;
}
