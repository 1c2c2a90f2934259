/**
 * Issue 45 in Chromium, through the identity provider's own login and consent pages (test/oidc/serve-provider.ts),
 * once against a console with LOCAL_LOGIN=true and once with LOCAL_LOGIN=false (playwright.sso.config.ts):
 * an administrator group maps groups to teams, a release-manager group promotes into production while a viewer
 * cannot, removal from the group takes effect at the next session refresh, and the provider down ends on a page
 * saying so (the password form still works where local login is on).
 */
import Database from 'better-sqlite3';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { DEMO_PASSWORD, DEMO_USERS } from '../lib/seed/demo-data';
import { E2E_PEOPLE, type E2ePerson } from './people';

test.describe.configure({ mode: 'serial' });

const project = () => test.info().project.name as 'local-login' | 'sso-only';
const provider = `http://127.0.0.1:${process.env.SSO_PROVIDER_PORT}`;
const dbFile = () => `data/e2e-sso-${project()}.db`;

async function control(path: string, body?: unknown, method = 'POST') {
  const res = await fetch(`${provider}/_test/${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
  expect(res.status).toBe(204);
}

/** Runs SQL on this project's console database (the server sees it at its next read). */
function sql<T>(run: (db: Database.Database) => T): T {
  const db = new Database(dbFile(), { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 30000');
    return run(db);
  } finally {
    db.close();
  }
}

test.beforeAll(async () => {
  await control('up');
  for (const [login, p] of Object.entries(E2E_PEOPLE)) await control(`people/${login}`, p);
  // Two teams with stage grants (the demo seed grants people, not teams): release may promote into production.
  sql((db) => {
    const stage = (name: string) => (db.prepare('SELECT id FROM "PolicyGroup" WHERE name = ?').get(name) as { id: string }).id;
    const grant = db.prepare('INSERT OR IGNORE INTO "GroupPermission" (id, "groupId", "teamId", level) VALUES (?, ?, ?, ?)');
    db.prepare(`INSERT OR IGNORE INTO "Team" (id, name, description) VALUES ('team-release', 'release', 'Release managers'), ('team-readers', 'readers', 'Read-only')`).run();
    for (const s of ['dev', 'qa', 'staging', 'production']) {
      grant.run(`gp-readers-${s}`, stage(s), 'team-readers', 'view');
      grant.run(`gp-release-${s}`, stage(s), 'team-release', s === 'production' ? 'promote' : 'view');
    }
  });
});

/** Through the provider's own pages: the console's button, the provider's login form, its consent page. */
async function ssoSignIn(page: Page, who: E2ePerson) {
  await page.goto('/login');
  await page.getByTestId('sso-button').click();
  await expect(page).toHaveURL(new RegExp(`^${provider}/interaction/`));
  await page.getByLabel('Username').fill(who);
  await page.getByLabel('Password').fill(E2E_PEOPLE[who].password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Allow access' })).toBeVisible();
  await page.getByRole('button', { name: 'Allow' }).click();
  await expect(page.getByTestId('user-menu')).toContainText(E2E_PEOPLE[who].email);
}

async function signedIn(browser: Browser, who: E2ePerson): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await ssoSignIn(page, who);
  return page;
}

const stagingCell = (page: Page) => page.locator('tr[data-policy="webapp"] td[data-stage="staging"]');

test('an administrator group: an administrator maps groups to teams in Admin → Teams; the account page shows the linked identity', async ({ page }) => {
  await ssoSignIn(page, 'ada');
  await expect(page.getByTestId('user-menu')).toContainText('admin');
  await page.goto('/admin/teams');
  for (const [team, group] of [
    ['release', 'release-managers'],
    ['readers', 'viewers'],
  ]) {
    const card = page.locator(`[data-team="${team}"]`);
    await card.getByRole('button', { name: /^Edit/ }).click();
    await card.getByRole('textbox', { name: /Identity-provider groups/ }).fill(group);
    await card.getByRole('button', { name: 'Save groups' }).click();
    await expect(card.getByTestId('team-idp-groups')).toContainText(group);
  }
  await page.goto('/account');
  await expect(page.getByTestId('sign-in-method')).toContainText('signed in through Test IdP');
  await expect(page.getByTestId('linked-identity')).toContainText('ada');
  await expect(page.getByTestId('linked-identity')).toContainText('console-admins');
});

test('a release manager promotes into production; a viewer cannot', async ({ browser }) => {
  const rel = await signedIn(browser, 'rel');
  await rel.goto('/');
  await stagingCell(rel).getByTestId('promote-button').click();
  const dialog = rel.getByTestId('promote-dialog');
  await dialog.getByLabel(/Reason/).fill('e2e: release through single sign-on');
  await dialog.getByRole('button', { name: 'Promote to production' }).click();
  // Production is protected in the demo: the promotion becomes a request (the right to promote was granted).
  await expect(rel.getByTestId('request-created')).toContainText('Request created');

  const vic = await signedIn(browser, 'vic');
  await vic.goto('/');
  await expect(vic.locator('tr[data-policy="webapp"]')).toBeVisible();
  await expect(stagingCell(vic).getByTestId('promote-button')).toHaveCount(0);
});

test('removed from the group: nothing changes before the session refresh, the next request after it is refused', async ({ browser }) => {
  const rel = await signedIn(browser, 'rel');
  await rel.goto('/');
  await expect(stagingCell(rel).getByTestId('promote-button')).toHaveCount(1);
  await control('people/rel', { ...E2E_PEOPLE.rel, groups: ['everyone'] });
  await rel.reload();
  await expect(stagingCell(rel).getByTestId('promote-button')).toHaveCount(1);
  // The refresh is due (as after OIDC_REFRESH_SECONDS): the last confirmation moved an hour back.
  sql((db) => {
    const row = db.prepare(`SELECT i."syncedAt" AS at FROM "OidcIdentity" i JOIN "User" u ON u.id = i."userId" WHERE u.email = ?`).get(E2E_PEOPLE.rel.email) as { at: string | number };
    const earlier = typeof row.at === 'number' ? row.at - 3_600_000 : new Date(Date.parse(String(row.at)) - 3_600_000).toISOString();
    db.prepare(`UPDATE "OidcIdentity" SET "syncedAt" = ? WHERE "userId" = (SELECT id FROM "User" WHERE email = ?)`).run(earlier, E2E_PEOPLE.rel.email);
  });
  await rel.goto('/');
  await expect(rel).toHaveURL(/\/login/);
  // Signing in again says why.
  await rel.getByTestId('sso-button').click();
  await expect(rel.getByTestId('sign-in-error')).toHaveAttribute('data-reason', 'no-groups');
});

test('the provider down: a page that says so; the password form works only where local login is on', async ({ page, request }) => {
  const admin = DEMO_USERS.find((u) => u.isAdmin)!.email;
  await control('down');
  try {
    await page.goto('/login');
    await page.getByTestId('sso-button').click();
    const error = page.getByTestId('sign-in-error');
    await expect(error).toHaveAttribute('data-reason', 'provider-down');
    await expect(error).toContainText('Test IdP could not be reached');
    await page.getByRole('link', { name: 'Back to sign-in' }).click();
    if (project() === 'local-login') {
      await expect(error).toHaveCount(0);
      await page.getByLabel('Email').fill(admin);
      await page.getByLabel('Password').fill(DEMO_PASSWORD);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await expect(page.getByTestId('user-menu')).toContainText(admin);
    } else {
      await expect(error).toHaveCount(0);
      await expect(page.getByText('Password sign-in is turned off on this console')).toHaveCount(0);
      await expect(page.getByLabel('Password')).toHaveCount(0);
      // Posting a password anyway is refused.
      const { csrfToken } = await (await request.get('/api/auth/csrf')).json();
      const res = await request.post('/api/auth/callback/credentials', { form: { csrfToken, email: admin, password: DEMO_PASSWORD, json: 'true' } });
      expect(decodeURIComponent((await res.json()).url)).toContain('error=local-login-off');
      expect((await (await request.get('/api/auth/session')).json())?.user).toBeUndefined();
    }
  } finally {
    await control('up');
  }
});
