import { expect, test } from './test';
import { stateFile } from './roles';

test.use({ storageState: stateFile('dev') });

test('compose webapp from base + monitoring: a conflict with both sources, fixed, saved, listed', async ({ page }) => {
  await page.goto('/compose?policy=webapp');
  await page.getByLabel('Run list', { exact: true }).fill('webapp::default\nnginx');
  // Every run-list cookbook is locked: compose refuses a result chef-client would fail on (issue 13).
  await page.getByLabel('Cookbook locks', { exact: true }).fill('{"webapp": {"version": "1.6.0", "identifier": "e2e-webapp-160"}, "nginx": {"version": "12.0.0", "identifier": "e2e-nginx-1200"}}');
  await page.getByLabel('Default attributes').fill('{"webapp": {"workers": 16}}');

  await page.getByRole('button', { name: 'Add include' }).click();
  await page.getByLabel('Include 1 policy').selectOption('base');
  await page.getByLabel('Include 1 stage or revision').selectOption('group:staging');
  await page.getByRole('button', { name: 'Add include' }).click();
  await page.getByLabel('Include 2 policy').selectOption('monitoring');
  await page.getByLabel('Include 2 stage or revision').selectOption('group:production');

  const conflicts = page.getByTestId('conflicts');
  await expect(conflicts).toContainText('1 conflict');
  const conflict = conflicts.locator('[data-conflict-kind="attribute"]');
  await expect(conflict).toContainText('[ntp][servers]');
  await expect(conflict).toContainText('by base');
  await expect(conflict).toContainText('by monitoring');

  // The monitoring team dropped ntp from its newer revision, which runs in staging.
  await page.getByLabel('Include 2 stage or revision').selectOption('group:staging');
  await expect(page.getByTestId('compose-preview')).toContainText('no conflicts');
  await expect(page.getByTestId('merged-run-list')).toContainText('recipe[collectd::default]');

  await page.getByRole('button', { name: 'Save as new revision' }).click();
  await expect(page).toHaveURL(/\/policies\/webapp\/revisions\//);
  const included = page.getByTestId('included-policies');
  await expect(included).toContainText('base');
  await expect(included).toContainText('monitoring');

  await page.goto('/policies/webapp');
  await expect(page.getByTestId('revisions-table')).toContainText('composed from base, monitoring');
});
