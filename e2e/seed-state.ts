/**
 * Each e2e spec file starts from the seeded demo, never from what another file
 * left behind. The global setup keeps a copy of the e2e database as seeded
 * (after the sign-ins); before the first test of each spec file, e2e/test.ts
 * puts every table of the live database back to that copy, in one transaction
 * the running server sees at its next read (SQLite, WAL).
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

/** The database the e2e server runs on (DATABASE_URL of the web server in playwright.config.ts); one per clone. */
export const E2E_DB = 'data/e2e.db';
const SEED_COPY = 'data/e2e-seed.db';
/** Which spec file the database was last put back to the seed for (shared by the worker processes of one run). */
const MARKER = 'data/e2e-seed.for';

/** Keeps a consistent copy of the e2e database as it is now (SQLite's online backup). */
export async function saveSeedState(): Promise<void> {
  fs.rmSync(SEED_COPY, { force: true });
  fs.rmSync(MARKER, { force: true });
  const live = new Database(E2E_DB, { fileMustExist: true });
  try {
    await live.backup(SEED_COPY);
  } finally {
    live.close();
  }
}

/** Puts the e2e database back to the seed copy, once per spec file (a worker restarted within the file does not). */
export function restoreSeedStateFor(specFile: string): void {
  const key = path.relative(process.cwd(), specFile);
  if (fs.existsSync(MARKER) && fs.readFileSync(MARKER, 'utf8') === key) return;
  restoreSeedState();
  fs.writeFileSync(MARKER, key);
}

/**
 * Puts every table of the e2e database back to the seed copy now. A spec whose tests must each start from the
 * seeded demo, whatever an earlier test of the file did or left half done (e2e/guard-dialogs.spec.ts), calls it
 * before each test.
 */
export function restoreSeedState(): void {
  const live = new Database(E2E_DB, { fileMustExist: true });
  try {
    live.pragma('busy_timeout = 60000');
    live.pragma('foreign_keys = OFF');
    live.prepare('ATTACH DATABASE ? AS seed').run(path.resolve(SEED_COPY));
    const tables = (live.prepare("SELECT name FROM seed.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map((t) => t.name);
    const hasSequence = !!live.prepare("SELECT 1 FROM seed.sqlite_master WHERE name = 'sqlite_sequence'").get();
    live.transaction(() => {
      for (const t of tables) {
        live.exec(`DELETE FROM main."${t}"`);
        live.exec(`INSERT INTO main."${t}" SELECT * FROM seed."${t}"`);
      }
      if (hasSequence) live.exec('DELETE FROM main.sqlite_sequence; INSERT INTO main.sqlite_sequence SELECT * FROM seed.sqlite_sequence');
    }).immediate();
    live.exec('DETACH DATABASE seed');
  } finally {
    live.close();
  }
}
