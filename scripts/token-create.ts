/** npm run token:create -- <user-email> [token name]: prints the new token alone on the last line. */
import { createDb } from '../lib/db/client';
import { applyMigrations } from '../lib/db/migrate';
import { createApiToken, ZCreateApiTokenInput } from '../lib/services/users';
import { parseInput } from '../lib/validation/parse';
import { isAppError } from '../lib/errors';

const [email, name = 'cli'] = process.argv.slice(2);
if (!email) {
  console.error('usage: npm run token:create -- <user-email> [name]');
  process.exit(2);
}
await applyMigrations();
const client = createDb();
try {
  const { token, prefix } = await createApiToken(null, parseInput(ZCreateApiTokenInput, { userEmail: email, name }), client);
  console.log(`Created API token '${name}' (${prefix}…) for ${email}. It is shown once; use it as "Authorization: Bearer <token>":`);
  console.log(token);
} catch (e) {
  console.error(isAppError(e) ? e.message : e);
  process.exitCode = 1;
} finally {
  await client.$disconnect();
}
