import { execFileSync } from 'node:child_process';
import { defineConfig, devices } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumExecutable } from './e2e/chromium';
import { E2E_SSO_CLIENT } from './e2e-sso/people';

/**
 * Issue 45's e2e suite (`playwright test -c playwright.sso.config.ts`, after `next build`): the test identity provider
 * (test/oidc/serve-provider.ts) and two consoles on the production build pointed at it, one with LOCAL_LOGIN=true and
 * one with LOCAL_LOGIN=false (each its own seeded database); e2e-sso/sso.spec.ts runs once against each (projects).
 * Ports: free ones the kernel names now, kept in the environment so Playwright's workers agree.
 */
function freePort(name: string): number {
  if (!process.env[name]) {
    const probe = "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})";
    process.env[name] = execFileSync(process.execPath, ['-e', probe], { encoding: 'utf8' }).trim();
  }
  return Number(process.env[name]);
}

const PROVIDER = freePort('SSO_PROVIDER_PORT');
const CONSOLES = { 'local-login': freePort('SSO_CONSOLE_PORT_A'), 'sso-only': freePort('SSO_CONSOLE_PORT_B') } as const;
const url = (port: number) => `http://127.0.0.1:${port}`;

const consoleServer = (project: keyof typeof CONSOLES, localLogin: string) => ({
  command: 'tsx scripts/e2e-server.ts',
  url: `${url(CONSOLES[project])}/api/health`,
  reuseExistingServer: false,
  timeout: 120_000,
  env: {
    PORT: String(CONSOLES[project]),
    DATABASE_URL: `file:./data/e2e-sso-${project}.db`,
    SEED_DEMO: 'true',
    NEXT_TELEMETRY_DISABLED: '1',
    NEXTAUTH_URL: url(CONSOLES[project]),
    OIDC_ISSUER: url(PROVIDER),
    OIDC_CLIENT_ID: E2E_SSO_CLIENT.id,
    OIDC_CLIENT_SECRET: E2E_SSO_CLIENT.secret,
    OIDC_NAME: 'Test IdP',
    OIDC_ADMIN_GROUPS: 'console-admins',
    LOCAL_LOGIN: localLogin,
  },
  stdout: 'ignore' as const,
  stderr: 'pipe' as const,
});

export default defineConfig({
  testDir: 'e2e-sso',
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  forbidOnly: true,
  // A hang guard, not a speed check (the tests wait on events).
  timeout: 120_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  use: {
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: { executablePath: chromiumExecutable(), args: CHROMIUM_ARGS },
  },
  projects: (Object.keys(CONSOLES) as (keyof typeof CONSOLES)[]).map((name) => ({ name, use: { ...devices['Desktop Chrome'], viewport: { width: 1440, height: 900 }, baseURL: url(CONSOLES[name]) } })),
  webServer: [
    {
      command: 'tsx test/oidc/serve-provider.ts',
      url: `${url(PROVIDER)}/.well-known/openid-configuration`,
      reuseExistingServer: false,
      timeout: 120_000,
      env: { SSO_PROVIDER_PORT: String(PROVIDER), SSO_REDIRECT_URIS: Object.values(CONSOLES).map((p) => `${url(p)}/api/auth/callback/oidc`).join(',') },
      stdout: 'ignore',
      stderr: 'pipe',
    },
    consoleServer('local-login', 'true'),
    consoleServer('sso-only', 'false'),
  ],
});
