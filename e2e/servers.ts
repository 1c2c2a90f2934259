/**
 * The e2e suite runs E2E_WORKERS Playwright workers, each against its own e2e server (scripts/e2e-server.ts) on its
 * own SQLite database: worker slot i (Playwright's parallelIndex, 0..E2E_WORKERS-1, kept by a worker restarted after
 * a failure) talks to server i on port E2E_PORT_<i> and database data/e2e-<i>.db. Nothing is shared between slots but
 * the session secret (data/.auth-secret) and the build. e2e/test.ts points `baseURL` (so `page.goto('/…')`,
 * `page.request`, `browser.newContext()`) at the worker's server; e2e/roles.ts's `stateFile` and e2e/seed-state.ts
 * follow the worker's slot on their own. A spec only needs the `test` of e2e/test.ts and relative URLs; when it needs
 * the absolute origin (a CSRF `origin` header) it takes `serverUrl()` or `new URL(page.url()).origin`, and a
 * command it runs on the database takes `e2eDatabaseUrl()`.
 */
import { execFileSync } from 'node:child_process';

/**
 * How many workers (and servers): E2E_WORKERS when set, else 2. On the 2-core CI machine two workers took the
 * suite from 942 s to 772 s (the ci-speed branch's measurements): each test runs slower, as a production Next.js
 * server and a Chromium per worker share the two cores, so more workers than cores buy nothing.
 */
export const E2E_WORKERS = ((): number => {
  const n = Number(process.env.E2E_WORKERS ?? 2);
  if (!Number.isInteger(n) || n < 1 || n > 8) throw new Error(`E2E_WORKERS must be a whole number from 1 to 8, got '${process.env.E2E_WORKERS}'`);
  return n;
})();

/** This process's worker slot: Playwright's parallelIndex in a worker, 0 in the runner (the global setup passes its own). */
export function workerSlot(): number {
  const slot = Number(process.env.TEST_PARALLEL_INDEX ?? 0);
  if (!Number.isInteger(slot) || slot < 0 || slot >= E2E_WORKERS) throw new Error(`worker slot ${process.env.TEST_PARALLEL_INDEX} is outside 0..${E2E_WORKERS - 1}`);
  return slot;
}

/**
 * Server `slot`'s port: E2E_PORT_<slot> when set, else a port the kernel says is free now (so two runs on one machine
 * never meet). The runner chooses when it reads playwright.config.ts, and the choice goes into process.env, which the
 * worker processes inherit: they read the config again and must agree.
 */
export function serverPort(slot: number): number {
  const name = `E2E_PORT_${slot}`;
  if (!process.env[name]) {
    const probe = "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})";
    const taken = new Set(Array.from({ length: slot }, (_, i) => process.env[`E2E_PORT_${i}`]));
    let port: string;
    do port = execFileSync(process.execPath, ['-e', probe], { encoding: 'utf8' }).trim();
    while (taken.has(port));
    process.env[name] = port;
  }
  const port = Number(process.env[name]);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new Error(`${name} must be a TCP port, got '${process.env[name]}'`);
  return port;
}

/** Server `slot`'s origin (this worker's by default). */
export const serverUrl = (slot: number = workerSlot()): string => `http://127.0.0.1:${serverPort(slot)}`;

/** Server `slot`'s database file, relative to the repository (this worker's by default). */
export const e2eDb = (slot: number = workerSlot()): string => `data/e2e-${slot}.db`;

/** DATABASE_URL of server `slot` (this worker's by default), for a script a spec runs on the server's database. */
export const e2eDatabaseUrl = (slot: number = workerSlot()): string => `file:./${e2eDb(slot)}`;
