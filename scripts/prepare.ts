/**
 * Run before the server starts: apply pending migrations to whichever database
 * DATABASE_URL names (SQLite file or PostgreSQL), seed the demo only when asked,
 * make sure a session secret exists. Safe when several instances start at once
 * on one PostgreSQL database: the engine migrates under an advisory lock, and
 * seeding re-checks for users under another (lib/seed/seed-demo.ts). The home
 * organization is kept named after CHEF_ORG (issue 23, lib/services/organizations/organizations.ts);
 * start-up stops when another organization has that name.
 */
import { createDb } from '../lib/db/client';
import { chefOrg } from '../lib/config';
import { applyMigrations } from '../lib/db/migrate';
import { databaseProvider, redactedUrl } from '../lib/db/url';
import { authSecret } from '../lib/auth/secret';
import { seedDemo } from '../lib/seed/seed-demo';
import { ensureHomeOrganization, homeOrganizationReport, HomeOrganizationError } from '../lib/services/organizations';
import { mintSetupCode, setupAnnouncement } from '../lib/services/users';
import { DEMO_ADMIN_WARNING, demoAdminActive, demoSeedDecision } from '../lib/seed/demo-seed-policy';

const applied = await applyMigrations();
if (applied.length) console.log(`[prepare] applied migrations to the ${databaseProvider()} database: ${applied.join(', ')}`);
const client = createDb();
try {
  for (const line of homeOrganizationReport(await ensureHomeOrganization(chefOrg(), client))) console.log(`[prepare] ${line}`);
} catch (e) {
  if (!(e instanceof HomeOrganizationError)) throw e;
  console.error(`[prepare] ${e.message}`);
  await client.$disconnect();
  process.exit(1);
}
const decision = demoSeedDecision();
if (decision.seed && (await client.user.count()) === 0) {
  console.log(`[prepare] seeding demo data into ${redactedUrl()}: ${decision.reason}. Logins in README.md; set SEED_DEMO=false to start with an empty database.`);
  const { seeded } = await seedDemo(client);
  if (!seeded) console.log('[prepare] another instance seeded the database first: seed skipped');
} else if (!decision.seed && (await client.user.count()) === 0) {
  console.log(`[prepare] not seeding demo data: ${decision.reason}.`);
}
// Issue 42: while no administrator is active, a one-time setup code for the first-run page (any instance takes it).
const setup = await mintSetupCode(client);
if (setup) for (const line of setupAnnouncement(setup, process.env.PUBLIC_URL)) console.log(`[prepare] ${line}`);
if (process.env.NODE_ENV === 'production' && (await demoAdminActive(client))) {
  const bar = '!'.repeat(78);
  console.warn(`\n${bar}\n[prepare] WARNING: ${DEMO_ADMIN_WARNING}\n${bar}\n`);
}
await client.$disconnect();
authSecret();
