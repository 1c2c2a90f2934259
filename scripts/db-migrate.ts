import { createDb } from '../lib/db/client';
import { applyMigrations } from '../lib/db/migrate';
import { redactedUrl } from '../lib/db/url';
import { chefOrg } from '../lib/config';
import { ensureHomeOrganization, homeOrganizationReport, HomeOrganizationError } from '../lib/services/organizations';

const applied = await applyMigrations();
console.log(applied.length ? `applied ${applied.join(', ')} to ${redactedUrl()}` : `database is up to date (${redactedUrl()})`);
// Issue 23: the home organization follows CHEF_ORG (as at start-up, scripts/prepare.ts).
const client = createDb();
try {
  for (const line of homeOrganizationReport(await ensureHomeOrganization(chefOrg(), client))) console.log(line);
} catch (e) {
  if (!(e instanceof HomeOrganizationError)) throw e;
  console.error(e.message);
  process.exitCode = 1;
} finally {
  await client.$disconnect();
}
