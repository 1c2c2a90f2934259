/**
 * Each e2e spec file starts from the seeded demo, never from what another file
 * left behind. The global setup keeps a copy of each worker slot's e2e database
 * as seeded (after the sign-ins); before the first test of each spec file,
 * e2e/test.ts puts every table of the worker's live database back to its copy,
 * in one transaction the running server sees at its next read (SQLite, WAL).
 * Every function works on this worker's slot (e2e/servers.ts) unless told one.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { e2eDb, workerSlot } from './servers';

const seedCopy = (slot: number) => `data/e2e-seed-${slot}.db`;
/** Which spec file slot `slot`'s database was last put back to the seed for (kept across a worker restarted in the slot). */
const marker = (slot: number) => `data/e2e-seed-${slot}.for`;

/** Keeps a consistent copy of slot `slot`'s e2e database as it is now (SQLite's online backup). */
export async function saveSeedState(slot: number): Promise<void> {
  fs.rmSync(seedCopy(slot), { force: true });
  fs.rmSync(marker(slot), { force: true });
  const live = new Database(e2eDb(slot), { fileMustExist: true });
  try {
    await live.backup(seedCopy(slot));
  } finally {
    live.close();
  }
}

/** Puts the worker's e2e database back to the seed copy, once per spec file (a worker restarted within the file does not). */
export function restoreSeedStateFor(specFile: string, slot: number = workerSlot()): void {
  const key = path.relative(process.cwd(), specFile);
  if (fs.existsSync(marker(slot)) && fs.readFileSync(marker(slot), 'utf8') === key) return;
  restoreSeedState(slot);
  fs.writeFileSync(marker(slot), key);
}

/**
 * Puts every table of the e2e database back to the seed copy now. A spec whose tests must each start from the
 * seeded demo, whatever an earlier test of the file did or left half done (e2e/guard-dialogs.spec.ts), calls it
 * before each test.
 */
export function restoreSeedState(slot: number = workerSlot()): void {
  const live = new Database(e2eDb(slot), { fileMustExist: true });
  try {
    live.pragma('busy_timeout = 60000');
    live.pragma('foreign_keys = OFF');
    live.prepare('ATTACH DATABASE ? AS seed').run(path.resolve(seedCopy(slot)));
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
