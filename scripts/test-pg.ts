/**
 * `npm run test:integration:pg`: the integration suite on PostgreSQL, on a
 * throwaway server started from the installed binaries (Debian's
 * `postgresql` package; see test/pg-server.ts). Without them: one line
 * saying the run did not happen, and a failure when POSTGRES_TESTS=required
 * (CI, .ci/run).
 */
import { spawnSync } from 'node:child_process';
import { findPgBin } from '../test/pg-server';

if (!findPgBin()) {
  const line = 'test:integration:pg: NOT RUN: PostgreSQL is not installed (no initdb/pg_ctl on PATH, in /usr/local/bin or /usr/lib/postgresql/*/bin); install it (Debian: apt-get install -y postgresql) or set PG_BIN.';
  if (process.env.POSTGRES_TESTS === 'required') {
    console.error(line + ' POSTGRES_TESTS=required, so this is a failure.');
    process.exit(1);
  }
  console.log(line);
  process.exit(0);
}
const r = spawnSync('npx', ['vitest', 'run', '--project', 'integration-pg', ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(r.status ?? 1);
