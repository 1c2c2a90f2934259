import { expect, test } from '@playwright/test';
import { stateFile } from './roles';

test.use({ storageState: stateFile('admin') });

test('admin adds a stage, sees it on the board, and deletes it after confirming', async ({ page }) => {
  await page.goto('/admin/stages');
  await page.getByLabel('New stage').fill('canary');
  await page.getByLabel('Description', { exact: true }).fill('A few hosts first');
  await page.getByRole('button', { name: 'Add stage (last in order)' }).click();
  await expect(page.locator('tr[data-stage="canary"]')).toBeVisible();

  await page.goto('/');
  await expect(page.getByTestId('stage-board').locator('thead th').last()).toContainText('canary');

  await page.goto('/admin/stages');
  await page.locator('tr[data-stage="canary"]').getByRole('button', { name: 'Delete…' }).click();
  await expect(page.getByRole('button', { name: 'Delete canary' })).toBeDisabled();
  await page.getByLabel('Type canary to confirm').fill('canary');
  await page.getByRole('button', { name: 'Delete canary' }).click();
  await expect(page.locator('tr[data-stage="canary"]')).toHaveCount(0);
  await page.goto('/audit?action=stage.');
  await expect(page.getByTestId('audit-table')).toContainText('stage.delete');
});
