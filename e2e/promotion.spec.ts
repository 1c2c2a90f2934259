import { expect, test, type Page } from './test';
import { approveUntilApplied, createdRequestId } from './approvals';
import { stateFile } from './roles';

const cell = (page: Page, policy: string, stage: string) => page.locator(`tr[data-policy="${policy}"] td[data-stage="${stage}"]`);
const revOf = async (page: Page, policy: string, stage: string) => (await cell(page, policy, stage).locator('a.mono').first().getAttribute('title')) ?? '';

/** Each test reads the seed or writes data of its own: none depends on another's writes (or their order). */
test.describe('promotion', () => {
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
    const grant = admin.getByLabel('web on production', { exact: true });
    const was = await grant.inputValue();
    await grant.selectOption('promote');
    await admin.getByRole('button', { name: 'Change the grant' }).click();
    await expect(admin.getByText('team web: promote on production')).toBeVisible();
    try {
      const dev = await (await browser.newContext({ storageState: stateFile('dev') })).newPage();
      await dev.goto('/');
      const staging = await revOf(dev, 'haproxy-lb', 'staging');
      await cell(dev, 'haproxy-lb', 'staging').getByTestId('promote-button').click();
      await dev.getByTestId('promote-dialog').getByRole('button', { name: 'Promote to production' }).click();
      // Production is protected in the demo: the promotion is a request, applied once approved.
      await approveUntilApplied(browser, await createdRequestId(dev));
      await dev.goto('/');
      await expect.poll(() => revOf(dev, 'haproxy-lb', 'production')).toBe(staging);
    } finally {
      // The grant goes back to what it was: other tests see the seed's permissions.
      await admin.goto('/admin');
      await grant.selectOption(was);
      await admin.getByRole('button', { name: 'Change the grant' }).click();
      await expect(admin.getByRole('dialog')).toHaveCount(0);
      await admin.reload();
      await expect(grant).toHaveValue(was);
    }
  });

  test('rollback from the history timeline restores the previous revision', async ({ browser }) => {
    // A policy of its own with two revisions, each run in dev in turn: a history to roll back.
    const page = await (await browser.newContext({ storageState: stateFile('admin') })).newPage();
    const policy = `rollback-${Date.now().toString(36)}`;
    const lock = (rev: string, version: string) => JSON.stringify({ name: policy, revision_id: rev, run_list: ['recipe[base::default]'], cookbook_locks: { base: { version, identifier: `base-${version}` } } });
    for (const [rev, version] of [[`${policy}-1`, '1.0.0'], [`${policy}-2`, '1.1.0']]) {
      await page.goto('/policies');
      await page.getByRole('button', { name: 'Upload lock' }).click();
      await page.getByLabel('Policy name').fill(policy);
      await page.getByLabel('Document').fill(lock(rev, version));
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      await expect(page).toHaveURL(new RegExp(`/revisions/${rev}$`));
      await page.goto('/');
      await page.locator(`tr[data-policy="${policy}"]`).getByTestId('run-newest').click();
      await page.getByTestId('promote-dialog').getByRole('button', { name: 'Run in dev' }).click();
      await expect.poll(() => revOf(page, policy, 'dev')).toBe(rev);
    }

    await page.goto(`/history?policy=${policy}&stage=dev`);
    const first = page.locator('[data-testid="history"] li').nth(1);
    await first.getByTestId('rollback').click();
    await page.getByLabel('Reason (required)').fill(`e2e: roll back ${policy}`);
    // dev is not protected: the rollback applies at once (rollbacks into protected stages: guarded-stages.spec.ts).
    await page.getByRole('dialog').getByRole('button', { name: 'Move now — Roll back' }).click();
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await page.reload();
    await expect(page.locator('[data-testid="history"] li').first()).toHaveAttribute('data-kind', 'rollback');
    await page.goto('/');
    await expect.poll(() => revOf(page, policy, 'dev')).toBe(`${policy}-1`);
    await page.goto(`/audit?action=pointer.rollback&policy=${policy}`);
    await expect(page.getByTestId('audit-table')).toContainText(`e2e: roll back ${policy}`);
  });
});
