/**
 * `npm run test:deployed` (issue 40): the production build started exactly as the README's commands start it
 * (`npm run serve` after a build), in each deployment the README offers — SQLite, one instance; PostgreSQL, two
 * instances on one database with one NEXTAUTH_SECRET, the second serving HTTPS (TLS_CERT_FILE/TLS_KEY_FILE) —
 * and driven as users drive it: every demo persona in Chromium on every page, alternating instances (on SQLite admin
 * and viewer only: the PostgreSQL sweep takes every persona, the e2e suite covers the SQLite pages); the bearer
 * API's reads; knife and a real chef-client through each instance; a promotion race across the instances; the
 * workers' results (webhook delivery, a scheduled promotion, a gated ring's rollback). test/deployed/ has the
 * tests (vitest project `deployed`).
 *
 * The build: reused when `.next` holds a production build newer than every source file (as `npm test` leaves it
 * after test:e2e's `next build`); otherwise built here with `next build`, as `npm start` does.
 *
 * What is missing on this machine is said in one line each, and those parts do not run (nothing pretends to
 * pass): PostgreSQL (the second deployment) — a failure with POSTGRES_TESTS=required; the Chef tools (knife,
 * chef-client, the ring's real node) — a failure with CHEF_INTEROP=required; Chromium (the page sweep) — a
 * failure when either is set (CI).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { findPgBin } from '../test/pg-server';
import { chromiumAvailable } from '../e2e/chromium';
import { chefToolchainEnv } from './chef-toolchain';
import { ensureProductionBuild } from './production-build';

const ROOT = path.resolve(import.meta.dirname, '..');
const ci = process.env.CHEF_INTEROP === 'required' || process.env.POSTGRES_TESTS === 'required';
const notRun: string[] = [];
let failed = false;
function missing(line: string, required: boolean, why: string): void {
  notRun.push(line);
  if (required) {
    console.error(`test:deployed: NOT RUN: ${line} ${why}, so this is a failure.`);
    failed = true;
  } else console.log(`test:deployed: NOT RUN: ${line}`);
}

const { env, missing: chefMissing } = chefToolchainEnv();
const pg = findPgBin();
const openssl = spawnSync('sh', ['-c', 'command -v openssl'], { stdio: 'ignore' }).status === 0;
if (!pg || !openssl) {
  missing(
    `the PostgreSQL deployment (two instances, one over HTTPS): ${!pg ? 'PostgreSQL is not installed (no initdb/pg_ctl; Debian: apt-get install -y postgresql, or set PG_BIN)' : 'openssl is missing (it makes the HTTPS certificate)'}.`,
    process.env.POSTGRES_TESTS === 'required',
    'POSTGRES_TESTS=required',
  );
}
if (chefMissing.length) {
  env.DEPLOYED_CHEF = 'missing';
  missing(
    `knife, chef-client and the ring rollback's real node: the Chef toolchain is missing (${chefMissing.join(', ')} not on PATH; install Chef Workstation, or run the setup.sh of the shared chef-toolchain folder).`,
    process.env.CHEF_INTEROP === 'required',
    'CHEF_INTEROP=required',
  );
}
if (!chromiumAvailable()) {
  env.DEPLOYED_CHROMIUM = 'missing';
  missing('the personas’ page sweep: no Chromium (npx playwright install chromium, or apt-get install chromium, or set CHROMIUM_PATH).', ci, 'CI (CHEF_INTEROP or POSTGRES_TESTS required)');
}
if (failed) process.exit(1);

ensureProductionBuild('test:deployed');

// Arguments go to vitest; test files named there replace the default choice (e.g. one deployment only).
const args = process.argv.slice(2);
const files = args.some((a) => a.endsWith('.ts')) ? [] : ['test/deployed/sqlite.deployed.test.ts', ...(pg && openssl ? ['test/deployed/postgres.deployed.test.ts'] : [])];
const r = spawnSync('npx', ['vitest', 'run', '--project', 'deployed', ...files, ...args], { cwd: ROOT, env, stdio: 'inherit' });
if (notRun.length) console.log(`test:deployed: ${notRun.length} part(s) NOT RUN on this machine (above); the rest ${r.status === 0 ? 'passed' : 'failed'}.`);
process.exit(r.status ?? 1);
