/**
 * The WebAssembly schema engine (lib/db/migrate.ts), smoke-tested: a schema
 * change becomes a migration in a temporary folder, and the
 * drop_cookbook_lock_runlist migration keeps the board's cookbook digests.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { applyMigrations, MIGRATIONS_DIR, SCHEMA_PATH } from '@/lib/db/migrate';
import { createSqliteMigration } from '@/lib/db/migrate-dev';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pc-migrate-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function copyMigrations(to: string, filter: (name: string) => boolean = () => true) {
  fs.mkdirSync(to, { recursive: true });
  for (const e of fs.readdirSync(MIGRATIONS_DIR, { withFileTypes: true })) {
    if (e.isDirectory() ? filter(e.name) : true) fs.cpSync(path.join(MIGRATIONS_DIR, e.name), path.join(to, e.name), { recursive: true });
  }
}

describe('createMigration', () => {
  it('writes the SQL of a schema change into the given folder, and nothing when the schema is unchanged', async () => {
    const dir = path.join(tmp, 'create');
    copyMigrations(path.join(dir, 'prisma', 'migrations'));
    const schemaPath = path.join(dir, 'prisma', 'schema.prisma');
    fs.writeFileSync(schemaPath, fs.readFileSync(SCHEMA_PATH, 'utf8') + '\nmodel SmokeNote {\n  id   String @id\n  note String @default("")\n}\n');
    const paths = { migrationsDir: path.join(dir, 'prisma', 'migrations'), schemaPath };
    const created = await createSqliteMigration('smoke_note', dir);
    expect(created).toMatch(/_smoke_note$/);
    expect(path.dirname(created!)).toBe(paths.migrationsDir);
    const sql = fs.readFileSync(path.join(created!, 'migration.sql'), 'utf8');
    expect(sql).toContain('CREATE TABLE "SmokeNote"');
    expect(sql).toMatch(/"note" TEXT NOT NULL DEFAULT ''/);
    // Nothing else changes: the project's migrations already describe the rest of the schema.
    expect(sql).not.toMatch(/DROP|ALTER|RedefineTables/);
    // The project's own folder is untouched.
    expect(fs.readdirSync(MIGRATIONS_DIR).some((n) => n.endsWith('_smoke_note'))).toBe(false);
    // Applied, the schema is reached: a second call has nothing to write.
    expect(await createSqliteMigration('again', dir)).toBeNull();
    // And the migration applies to a database.
    const url = `file:${path.join(dir, 'smoke.db')}`;
    const applied = await applyMigrations(url, dir);
    expect(applied.at(-1)).toMatch(/_smoke_note$/);
    const raw = new Database(path.join(dir, 'smoke.db'));
    expect(raw.prepare("SELECT name FROM sqlite_master WHERE type='table' AND name='SmokeNote'").get()).toBeTruthy();
    raw.close();
  });
});

describe('drop_cookbook_lock_runlist', () => {
  it('fills in the cookbook digest of revisions older than it from their CookbookLock rows, then drops both', async () => {
    const dir = path.join(tmp, 'drop');
    const last = fs.readdirSync(MIGRATIONS_DIR).filter((n) => n.endsWith('_drop_cookbook_lock_runlist'))[0];
    copyMigrations(path.join(dir, 'prisma', 'migrations'), (n) => n < last);
    fs.copyFileSync(SCHEMA_PATH, path.join(dir, 'prisma', 'schema.prisma'));
    const file = path.join(dir, 'old.db');
    await applyMigrations(`file:${file}`, dir);
    const raw = new Database(file);
    raw.prepare(`INSERT INTO "Policy" (id, name) VALUES ('p1', 'legacy')`).run();
    const insertRev = raw.prepare(`INSERT INTO "PolicyRevision" (id, policyId, revisionId, document, contentHash, computedRevisionId, runList, cookbookDigest) VALUES (?, 'p1', ?, '{}', 'h', 'c', '[]', ?)`);
    insertRev.run('r-old', 'old', '');
    insertRev.run('r-none', 'none', '');
    insertRev.run('r-new', 'new', '{"x":"1.0.0|x1"}');
    raw.prepare(`INSERT INTO "CookbookLock" (id, revisionPk, name, version, identifier) VALUES ('c1', 'r-old', 'nginx', '12.0.0', 'ng12'), ('c2', 'r-old', 'base', '1.0.0', 'b1')`).run();
    raw.close();

    fs.cpSync(path.join(MIGRATIONS_DIR, last), path.join(dir, 'prisma', 'migrations', last), { recursive: true });
    expect((await applyMigrations(`file:${file}`, dir)).map((p) => path.basename(p))).toEqual([last]);
    const after = new Database(file);
    const digests = Object.fromEntries((after.prepare(`SELECT id, cookbookDigest FROM "PolicyRevision"`).all() as { id: string; cookbookDigest: string }[]).map((r) => [r.id, r.cookbookDigest]));
    expect(JSON.parse(digests['r-old'])).toEqual({ nginx: '12.0.0|ng12', base: '1.0.0|b1' });
    expect(JSON.parse(digests['r-none'])).toEqual({});
    expect(digests['r-new']).toBe('{"x":"1.0.0|x1"}');
    expect(after.prepare("SELECT name FROM sqlite_master WHERE name='CookbookLock'").get()).toBeUndefined();
    const columns = (after.prepare(`PRAGMA table_info("PolicyRevision")`).all() as { name: string }[]).map((c) => c.name);
    expect(columns).not.toContain('runList');
    after.close();
  });
});
