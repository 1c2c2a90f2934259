import { expect, test } from './test';
import { stateFile } from './roles';

test.use({ storageState: stateFile('release') });

test('board → compare: webapp differs between staging and production', async ({ page }) => {
  await page.goto('/');
  const row = page.locator('tr[data-policy="webapp"]');
  const production = row.locator('td[data-stage="production"]');
  await expect(production.getByTestId('differs')).toContainText('behind staging: waiting for promotion from staging');

  await row.locator('td[data-stage="staging"]').getByRole('link', { name: 'Compare with production' }).click();
  await expect(page).toHaveURL(/\/compare\?policy=webapp&from=staging&to=production/);
  const view = page.getByTestId('compare-view');
  await expect(view.locator('[data-cookbook="nginx"]')).toContainText('upgraded · major');
  await expect(view.locator('[data-path="[webapp][release]"]')).toContainText('changed');

  // j moves focus between changes
  await page.locator('body').click({ position: { x: 5, y: 200 } });
  await page.keyboard.press('j');
  await expect(page.locator('[data-change]:focus')).toHaveCount(1);

  await page.getByRole('button', { name: 'Show text diff' }).click();
  await expect(page.getByTestId('text-diff')).toHaveAttribute('data-view', 'split');
  await page.getByRole('button', { name: 'Unified' }).click();
  await expect(page.getByTestId('text-diff')).toHaveAttribute('data-view', 'unified');
  await expect(page).toHaveURL(/view=unified/);
  const deepLink = page.url();

  await page.goto('/');
  await page.goto(deepLink);
  await expect(page.getByTestId('text-diff')).toHaveAttribute('data-view', 'unified');
  await expect(page.getByTestId('compare-view').locator('[data-cookbook="nginx"]')).toContainText('upgraded');
});

test('compare picker and identical state', async ({ page }) => {
  await page.goto('/compare');
  await page.getByRole('combobox', { name: 'Policy' }).selectOption('bastion');
  await page.getByRole('combobox', { name: 'From' }).selectOption('staging');
  await page.getByRole('combobox', { name: 'To' }).selectOption('production');
  await page.getByRole('button', { name: 'Compare' }).click();
  await expect(page.getByTestId('diff-summary')).toContainText('Identical');
});

test('board filters', async ({ page }) => {
  await page.goto('/');
  await page.getByLabel('Search policies').fill('mysql');
  await expect(page.locator('tr[data-policy]')).toHaveCount(2);
  await page.getByLabel('Search policies').fill('');
  await page.getByLabel('Team').selectOption('dba');
  await expect(page.locator('tr[data-policy]')).toHaveCount(3);
  await page.getByLabel('Team').selectOption('');
  await page.getByLabel('Differs from previous stage').check();
  await expect(page.locator('tr[data-policy="bastion"]')).toHaveCount(0);
  await expect(page.locator('tr[data-policy="webapp"]')).toHaveCount(1);
});
