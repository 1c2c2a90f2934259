/** Run before the server starts: apply pending migrations, seed the demo only when asked, make sure a session secret exists. */
import { createDb } from '../lib/db/client';
import { applyMigrations } from '../lib/db/migrate';
import { databaseUrl } from '../lib/db/url';
import { authSecret } from '../lib/auth/secret';
import { seedDemo } from '../lib/seed/seed-demo';
import { DEMO_ADMIN_WARNING, demoAdminActive, demoSeedDecision } from '../lib/seed/demo-seed-policy';

const applied = await applyMigrations();
if (applied.length) console.log(`[prepare] applied migrations: ${applied.join(', ')}`);
const client = createDb();
const decision = demoSeedDecision();
if (decision.seed && (await client.user.count()) === 0) {
  console.log(`[prepare] seeding demo data into ${databaseUrl()}: ${decision.reason}. Logins in README.md; set SEED_DEMO=false to start with an empty database.`);
  await seedDemo(client);
} else if (!decision.seed && (await client.user.count()) === 0) {
  console.log(`[prepare] not seeding demo data: ${decision.reason}. Create the first admin with SEED_DEMO=true or the CLI.`);
}
if (process.env.NODE_ENV === 'production' && (await demoAdminActive(client))) {
  const bar = '!'.repeat(78);
  console.warn(`\n${bar}\n[prepare] WARNING: ${DEMO_ADMIN_WARNING}\n${bar}\n`);
}
await client.$disconnect();
authSecret();
