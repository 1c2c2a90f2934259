/**
 * npm run chef:validator -- [--out FILE]
 * Creates the organization's validator client (<org>-validator) or rotates its
 * key, and writes the private key PEM (mode 0600) to FILE, or to stdout.
 * Prints nothing else on stdout.
 */
import fs from 'node:fs';
import { chefOrg } from '../lib/chef/router';
import { rotateValidator } from '../lib/services/chef-clients';

const args = process.argv.slice(2);
const i = args.indexOf('--out');
const out = i >= 0 ? args[i + 1] : undefined;
if (i >= 0 && !out) {
  console.error('usage: npm run chef:validator -- [--out FILE]');
  process.exit(2);
}
try {
  const v = await rotateValidator({ kind: 'system', userId: null, email: 'cli' }, chefOrg());
  if (out) {
    fs.writeFileSync(out, v.privateKey, { mode: 0o600 });
    fs.chmodSync(out, 0o600);
  } else process.stdout.write(v.privateKey);
  console.error(`chef:validator: ${v.created ? 'created' : 'rotated the key of'} client '${v.name}'${out ? `; private key written to ${out}` : ''}`);
  process.exit(0);
} catch (e) {
  console.error(`chef:validator: ${(e as Error).message}`);
  process.exit(1);
}
