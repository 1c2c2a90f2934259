/** Run before the server starts: apply pending migrations, seed an empty database, make sure a session secret exists. */
import { createDb } from '../lib/db/client';
import { applyMigrations } from '../lib/db/migrate';
import { databaseUrl } from '../lib/db/url';
import { authSecret } from '../lib/auth/secret';
import { seedDemo } from '../lib/services/seed-demo';

const applied = await applyMigrations();
if (applied.length) console.log(`[prepare] applied migrations: ${applied.join(', ')}`);
if (process.env.SEED_DEMO !== 'false') {
  const client = createDb();
  const { seeded } = await seedDemo(client);
  if (seeded) console.log(`[prepare] seeded demo data into ${databaseUrl()} (logins in README.md)`);
  await client.$disconnect();
}
authSecret();
