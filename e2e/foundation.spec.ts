import { expect, test } from './test';
import { e2eDatabaseUrl } from './servers';
import { execFileSync } from 'node:child_process';
import { DEMO_PASSWORD, ROLES, stateFile, type Role } from './roles';

test.describe('signing in', () => {
  test('a visitor without a session is sent to /login', async ({ page }) => {
    await page.goto('/policies');
    await expect(page).toHaveURL(/\/login\?callbackUrl=%2Fpolicies/);
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  });

  test('a wrong password shows a clear error', async ({ page }) => {
    await page.goto('/login');
    await page.getByLabel('Email').fill(ROLES.viewer);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').filter({ hasText: /Wrong email or password/ })).toBeVisible();
    await expect(page).toHaveURL(/\/login/);
  });

  test('signing in through the form lands on the stage board', async ({ page }) => {
    await page.goto('/login');
    await page.getByLabel('Email').fill(ROLES.release);
    await page.getByLabel('Password').fill(DEMO_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('heading', { name: 'Stages' })).toBeVisible();
    await page.getByTestId('user-menu').click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(/\/login/);
  });
});

for (const role of Object.keys(ROLES) as Role[]) {
  test.describe(`as ${role}`, () => {
    test.use({ storageState: stateFile(role) });
    test('sees the shell with every section', async ({ page }) => {
      await page.goto('/');
      const nav = page.getByRole('navigation', { name: 'Main' });
      for (const label of ['Stages', 'Policies', 'Compare', 'Compose', 'Ordering', 'Resource map', 'Audit']) {
        await expect(nav.getByRole('link', { name: label, exact: true })).toBeVisible();
      }
      // Issue 43: Admin only for those who may use an Admin page (of the demo's roles, the administrator).
      await expect(nav.getByRole('link', { name: 'Admin', exact: true })).toHaveCount(role === 'admin' ? 1 : 0);
      await expect(page.getByTestId('user-menu')).toContainText(ROLES[role]);
      await expect(page.getByTestId('stage-board')).toContainText('webapp');
    });
  });
}

test.describe('API tokens', () => {
  test('no token 401, revoked token 401, valid token 200', async ({ playwright, baseURL }) => {
    const token = execFileSync('npx', ['tsx', 'scripts/token-create.ts', ROLES.viewer, 'e2e'], { env: { ...process.env, DATABASE_URL: e2eDatabaseUrl() } })
      .toString()
      .trim()
      .split('\n')
      .pop()!;
    const anon = await playwright.request.newContext({ baseURL });
    const none = await anon.get('/api/v1/policies');
    expect(none.status()).toBe(401);
    expect((await none.json()).error[0]).toMatch(/Authentication required/);

    const withToken = await playwright.request.newContext({ baseURL, extraHTTPHeaders: { authorization: `Bearer ${token}` } });
    expect((await withToken.get('/api/v1/policies')).status()).toBe(200);

    const bad = await playwright.request.newContext({ baseURL, extraHTTPHeaders: { authorization: `Bearer ${token}x` } });
    expect((await bad.get('/api/v1/policies')).status()).toBe(401);

    execFileSync('npx', ['tsx', 'scripts/token-revoke.ts', token], { env: { ...process.env, DATABASE_URL: e2eDatabaseUrl() } });
    expect((await withToken.get('/api/v1/policies')).status()).toBe(401);
    await Promise.all([anon.dispose(), withToken.dispose(), bad.dispose()]);
  });

  test('health needs no login', async ({ request }) => {
    const res = await request.get('/api/health');
    expect(res.status()).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok', database: 'up' });
  });
});
