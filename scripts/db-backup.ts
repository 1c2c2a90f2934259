/**
 * npm run db:backup -- <file> [--force]
 *   SQLite (the default database): an online, consistent copy of the database
 *   file to <file>, safe while the console runs. Refuses to replace an
 *   existing file unless --force.
 *   PostgreSQL (DATABASE_URL=postgresql://…): prints the pg_dump command to run.
 */
import { backupSqlite, BackupError, pgDumpCommand } from '../lib/ops/backup';
import { databaseFile, databaseUrl, isPostgresUrl } from '../lib/db/url';

const args = process.argv.slice(2);
const force = args.includes('--force');
const files = args.filter((a) => a !== '--force');
const unknown = files.filter((a) => a.startsWith('--'));
if (files.length !== 1 || unknown.length) {
  console.error(unknown.length ? `Unknown option ${unknown[0]}.` : 'Name one backup file.');
  console.error('Usage: npm run db:backup -- <file> [--force]');
  process.exit(2);
}
const target = files[0];
const url = databaseUrl();

if (isPostgresUrl(url)) {
  console.log('DATABASE_URL names a PostgreSQL database: back it up with pg_dump (restore with pg_restore):\n');
  console.log(`  ${pgDumpCommand(target)}\n`);
  console.log('Run it where DATABASE_URL is set, with a pg_dump of the server\'s major version or newer.');
  process.exit(0);
}

try {
  const r = await backupSqlite(databaseFile(url), target, { force });
  console.log(`Backed up ${databaseFile(url)} to ${r.file} (${r.bytes} bytes, ${r.pages} pages, integrity ok).`);
} catch (e) {
  if (e instanceof BackupError) {
    console.error(e.message);
    process.exit(1);
  }
  throw e;
}
