/** Issue 16's "other defects": each screen says what the next click will do. Leaves the data as it found it. */
import { expect, test } from './test';
import { stateFile } from './roles';

test.describe('as a viewer', () => {
  test.use({ storageState: stateFile('viewer') });

  // Issue 17 (item 5) makes the matrix for admins and the managers of the stages shown: a viewer who manages
  // nothing is told so instead of seeing anyone's grants, and nothing on the page looks editable.
  test('the permissions matrix is not shown to a viewer, and the page says why', async ({ page }) => {
    await page.goto('/admin');
    await expect(page.getByText('Admins and stage managers only')).toBeVisible();
    await expect(page.getByRole('combobox')).toHaveCount(0);
  });

  test('an unknown stage is a 404 that says so, not "you may not view"', async ({ page }) => {
    const res = await page.goto('/history?policy=webapp&stage=no-such-stage');
    expect(res?.status()).toBe(404);
    await expect(page.getByRole('heading', { name: 'Not found' })).toBeVisible();
    await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
  });
});

test.describe('as an admin', () => {
  test.use({ storageState: stateFile('admin') });

  test('audit: reason visible at 1440 px, no internal ids, real action names, an inverted range says so', async ({ page }) => {
    await page.goto('/audit');
    const reason = page.getByRole('columnheader', { name: 'Reason' });
    await expect(reason).toBeInViewport();
    await expect(page.getByTestId('audit-table')).not.toContainText('ownerTeamId');
    const options = await page.locator('datalist#audit-actions option').evaluateAll((o) => o.map((x) => (x as HTMLOptionElement).value));
    expect(options).toContain('pointer.promote');
    expect(options).toContain('revision.upload');
    await page.goto('/audit?since=2026-12-31&until=2026-01-01');
    await expect(page.getByText('The date range is inverted')).toBeVisible();
  });

  test('moving a stage writes once: one toast, one audit event', async ({ page }) => {
    await page.goto('/admin/stages');
    await page.getByRole('button', { name: 'Move qa later' }).click();
    await expect(page.getByText('Order: dev → staging → qa → production')).toHaveCount(1);
    await expect(page.locator('tbody tr').nth(1)).toHaveAttribute('data-stage', 'staging');
    await page.getByRole('button', { name: 'Move qa earlier' }).click();
    await expect(page.getByText('Order: dev → qa → staging → production')).toHaveCount(1);
    await page.goto('/audit?action=stage.move&stage=qa');
    await expect(page.getByTestId('audit-table').locator('tbody tr')).toHaveCount(2);
  });

  test('compose opens empty, with Save disabled', async ({ page }) => {
    await page.goto('/compose');
    await expect(page.getByRole('combobox', { name: 'Policy' }).or(page.getByLabel('Policy', { exact: true }))).toHaveValue('');
    await expect(page.getByRole('button', { name: 'Save as new revision' })).toBeDisabled();
    // A policy alone is nothing to save: once the preview it asks for has answered, Save is still disabled.
    const previewed = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/api/v1/policies/webapp/compose');
    await page.getByLabel('Policy', { exact: true }).fill('webapp');
    await previewed;
    await expect(page.getByText('updating…')).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Save as new revision' })).toBeDisabled();
  });

  test('the compare picker resets the sides when the policy changes and helps when only the policy is given', async ({ page }) => {
    await page.goto('/compare?policy=webapp&from=rev:does-not-exist&to=production');
    await expect(page.getByRole('alert').filter({ hasText: 'has no' })).toContainText('webapp has no from "rev:does-not-exist"');
    await expect(page.getByRole('combobox', { name: 'From' })).toHaveValue('staging');
    await page.getByRole('combobox', { name: 'Policy' }).selectOption('bastion');
    await expect(page).toHaveURL(/\/compare\?policy=bastion$/);
    await expect(page.getByRole('combobox', { name: 'From' })).toHaveValue('staging');
    await expect(page.getByRole('navigation', { name: 'Compare bastion between stages' }).getByRole('link', { name: 'qa → staging' })).toBeVisible();
  });

  test('resource map: edited facts read as custom, a Chef version that does not fit the mode is flagged, Explore loads the registration', async ({ page }) => {
    await page.goto('/resource-map?cookbook=my_pkg&resource=package');
    await expect(page.getByText('my_pkg::package').first()).toBeVisible();
    await page.getByRole('combobox', { name: 'Mode' }).selectOption('chef14');
    await expect(page.getByTestId('version-mismatch')).toContainText('does not behave as Chef 14.3–14.12');
  });
});
