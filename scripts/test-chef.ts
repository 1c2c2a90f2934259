/**
 * `npm run test:chef`: the suites that need the real Chef tools (interop with
 * knife, chef-cli and chef-client; the live differential suite against
 * `chef install`). Finds the toolchain on PATH, or the one
 * Chef toolchain setup script installs (~/.cache/chef-toolchain, or
 * CHEF_TOOLCHAIN_DIR). Without it: one line saying the suites did not run, and
 * a failure when CHEF_INTEROP=required (CI).
 *
 * Chef Server's conformance suite (oc-chef-pedant, test/chef/pedant.chef.test.ts)
 * runs too when the chef-pedant setup script has installed it (~/.cache/chef-pedant,
 * or CHEF_PEDANT_DIR); without it, one line NOT RUN, the other suites still run,
 * and a failure when CHEF_INTEROP=required.
 */
import { spawnSync } from 'node:child_process';
import { chefToolchainEnv } from './chef-toolchain';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const { env, missing } = chefToolchainEnv();
if (missing.length) {
  const line = `test:chef: NOT RUN: the Chef toolchain is missing (${missing.join(', ')} not on PATH); install Chef Workstation, or run the setup.sh of the shared chef-toolchain folder.`;
  if (process.env.CHEF_INTEROP === 'required') {
    console.error(line + ' CHEF_INTEROP=required, so this is a failure.');
    process.exit(1);
  }
  console.log(line);
  process.exit(0);
}
env.CHEF_TOOLCHAIN = 'present';

const pedantHome = process.env.CHEF_PEDANT_DIR || path.join(os.homedir(), '.cache/chef-pedant');
const pedantMissing = !fs.existsSync(path.join(pedantHome, 'run.sh'))
  ? `oc-chef-pedant is not installed in ${pedantHome}`
  : spawnSync('sh', ['-c', 'ruby -e "require %q{rspec/core}; require %q{rest-client}"'], { env, stdio: 'ignore' }).status !== 0
    ? 'ruby with rspec and rest-client is missing'
    : null;
const extra: string[] = [];
if (pedantMissing) {
  const line = `test:chef: pedant NOT RUN: ${pedantMissing}; run the setup.sh of the shared chef-pedant folder (or set CHEF_PEDANT_DIR).`;
  if (process.env.CHEF_INTEROP === 'required') {
    console.error(line + ' CHEF_INTEROP=required, so this is a failure.');
    process.exit(1);
  }
  console.log(line);
  extra.push('--exclude', 'test/chef/pedant.chef.test.ts');
} else {
  env.CHEF_PEDANT_DIR = pedantHome;
}
const r = spawnSync('npx', ['vitest', 'run', '--project', 'chef', ...extra, ...process.argv.slice(2)], { env, stdio: 'inherit' });
process.exit(r.status ?? 1);
