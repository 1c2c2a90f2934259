import fs from 'node:fs';
import { chromium, defineConfig, devices } from '@playwright/test';

/**
 * Playwright's own Chromium when it is installed (`npx playwright install chromium`),
 * else a system Chromium: CHROMIUM_PATH, then /usr/bin/chromium (Debian's package).
 */
function chromiumExecutable(): string | undefined {
  const managed = (() => {
    try {
      return chromium.executablePath();
    } catch {
      return undefined;
    }
  })();
  if (managed && fs.existsSync(managed)) return undefined; // Playwright finds its own browser.
  for (const candidate of [process.env.CHROMIUM_PATH, '/usr/bin/chromium']) if (candidate && fs.existsSync(candidate)) return candidate;
  return process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
}

const PORT = Number(process.env.E2E_PORT ?? 3100);
export const BASE_URL = `http://127.0.0.1:${PORT}`;

export default defineConfig({
  testDir: 'e2e',
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  forbidOnly: true,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list'], ['html', { open: 'never' }]] : [['list']],
  globalSetup: './e2e/global-setup.ts',
  use: {
    baseURL: BASE_URL,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: chromiumExecutable(),
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    },
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'], viewport: { width: 1440, height: 900 } } }],
  webServer: {
    command: `tsx scripts/e2e-server.ts`,
    url: `${BASE_URL}/api/health`,
    reuseExistingServer: false,
    timeout: 120_000,
    env: { PORT: String(PORT), DATABASE_URL: 'file:./data/e2e.db', SEED_DEMO: 'true', NEXT_TELEMETRY_DISABLED: '1' },
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
