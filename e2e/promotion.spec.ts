import { expect, test, type Page } from '@playwright/test';
import { approveUntilApplied, createdRequestId } from './approvals';
import { stateFile } from './roles';

const cell = (page: Page, policy: string, stage: string) => page.locator(`tr[data-policy="${policy}"] td[data-stage="${stage}"]`);
const revOf = async (page: Page, policy: string, stage: string) => (await cell(page, policy, stage).locator('a.mono').first().getAttribute('title')) ?? '';

test.describe.serial('promotion', () => {
  test('release promotes webapp staging → production from the board', async ({ browser }) => {
    const page = await (await browser.newContext({ storageState: stateFile('release') })).newPage();
    await page.goto('/');
    const staging = await revOf(page, 'webapp', 'staging');
    expect(await revOf(page, 'webapp', 'production')).not.toBe(staging);
    await cell(page, 'webapp', 'staging').getByTestId('promote-button').click();
    const dialog = page.getByTestId('promote-dialog');
    await expect(dialog.getByTestId('blast-radius')).toContainText('8 nodes in production run webapp');
    await expect(dialog).toContainText('upgraded');
    await dialog.getByLabel(/Reason/).fill('e2e: release webapp');
    await dialog.getByRole('button', { name: 'Promote to production' }).click();
    // Production is protected (issue 15): the promotion becomes a request; approved, it moves.
    await expect(page.getByTestId('request-created')).toContainText('Request created: needs 2 approvals');
    await approveUntilApplied(browser, await createdRequestId(page));
    await page.goto('/');
    await expect.poll(() => revOf(page, 'webapp', 'production')).toBe(staging);
    await expect(cell(page, 'webapp', 'production')).toContainText('same as staging');
    await page.goto('/audit?action=pointer.promote');
    await expect(page.getByTestId('audit-table')).toContainText('e2e: release webapp');
  });

  test('release promotes only nginx for api-gateway and finds the derived revision', async ({ browser }) => {
    const page = await (await browser.newContext({ storageState: stateFile('release') })).newPage();
    await page.goto('/compare?policy=api-gateway&from=staging&to=production');
    const row = page.locator('[data-cookbook="nginx"]');
    await expect(row).toContainText('upgraded · minor');
    await row.getByTestId('promote-cookbook').click();
    const dialog = page.getByTestId('promote-dialog');
    await expect(dialog.getByTestId('dependency-ok')).toContainText('nginx 11.5.0 → 11.6.2');
    await dialog.getByRole('button', { name: 'Promote nginx to production' }).click();
    await expect(page.getByTestId('request-created')).toContainText(/Request created: needs \d approvals?/);
    await approveUntilApplied(browser, await createdRequestId(page));
    await page.goto('/policies/api-gateway');
    const derived = page.locator('[data-testid="revisions-table"] tr', { hasText: 'cookbook nginx from staging' });
    await expect(derived).toHaveCount(1);
    await expect(derived).toContainText('production');
    await derived.locator('a.mono').click();
    await expect(page.getByText('cookbook nginx from staging')).toBeVisible();
  });

  test('dev sees no promote action on production, and a forged server-action call is refused', async ({ browser }) => {
    const page = await (await browser.newContext({ storageState: stateFile('dev') })).newPage();
    await page.goto('/');
    await expect(cell(page, 'haproxy-lb', 'staging').getByTestId('promote-button')).toHaveCount(0);
    await expect(page.getByTestId('bulk-promote-production')).toHaveCount(0);
    const before = await revOf(page, 'haproxy-lb', 'production');

    // Open a dialog dev may use (dev → qa), then rewrite the action's arguments to target production.
    await page.route('**/*', async (route) => {
      const req = route.request();
      if (req.method() === 'POST' && req.headers()['next-action'] && (req.postData() ?? '').includes('"to":"qa"')) {
        const forged = req.postData()!.replace('"policy":"jenkins-ci"', '"policy":"haproxy-lb"').replace('"from":"dev"', '"from":"staging"').replace('"to":"qa"', '"to":"production"');
        await route.continue({ postData: forged });
      } else await route.continue();
    });
    await cell(page, 'jenkins-ci', 'dev').getByTestId('promote-button').click();
    const dialog = page.getByTestId('promote-dialog');
    await dialog.getByRole('button', { name: 'Promote to qa' }).click();
    await expect(dialog.getByRole('alert')).toContainText("You may not change what runs in stage 'production'.");
    await page.unroute('**/*');
    await page.goto('/');
    expect(await revOf(page, 'haproxy-lb', 'production')).toBe(before);
  });

  test('admin grants team web promote on production; a member can then promote', async ({ browser }) => {
    const admin = await (await browser.newContext({ storageState: stateFile('admin') })).newPage();
    await admin.goto('/admin');
    await admin.getByLabel('web on production').selectOption('promote');
    await admin.getByRole('button', { name: 'Change the grant' }).click();
    await expect(admin.getByText('team web: promote on production')).toBeVisible();

    const dev = await (await browser.newContext({ storageState: stateFile('dev') })).newPage();
    await dev.goto('/');
    const staging = await revOf(dev, 'haproxy-lb', 'staging');
    await cell(dev, 'haproxy-lb', 'staging').getByTestId('promote-button').click();
    await dev.getByTestId('promote-dialog').getByRole('button', { name: 'Promote to production' }).click();
    await approveUntilApplied(browser, await createdRequestId(dev));
    await dev.goto('/');
    await expect.poll(() => revOf(dev, 'haproxy-lb', 'production')).toBe(staging);
  });

  test('rollback from the history timeline restores the previous revision', async ({ browser }) => {
    const page = await (await browser.newContext({ storageState: stateFile('release') })).newPage();
    await page.goto('/history?policy=webapp&stage=production');
    const seed = page.locator('[data-testid="history"] li[data-kind="seed"]');
    const previous = (await seed.locator('.mono').textContent())!.split('→')[1].trim();
    await seed.getByTestId('rollback').click();
    await page.getByLabel('Reason (required)').fill('e2e: roll back');
    await page.getByRole('button', { name: 'Roll back', exact: true }).click();
    await approveUntilApplied(browser, await createdRequestId(page.getByRole('dialog')));
    await page.reload();
    await expect(page.locator('[data-testid="history"] li').first()).toHaveAttribute('data-kind', 'rollback');
    await page.goto('/');
    await expect.poll(async () => (await revOf(page, 'webapp', 'production')).slice(0, 10)).toBe(previous);
    await page.goto('/audit?action=pointer.rollback');
    await expect(page.getByTestId('audit-table')).toContainText('e2e: roll back');
  });
});
