/**
 * npm run db:backup: a SQLite backup taken while another process keeps
 * writing is consistent (one point in time) and passes an integrity check;
 * an existing file is refused without --force; PostgreSQL gets the pg_dump
 * command to run.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '@/lib/db/client';
import { applyMigrations } from '@/lib/db/migrate';
import { backupSqlite } from '@/lib/ops/backup';
import { seedDemo } from '@/lib/seed/seed-demo';
import { NOW } from '@/test/helpers';

const ROOT = path.resolve(import.meta.dirname, '../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pc-backup-'));
// A SQLite database of its own, whichever database the run is on (the backup is a SQLite feature).
const source = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pc-backup-src-')), 'console.db');
const databaseFile = () => source;
let users = 0;

beforeAll(async () => {
  await applyMigrations(`file:${source}`);
  const client = createDb(`file:${source}`);
  try {
    await seedDemo(client, NOW);
    users = await client.user.count();
  } finally {
    await client.$disconnect();
  }
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(path.dirname(source), { recursive: true, force: true });
});

const WRITER = `
const Database = require('better-sqlite3');
const db = new Database(process.argv[1]);
db.pragma('busy_timeout = 60000');
const insert = db.prepare('INSERT INTO backup_probe (payload) VALUES (?)');
let n = 0;
const tick = () => {
  for (let i = 0; i < 20; i++) { insert.run('x'.repeat(2000)); n++; }
  if (n % 200 === 0) process.stdout.write(n + '\\n');
  setImmediate(tick);
};
tick();
`;

function cli(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'scripts/db-backup.ts', ...args], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8' });
}

describe('SQLite backup', () => {
  it('is consistent and intact while another process writes', async () => {
    const file = databaseFile();
    const raw = new Database(file);
    raw.exec('CREATE TABLE IF NOT EXISTS backup_probe (id INTEGER PRIMARY KEY AUTOINCREMENT, payload TEXT NOT NULL)');
    raw.close();
    const writer = spawn(process.execPath, ['-e', WRITER, file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    writer.stderr!.on('data', (d) => (stderr += d));
    try {
      // Let the writer get going (a few thousand rows, some MB), then back up under its load. A writer that dies first
      // fails the test with its error (waiting for a line that never comes would only time out).
      await new Promise<void>((resolve, reject) => {
        readline.createInterface({ input: writer.stdout! }).on('line', (l) => Number(l) >= 2000 && resolve());
        writer.on('error', reject);
        writer.on('exit', (code, signal) => reject(new Error(`the writer exited (${code ?? signal}) before it wrote 2000 rows: ${stderr}`)));
      });
      const target = path.join(dir, 'live.db');
      const result = await backupSqlite(file, target);
      expect(result.file).toBe(target);
      // The writer was still running after the copy finished.
      expect(writer.exitCode, stderr).toBeNull();
      const copy = new Database(target, { readonly: true });
      try {
        expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
        const { n, max } = copy.prepare('SELECT COUNT(*) AS n, MAX(id) AS max FROM backup_probe').get() as { n: number; max: number };
        // One point in time: rows 1..max, none missing.
        expect(n).toBeGreaterThanOrEqual(2000);
        expect(max).toBe(n);
        expect((copy.prepare('SELECT COUNT(*) AS n FROM "User"').get() as { n: number }).n).toBe(users);
      } finally {
        copy.close();
      }
      // No temporary file left beside it.
      expect(fs.readdirSync(dir)).toEqual(['live.db']);
    } finally {
      writer.kill('SIGKILL');
    }
  });

  it('refuses to replace an existing file unless --force, through npm run db:backup (after the writer above was killed mid-write)', () => {
    const env = { DATABASE_URL: `file:${databaseFile()}` };
    const target = path.join(dir, 'cli.db');
    const first = cli([target], env);
    expect(first.status).toBe(0);
    expect(first.stdout).toContain(`to ${target}`);
    expect(first.stdout).toContain('integrity ok');
    const size = fs.statSync(target).size;
    fs.truncateSync(target, 100);
    const again = cli([target], env);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('already exists');
    expect(again.stderr).toContain('--force');
    expect(fs.statSync(target).size).toBe(100);
    const forced = cli([target, '--force'], env);
    expect(forced.status).toBe(0);
    expect(fs.statSync(target).size).toBe(size);
    expect(cli([], env).status).toBe(2);
    expect(cli([target, '--forse'], env).stderr).toContain('Unknown option --forse');
  });

  it('prints the pg_dump command for PostgreSQL, without the password', () => {
    const r = cli([path.join(dir, "it's.dump")], { DATABASE_URL: 'postgresql://app:hunter2@db.internal:5432/console' });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`pg_dump --format=custom --no-owner --file='${dir}/it'\\''s.dump' "$DATABASE_URL"`);
    expect(r.stdout).not.toContain('hunter2');
    expect(fs.existsSync(path.join(dir, "it's.dump"))).toBe(false);
  });
});
