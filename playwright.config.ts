import { execFileSync } from 'node:child_process';
import { defineConfig, devices } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumExecutable } from './e2e/chromium';
import { E2E_DB } from './e2e/seed-state';

/**
 * The e2e server's port: E2E_PORT when set, else a port the kernel says is free now (so two `npm test` runs on one
 * machine never meet). The choice goes into process.env, which Playwright's worker processes inherit: they read this
 * file again and must agree on the port.
 */
function e2ePort(): number {
  if (!process.env.E2E_PORT) {
    const probe = "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})";
    process.env.E2E_PORT = execFileSync(process.execPath, ['-e', probe], { encoding: 'utf8' }).trim();
  }
  const port = Number(process.env.E2E_PORT);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new Error(`E2E_PORT must be a TCP port, got '${process.env.E2E_PORT}'`);
  return port;
}

const PORT = e2ePort();
export const BASE_URL = `http://127.0.0.1:${PORT}`;

export default defineConfig({
  testDir: 'e2e',
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  forbidOnly: true,
  // A hang guard, not a speed check (the tests wait on events): two `npm test` at once on two cores ran the
  // longest tests past a minute.
  timeout: 120_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list'], ['html', { open: 'never' }]] : [['list']],
  globalSetup: './e2e/global-setup.ts',
  use: {
    baseURL: BASE_URL,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: chromiumExecutable(),
      args: CHROMIUM_ARGS,
    },
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'], viewport: { width: 1440, height: 900 } } }],
  webServer: {
    command: `tsx scripts/e2e-server.ts`,
    url: `${BASE_URL}/api/health`,
    reuseExistingServer: false,
    timeout: 120_000,
    env: { PORT: String(PORT), DATABASE_URL: `file:./${E2E_DB}`, SEED_DEMO: 'true', NEXT_TELEMETRY_DISABLED: '1' },
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
