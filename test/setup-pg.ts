/** Per test file on PostgreSQL: a fresh clone of the migrated template database, dropped afterwards. */
import { randomUUID } from 'node:crypto';
import { afterAll, inject } from 'vitest';
import { createDatabase, dropDatabase } from './pg-server';

const admin = inject('pgAdminUrl');
const name = `t_${randomUUID().replace(/-/g, '')}`;
process.env.DATABASE_URL = await createDatabase(admin, name, 'policy_template');
process.env.NEXTAUTH_SECRET = 'integration-test-secret';

afterAll(async () => {
  const { db } = await import('@/lib/db/client');
  await db().$disconnect();
  await dropDatabase(admin, name);
});
