/**
 * npm run chef:user-key -- <user name or email> [--out FILE] [--name KEY]
 * Adds a Chef key for a console user and writes the private key PEM (mode
 * 0600) to FILE, or to stdout. Prints nothing else on stdout.
 */
import fs from 'node:fs';
import { addUserKey } from '../lib/services/keys';

const args = process.argv.slice(2);
const opt = (flag: string) => {
  const i = args.indexOf(flag);
  if (i < 0) return undefined;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const out = opt('--out');
const name = opt('--name');
const user = args[0];
if (!user) {
  console.error('usage: npm run chef:user-key -- <user name or email> [--out FILE] [--name KEY]');
  process.exit(2);
}
try {
  const key = await addUserKey({ kind: 'system', userId: null, email: 'cli' }, user, { name });
  if (out) {
    fs.writeFileSync(out, key.privateKey, { mode: 0o600 });
    fs.chmodSync(out, 0o600);
    console.error(`chef:user-key: key '${key.keyName}' added for Chef user '${key.userName}'; private key written to ${out}`);
  } else {
    process.stdout.write(key.privateKey);
    console.error(`chef:user-key: key '${key.keyName}' added for Chef user '${key.userName}'`);
  }
  process.exit(0);
} catch (e) {
  console.error(`chef:user-key: ${(e as Error).message}`);
  process.exit(1);
}
