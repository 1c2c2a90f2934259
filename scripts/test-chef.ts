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
import { ensureProductionBuild } from './production-build';
import { findPgBin } from '../test/pg-server';
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
// Issue 47's automatic promotion runs two console instances on one PostgreSQL database, started as the README
// starts them (npm run serve): it needs PostgreSQL, openssl (the second instance serves HTTPS) and the production build.
const AUTO = 'test/chef/auto-promote.chef.test.ts';
const named = process.argv.slice(2).filter((a) => a.endsWith('.ts'));
if (!named.length || named.some((a) => a.includes('auto-promote'))) {
  const noPg = !findPgBin() ? 'PostgreSQL is not installed (no initdb/pg_ctl; apt-get install -y postgresql, or set PG_BIN)' : null;
  const noSsl = spawnSync('sh', ['-c', 'command -v openssl'], { stdio: 'ignore' }).status !== 0 ? 'openssl is missing' : null;
  if (noPg || noSsl) {
    const line = `test:chef: automatic promotion (two instances on PostgreSQL) NOT RUN: ${noPg ?? noSsl}.`;
    if (process.env.POSTGRES_TESTS === 'required') {
      console.error(line + ' POSTGRES_TESTS=required, so this is a failure.');
      process.exit(1);
    }
    console.log(line);
    extra.push('--exclude', AUTO);
  } else ensureProductionBuild('test:chef');
}
const r = spawnSync('npx', ['vitest', 'run', '--project', 'chef', ...extra, ...process.argv.slice(2)], { env, stdio: 'inherit' });
process.exit(r.status ?? 1);
