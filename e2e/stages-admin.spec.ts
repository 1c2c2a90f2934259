import { expect, test } from './test';
import { stateFile } from './roles';

test.use({ storageState: stateFile('admin') });

test('admin adds a stage, sees it on the board, and deletes it after confirming', async ({ page }) => {
  // A name of its own: no other test's stages matter.
  const stage = `canary-${Date.now().toString(36)}`;
  await page.goto('/admin/stages');
  await page.getByLabel('New stage').fill(stage);
  await page.getByLabel('Description', { exact: true }).fill('A few hosts first');
  await page.getByRole('button', { name: 'Add stage (last in order)' }).click();
  await expect(page.locator(`tr[data-stage="${stage}"]`)).toBeVisible();

  await page.goto('/');
  await expect(page.getByTestId('stage-board').locator('thead th').last()).toContainText(stage);

  await page.goto('/admin/stages');
  await page.locator(`tr[data-stage="${stage}"]`).getByRole('button', { name: 'Delete…' }).click();
  await expect(page.getByRole('button', { name: `Delete ${stage}` })).toBeDisabled();
  await page.getByLabel(`Type ${stage} to confirm`).fill(stage);
  await page.getByRole('button', { name: `Delete ${stage}` }).click();
  await expect(page.locator(`tr[data-stage="${stage}"]`)).toHaveCount(0);
  await page.goto('/audit?action=stage.');
  await expect(page.getByTestId('audit-table')).toContainText('stage.delete');
});
