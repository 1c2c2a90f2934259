/**
 * Issue 16: every screen on the promotion path tells the truth before the click.
 * One test per numbered defect; each failed on the behaviour before the fix.
 * Runs after promotion.spec.ts (files run in name order) and leaves what it needs itself.
 */
import { expect, test, type Browser, type Page } from './test';
import { approveUntilApplied, createdRequestId, pendingRequests } from './approvals';
import { stateFile, type Role } from './roles';

const cell = (page: Page, policy: string, stage: string) => page.locator(`tr[data-policy="${policy}"] td[data-stage="${stage}"]`);
const revOf = async (page: Page, policy: string, stage: string) => (await cell(page, policy, stage).locator('a.mono').first().getAttribute('title')) ?? '';
const pageAs = async (browser: Browser, role: Role) => (await browser.newContext({ storageState: stateFile(role) })).newPage();

test.describe('promotion path (issue 16)', () => {
  test('1. confirm stays disabled until diff and blast radius load; a failed diff blocks, with retry', async ({ browser }) => {
    const page = await pageAs(browser, 'release');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let fail = true;
    await page.route('**/api/v1/diff?**', async (route) => {
      await gate;
      if (fail) await route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ error: ['database is locked'] }) });
      else await route.continue();
    });
    await page.goto('/');
    await cell(page, 'monitoring', 'staging').getByTestId('promote-button').click();
    const dialog = page.getByTestId('promote-dialog');
    const confirm = dialog.getByRole('button', { name: 'Promote to production' });
    await expect(dialog).toContainText('Computing the diff…');
    await expect(confirm).toBeDisabled();
    release();
    await expect(dialog.getByRole('alert')).toContainText('The diff could not be computed');
    await expect(dialog.getByRole('alert')).toContainText('database is locked');
    await expect(confirm).toBeDisabled();
    fail = false;
    await dialog.getByRole('button', { name: 'Retry' }).click();
    await expect(dialog.getByTestId('diff-preview')).toContainText('Cookbooks:');
    await expect(dialog.getByTestId('blast-radius')).toContainText('nodes in production run monitoring');
    await expect(confirm).toBeEnabled();
  });

  test('2. single-cookbook promotion shows exactly what the derived revision changes', async ({ browser }) => {
    const page = await pageAs(browser, 'release');
    await page.goto('/compare?policy=mysql-primary&from=staging&to=production');
    const first = page.locator('[data-change="cookbook"]').first();
    const name = (await first.getAttribute('data-cookbook'))!;
    // The whole policy changes more than this one cookbook (else the test would prove nothing).
    expect(await page.locator('[data-change]').count()).toBeGreaterThan(1);
    await first.getByTestId('promote-cookbook').click();
    const dialog = page.getByTestId('promote-dialog');
    await expect(dialog.getByTestId('dependency-ok')).toBeVisible();
    const preview = dialog.getByTestId('diff-preview');
    await expect(preview).toContainText('The derived revision');
    const changes = preview.getByTestId('cookbook-changes').locator('li');
    await expect(changes.first()).toContainText(name);
    // Only the promoted cookbook (and dependencies it drags along) changes; no attribute or run-list changes.
    await expect(preview).not.toContainText('attribute change');
    await expect(preview).not.toContainText('run-list change');
    for (const text of await changes.allTextContents()) expect(text.startsWith(name) || text.startsWith('dependency')).toBe(true);
  });

  test('3. bulk promotion shows per-policy counts, major bumps, blast radius, diff links; into a protected stage the toast links to the requests, and the approved move to the audit', async ({ browser }) => {
    const page = await pageAs(browser, 'release');
    await page.goto('/');
    await page.getByTestId('bulk-promote-production').click();
    const dialog = page.getByTestId('bulk-promote-dialog');
    // mysql-primary: staging has mysql 11 (a major bump from 10.1) and changed attributes; no earlier spec moves it.
    const mysql = dialog.locator('li[data-policy="mysql-primary"]');
    await expect(mysql.getByTestId('bulk-counts')).toContainText(/\d+ cookbook changes? \(\d+ major\), \d+ attribute changes?/);
    await expect(mysql.getByTestId('bulk-counts')).toContainText('8 nodes in production');
    await expect(mysql.getByTestId('major-bump')).toBeVisible();
    await expect(mysql.getByRole('link', { name: 'Diff of mysql-primary' })).toHaveAttribute('href', '/compare?policy=mysql-primary&from=staging&to=production');
    await expect(dialog.getByTestId('bulk-blast-radius')).toContainText(/\d+ nodes in production run the selected policies/);
    // Promote only monitoring: the other policies are left for the tests below.
    for (const box of await dialog.getByRole('checkbox').all()) if ((await box.getAttribute('id')) !== 'bulk-monitoring') await box.uncheck();
    await expect(dialog.getByTestId('bulk-blast-radius')).toContainText('8 nodes in production run the selected policies');
    // Issue 29: each row says what the guard will do on confirm, and the confirm says it too.
    await expect(dialog.locator('li[data-policy="monitoring"]').getByTestId('bulk-guard')).toContainText(/On confirm: needs \d approvals?/);
    await dialog.getByRole('button', { name: /^Request approvals for 1 — Promote 1 to production$/ }).click();
    // Production is protected (issue 15): one request per policy, nothing moved yet.
    await expect(page.getByText(/production is protected: 1 request created \(monitoring needs \d\)/)).toBeVisible();
    await page.getByRole('link', { name: 'Open your pending requests' }).click();
    await expect(page).toHaveURL(/\/requests\?view=mine&status=pending&stage=production/);
    const request = (await pendingRequests(browser, 'release', 'production')).find((r) => r.policy === 'monitoring')!;
    await expect(page.getByTestId('requests-table').locator(`a[href="/requests/${request.id}"]`)).toBeVisible();
    await approveUntilApplied(browser, request.id);
    await page.goto('/audit?action=pointer.promote&stage=production');
    await expect(page.getByTestId('audit-table')).toContainText('monitoring');
  });

  test('4. the board names the stage actually compared, and says behind or ahead', async ({ browser }) => {
    const admin = await pageAs(browser, 'admin');
    await admin.goto('/admin/stages');
    await admin.getByLabel('New stage').fill('preprod');
    await admin.getByRole('button', { name: 'Add stage (last in order)' }).click();
    await expect(admin.locator('tr[data-stage="preprod"]')).toBeVisible();
    await admin.getByRole('button', { name: 'Move preprod earlier' }).click();
    await expect(admin.locator('tbody tr').nth(3)).toHaveAttribute('data-stage', 'preprod');

    const page = await pageAs(browser, 'admin');
    await page.goto('/');
    await expect(page.getByTestId('stage-board').locator('thead th').nth(4)).toContainText('preprod');
    // redis-cache: staging runs a newer revision than production → production is behind staging.
    const redis = cell(page, 'redis-cache', 'production').getByTestId('differs');
    await expect(redis).toContainText('behind staging');
    await expect(redis).not.toContainText('preprod');
    await expect(cell(page, 'redis-cache', 'preprod')).toContainText('not in preprod');

    await admin.locator('tr[data-stage="preprod"]').getByRole('button', { name: 'Delete…' }).click();
    await admin.getByLabel(/Type preprod to confirm/).fill('preprod');
    await admin.getByRole('button', { name: 'Delete preprod' }).click();
    await expect(admin.locator('tr[data-stage="preprod"]')).toHaveCount(0);
  });

  test('4b. a stage changed without passing through the one before it reads as ahead', async ({ browser }) => {
    const page = await pageAs(browser, 'release');
    // A single-cookbook promotion derives a new revision in production that staging never ran
    // (promotion.spec.ts has done it for api-gateway's nginx; do it here when run alone).
    await page.goto('/compare?policy=api-gateway&from=staging&to=production');
    const nginx = page.locator('[data-cookbook="nginx"]');
    if ((await nginx.count()) > 0) {
      await nginx.getByTestId('promote-cookbook').click();
      const dialog = page.getByTestId('promote-dialog');
      await expect(dialog.getByTestId('dependency-ok')).toBeVisible();
      await dialog.getByTestId('promote-confirm').click();
      await approveUntilApplied(browser, await createdRequestId(dialog.page()));
    }
    await page.goto('/');
    await expect(cell(page, 'api-gateway', 'production').getByTestId('differs')).toContainText('ahead of staging: changed without passing through staging');
  });

  test('5. a background refresh never moves focus or resets a dialog', async ({ browser }) => {
    const page = await pageAs(browser, 'release');
    await page.goto('/');
    await page.locator('[data-testid="promote-button"]').first().click();
    const dialog = page.getByTestId('promote-dialog');
    const reason = dialog.getByLabel(/Reason/);
    await reason.click();
    await reason.pressSequentially('CHG-42', { delay: 30 });
    // Focus somewhere that is not the dialog's first field, then let the board refresh underneath (every 15 s).
    const cancel = dialog.getByRole('button', { name: 'Cancel' });
    await cancel.focus();
    const refreshed = await page.waitForResponse((r) => r.url().includes('/api/v1/board'), { timeout: 30_000 });
    // The refreshed board has rendered when its time stamp is the answer's: only then are focus and the field checked.
    const { generatedAt } = (await refreshed.json()) as { generatedAt: string };
    await expect(page.locator(`time[datetime="${generatedAt}"]`)).toBeAttached();
    await expect(cancel).toBeFocused();
    await expect(reason).toHaveValue('CHG-42');
  });

  test('6. a fresh upload can be started from its revision page ("Run in dev") and from the board row', async ({ browser }) => {
    const page = await pageAs(browser, 'dev');
    await page.goto('/');
    const devRev = await revOf(page, 'webapp', 'dev');
    const raw = await (await page.request.get(`/api/v1/policies/webapp/revisions/${devRev}?raw=true`)).json();
    const revisionId = Array.from({ length: 64 }, (_, i) => '0123456789abcdef'[(i * 7 + Date.now()) % 16]).join('');
    const doc = { ...raw, revision_id: revisionId, default_attributes: { ...(raw.default_attributes ?? {}), e2e: { fresh: true } } };
    await page.goto('/policies/webapp');
    await page.getByRole('button', { name: 'Upload lock' }).click();
    await page.getByRole('dialog').getByLabel('Document').fill(JSON.stringify(doc, null, 2));
    await page.getByRole('dialog').getByRole('button', { name: 'Upload', exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/revisions/${revisionId}`));
    await expect(page.getByText('active in no stage')).toBeVisible();

    // The board row offers it too.
    const board = await pageAs(browser, 'dev');
    await board.goto('/');
    await expect(board.locator('tr[data-policy="webapp"]').getByTestId('run-newest')).toContainText(`Run newest upload ${revisionId.slice(0, 10)} in dev`);

    await page.getByTestId('run-revision').click();
    const dialog = page.getByTestId('promote-dialog');
    await expect(dialog.getByTestId('diff-preview')).toContainText('1 attribute change');
    await expect(dialog.getByTestId('blast-radius')).toContainText('nodes in dev run webapp');
    await dialog.getByRole('button', { name: 'Run in dev' }).click();
    await expect(page.getByText(`dev now runs revision ${revisionId.slice(0, 10)} of webapp`)).toBeVisible();
    await board.goto('/');
    expect(await revOf(board, 'webapp', 'dev')).toBe(revisionId);
    await expect(board.locator('tr[data-policy="webapp"]').getByTestId('run-newest')).toHaveCount(0);
  });

  test('7. the rollback dialog shows the diff and blast radius, and a newer target is called a roll-forward', async ({ browser }) => {
    const page = await pageAs(browser, 'release');
    const history = page.getByTestId('history');
    // Bring webapp's production to staging's revision (whatever earlier specs left), then back to the seed, then forward.
    await page.goto('/');
    if ((await revOf(page, 'webapp', 'production')) !== (await revOf(page, 'webapp', 'staging'))) {
      await cell(page, 'webapp', 'staging').getByTestId('promote-button').click();
      await page.getByTestId('promote-dialog').getByRole('button', { name: 'Promote to production' }).click();
      await approveUntilApplied(browser, await createdRequestId(page));
    }
    await page.goto('/history?policy=webapp&stage=production');
    await history.locator('li[data-kind="seed"]').getByTestId('rollback').click();
    let dialog = page.getByTestId('rollback-dialog');
    await expect(dialog.getByTestId('rollback-direction')).toContainText('is older');
    await expect(dialog.getByTestId('diff-preview')).toContainText('downgraded');
    await expect(dialog.getByTestId('blast-radius')).toContainText('8 nodes in production run webapp');
    await dialog.getByLabel('Reason (required)').fill('e2e: back');
    // Into protected production a rollback is a request too (the confirm says so before the click); approved, it moves.
    await dialog.getByRole('button', { name: /^Request \d approvals? — Roll back$/ }).click();
    await approveUntilApplied(browser, await createdRequestId(page.getByRole('dialog')));
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
    await page.reload();
    await expect(history.locator('li').first()).toHaveAttribute('data-kind', 'rollback');

    await history.locator('li[data-kind="promote"]').first().getByTestId('rollback').click();
    dialog = page.getByTestId('rollback-dialog');
    await expect(dialog.getByTestId('diff-preview')).toContainText('upgraded');
    await expect(dialog.getByTestId('blast-radius')).toContainText('8 nodes in production run webapp');
    await expect(dialog.getByTestId('rollback-direction')).toContainText('roll-forward');
    await expect(page.getByRole('dialog')).toContainText('Roll forward: webapp in production');
    await expect(dialog.getByRole('button', { name: 'Roll forward' })).toBeDisabled();
    await dialog.getByLabel('Reason (required)').fill('e2e: forward again');
    await dialog.getByRole('button', { name: 'Roll forward' }).click();
    await approveUntilApplied(browser, await createdRequestId(page.getByRole('dialog')));
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
    await page.reload();
    await expect(history.locator('li').first()).toHaveAttribute('data-kind', 'rollback');
    await expect(history.locator('li').first()).toContainText('e2e: forward again');
  });

  test('8. a 409 says it once and keeps confirm disabled until the view is refreshed', async ({ browser }) => {
    const page = await pageAs(browser, 'release');
    const other = await pageAs(browser, 'release');
    await page.goto('/');
    await cell(page, 'redis-cache', 'staging').getByTestId('promote-button').click();
    const dialog = page.getByTestId('promote-dialog');
    await expect(dialog.getByRole('button', { name: 'Promote to production' })).toBeEnabled();

    await other.goto('/');
    await cell(other, 'redis-cache', 'staging').getByTestId('promote-button').click();
    await other.getByTestId('promote-dialog').getByRole('button', { name: 'Promote to production' }).click();
    // Production is protected: the other tab's promotion lands once approved, and then production has changed.
    await approveUntilApplied(browser, await createdRequestId(other));

    await dialog.getByRole('button', { name: 'Promote to production' }).click();
    const alert = dialog.getByRole('alert').filter({ hasText: 'changed since you looked' });
    await expect(alert).toContainText('changed since you looked');
    expect(((await alert.textContent()) ?? '').match(/changed since you looked/g)).toHaveLength(1);
    await expect(dialog.getByRole('button', { name: 'Promote to production' })).toBeDisabled();
    await dialog.getByRole('button', { name: 'Refresh and review again' }).click();
    await expect(dialog).toHaveCount(0);
    await expect(cell(page, 'redis-cache', 'production')).toContainText('same as staging');
  });
});

test.describe('dialogs keep focus while typing (issue 10)', () => {
  // dev is in team web, which owns webapp, so the upload button is there.
  test.use({ storageState: stateFile('dev') });
  test('typing character by character into the upload dialog keeps every character where it was typed', async ({ page }) => {
    await page.goto('/policies/webapp');
    await page.getByRole('button', { name: 'Upload lock' }).click();
    const doc = page.getByRole('dialog').getByLabel('Document');
    await doc.click();
    await doc.pressSequentially('{"name": "webapp"}', { delay: 20 });
    await expect(doc).toHaveValue('{"name": "webapp"}');
    await expect(doc).toBeFocused();
  });

  test('the one-time token dialog closes only on "I have copied it"', async ({ page }) => {
    await page.goto('/admin/tokens');
    await page.getByLabel('Token name').fill('e2e-once');
    await page.getByRole('button', { name: 'Create token' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog).toContainText('shown once');
    await page.keyboard.press('Escape');
    await page.mouse.click(5, 5);
    await expect(dialog).toBeVisible();
    await dialog.getByRole('button', { name: 'I have copied it' }).click();
    await expect(dialog).toHaveCount(0);
  });
});
