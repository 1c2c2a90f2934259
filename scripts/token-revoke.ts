/** npm run token:revoke -- <token>: revokes an API token given its secret. */
import { createDb } from '../lib/db/client';
import { revokeApiToken } from '../lib/services/users';
import { isAppError } from '../lib/errors';

const token = process.argv[2];
if (!token) {
  console.error('usage: npm run token:revoke -- <token>');
  process.exit(2);
}
const client = createDb();
try {
  await revokeApiToken(null, { token }, client);
  console.log('revoked');
} catch (e) {
  console.error(isAppError(e) ? e.message : e);
  process.exitCode = 1;
} finally {
  await client.$disconnect();
}
