import { defineConfig, devices } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumExecutable } from './e2e/chromium';
import { E2E_WORKERS, e2eDatabaseUrl, serverPort, serverUrl } from './e2e/servers';

/** The worker slots (e2e/servers.ts): one e2e server and one database each. */
const SLOTS = Array.from({ length: E2E_WORKERS }, (_, slot) => slot);
for (const slot of SLOTS) serverPort(slot); // chosen in order, so no two slots get one port


export default defineConfig({
  testDir: 'e2e',
  // Spec files spread over the workers; a file's tests run in order in one worker, on that worker's server.
  fullyParallel: false,
  workers: E2E_WORKERS,
  retries: process.env.CI ? 1 : 0,
  forbidOnly: true,
  // A hang guard, not a speed check (the tests wait on events): two `npm test` at once on two cores ran the
  // longest tests past a minute.
  timeout: 120_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list'], ['html', { open: 'never' }]] : [['list']],
  globalSetup: './e2e/global-setup.ts',
  use: {
    // Each worker's own server: e2e/test.ts overrides baseURL with it (this one is slot 0's, for tools that read the config).
    baseURL: serverUrl(0),
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: chromiumExecutable(),
      args: CHROMIUM_ARGS,
    },
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'], viewport: { width: 1440, height: 900 } } }],
  // One server per worker slot, each on its own database (migrated and seeded by scripts/e2e-server.ts); Playwright
  // starts them one after another, all before the global setup (which signs in on each).
  webServer: SLOTS.map((slot) => ({
    command: `tsx scripts/e2e-server.ts`,
    url: `${serverUrl(slot)}/api/health`,
    reuseExistingServer: false,
    timeout: 120_000,
    env: { PORT: String(serverPort(slot)), DATABASE_URL: e2eDatabaseUrl(slot), SEED_DEMO: 'true', NEXT_TELEMETRY_DISABLED: '1' },
    stdout: 'ignore' as const,
    stderr: 'pipe' as const,
  })),
});
