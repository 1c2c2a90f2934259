/** Two instances starting at once on one empty PostgreSQL database: `scripts/prepare.ts` migrates and seeds it once. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { createDb } from '@/lib/db/client';
import { appliedMigrationNames, migrationNames } from '@/lib/db/migrate';
import { DEMO_USERS } from '@/lib/seed/seed-demo';
import { createDatabase, dropDatabase } from '@/test/pg-server';

function prepare(url: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, DATABASE_URL: url, SEED_DEMO: 'true', NEXTAUTH_SECRET: 'x', NODE_ENV: 'development' } as NodeJS.ProcessEnv;
    const child = spawn(process.execPath, [path.resolve('node_modules/tsx/dist/cli.mjs'), 'scripts/prepare.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

describe('npm run serve ×2 on an empty PostgreSQL database', () => {
  it('both start; migrations applied once, the demo seeded once', async () => {
    const admin = inject('pgAdminUrl');
    const name = `prep_${Date.now()}`;
    const url = await createDatabase(admin, name);
    const client = createDb(url);
    try {
      const [a, b] = await Promise.all([prepare(url), prepare(url)]);
      expect(a.code, a.out).toBe(0);
      expect(b.code, b.out).toBe(0);
      const applied = [a.out, b.out].filter((o) => /applied migrations/.test(o));
      expect(applied).toHaveLength(1);
      expect(await appliedMigrationNames(url)).toEqual(migrationNames('postgresql'));
      expect(await client.user.count()).toBe(DEMO_USERS.length);
      expect(await client.auditEvent.count({ where: { action: 'seed.demo' } })).toBe(1);
    } finally {
      await client.$disconnect();
      await dropDatabase(admin, name);
    }
  }, 120_000);
});
