import { expect, test, type Page } from './test';
import { stateFile } from './roles';

/** Counts the requests whose path matches, from now on. */
function countRequests(page: Page, path: RegExp, method = 'POST') {
  const seen = { n: 0, bodies: [] as string[] };
  page.on('request', (r) => {
    if (r.method() === method && path.test(new URL(r.url()).pathname)) {
      seen.n++;
      seen.bodies.push(r.postData() ?? '');
    }
  });
  return seen;
}

test.describe('as an admin', () => {
  test.use({ storageState: stateFile('admin') });

  test("a refused team name is explained under the field by the server's rule, and nothing is created", async ({ page }) => {
    const name = `team-${Date.now().toString(36)}`;
    await page.goto('/admin/teams');
    const form = page.getByRole('form', { name: 'Create a team' });
    const field = form.getByLabel('New team');
    // The browser holds no copy of the rule: no pattern attribute, the server decides.
    await expect(field).not.toHaveAttribute('pattern');
    await field.fill('Not A Team!');
    await form.getByRole('button', { name: 'Create team' }).click();
    await expect(field).toHaveAttribute('aria-invalid', 'true');
    const describedBy = (await field.getAttribute('aria-describedby'))!;
    const message = page.locator(`[id="${describedBy}"]`);
    await expect(message).toContainText(/lowercase|letters|digits/i);
    await expect(page.getByText('Some fields are invalid')).toHaveCount(0);
    await expect(page.locator(`[data-team="not-a-team"]`)).toHaveCount(0);

    // The typed value stays for correcting; a valid one is created and the error goes away.
    await expect(field).toHaveValue('Not A Team!');
    await field.fill(name);
    await form.getByRole('button', { name: 'Create team' }).click();
    await expect(page.locator(`[data-team="${name}"]`)).toBeVisible();
    await expect(field).not.toHaveAttribute('aria-invalid');
    await expect(field).toHaveValue('');
  });

  test('a stage name the server refuses is shown on the stage field, and no stage appears', async ({ page }) => {
    await page.goto('/admin/stages');
    const form = page.getByRole('form', { name: 'Add a stage' });
    const field = form.getByLabel('New stage');
    await expect(field).not.toHaveAttribute('pattern');
    await field.fill('no spaces here');
    await form.getByRole('button', { name: 'Add stage (last in order)' }).click();
    await expect(field).toHaveAttribute('aria-invalid', 'true');
    await expect(page.locator(`[id="${await field.getAttribute('aria-describedby')}"]`)).toContainText(/letters, digits/);
    await expect(page.locator('tr[data-stage="no spaces here"]')).toHaveCount(0);
  });
});

test.describe('previews', () => {
  test.use({ storageState: stateFile('dev') });

  test('typing a git repository name character by character asks the server only once the typing stops', async ({ page }) => {
    const name = 'not-registered-repo';
    const composes = countRequests(page, /\/api\/v1\/policies\/webapp\/compose$/);
    await page.goto('/compose?policy=webapp');
    await page.getByLabel('Run list', { exact: true }).fill('webapp::default');
    await page.getByRole('button', { name: 'Add include' }).click();
    await page.getByLabel('Include 1 source').selectOption('git');
    await expect(page.getByTestId('conflicts')).toBeVisible();
    const repository = page.getByLabel('Registered repository (name)');
    const answered = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/api/v1/policies/webapp/compose' && (r.request().postData() ?? '').includes(`"${name}"`));
    await repository.pressSequentially(name, { delay: 60 });
    await expect(repository).toHaveValue(name);
    await answered;
    await expect(page.getByTestId('conflicts')).toContainText(`'${name}' is not a registered git repository`);
    // Not a count over time: no request carried a part of the name (each would be a preview of a half-typed name),
    // and the full name was asked for once.
    const partial = (b: string) => Array.from({ length: name.length - 1 }, (_, i) => `"${name.slice(0, i + 1)}"`).some((p) => b.includes(p));
    expect(composes.bodies.filter(partial)).toEqual([]);
    expect(composes.bodies.filter((b) => b.includes(`"${name}"`))).toHaveLength(1);
  });

  test('ordering and resource-map previews are computed in the browser: editing sends no request', async ({ page }) => {
    const previews = countRequests(page, /\/api\/v1\/(ordering|resource-map)\/preview$/);
    await page.goto('/ordering');
    await page.getByLabel('Scenario').selectOption({ label: 'Rudder doc example 2 (shared)' });
    const b = page.locator('[data-policy-technique="B"]');
    await page.getByLabel('Priority of B1').selectOption('0');
    await expect(b.getByTestId('value-order')).toContainText('Values in order: [B1, B2]');
    await page.goto('/resource-map');
    await page.getByLabel('Resource name').fill('package');
    await page.getByLabel('Class', { exact: true }).fill('Acme::Package');
    await page.getByRole('button', { name: 'Add registration' }).click();
    await expect(page.getByTestId('refused')).toContainText('Acme::Package for package: the name is locked by core');
    expect(previews.n).toBe(0);
  });
});
