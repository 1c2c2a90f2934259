/** Per test file: a fresh copy of the migrated template database. */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll } from 'vitest';

const template = path.resolve('data/test/template.db');
const file = path.resolve(`data/test/${randomUUID()}.db`);
fs.copyFileSync(template, file);
process.env.DATABASE_URL = `file:${file}`;
process.env.NEXTAUTH_SECRET = 'integration-test-secret';

afterAll(async () => {
  const { db } = await import('@/lib/db/client');
  await db().$disconnect();
  for (const f of [file, `${file}-journal`, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
});
