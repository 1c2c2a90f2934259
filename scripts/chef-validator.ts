/**
 * npm run chef:validator -- [--stage STAGE] [--out FILE]
 * Creates the organization's validator client (<org>-validator) or rotates its
 * key, and writes the private key PEM (mode 0600) to FILE, or to stdout.
 * Issue 41: with --stage, the stage validator <org>-validator-<STAGE> instead:
 * the clients it registers may place their node only in STAGE (the plain
 * validator's enroll only into stages with open enrollment). The stage must
 * exist. Prints nothing else on stdout.
 */
import fs from 'node:fs';
import { chefOrg } from '../lib/config';
import { rotateValidator } from '../lib/services/clients';

const USAGE = 'usage: npm run chef:validator -- [--stage STAGE] [--out FILE]';
const args = process.argv.slice(2);
const opts: { out?: string; stage?: string } = {};
for (let i = 0; i < args.length; i++) {
  const flag = args[i];
  const value = args[i + 1];
  if ((flag !== '--out' && flag !== '--stage') || !value || value.startsWith('--')) {
    console.error(flag === '--out' || flag === '--stage' ? `chef:validator: ${flag} needs a value\n${USAGE}` : `chef:validator: unknown argument '${flag}'\n${USAGE}`);
    process.exit(2);
  }
  opts[flag === '--out' ? 'out' : 'stage'] = value;
  i++;
}
try {
  const v = await rotateValidator({ kind: 'system', userId: null, email: 'cli' }, chefOrg(), { stage: opts.stage });
  if (opts.out) {
    fs.writeFileSync(opts.out, v.privateKey, { mode: 0o600 });
    fs.chmodSync(opts.out, 0o600);
  } else process.stdout.write(v.privateKey);
  const scope = v.stage ? ` (its clients enroll only into stage '${v.stage}'; set validation_client_name "${v.name}")` : ' (its clients enroll into the stages with open enrollment)';
  console.error(`chef:validator: ${v.created ? 'created' : 'rotated the key of'} client '${v.name}'${scope}${opts.out ? `; private key written to ${opts.out}` : ''}`);
  process.exit(0);
} catch (e) {
  console.error(`chef:validator: ${(e as Error).message}`);
  process.exit(1);
}
