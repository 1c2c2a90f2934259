import { expect, test } from './test';
import { stateFile } from './roles';

test.use({ storageState: stateFile('viewer') });

test('ordering: the documentation example 2 gives [B2, B1], and priorities reorder values', async ({ page }) => {
  await page.goto('/ordering');
  await page.getByLabel('Scenario').selectOption({ label: 'Rudder doc example 2 (shared)' });
  await expect(page.getByTestId('scenario-note')).toContainText("documentation's last line");
  const b = page.locator('[data-policy-technique="B"]');
  await expect(b.getByTestId('value-order')).toContainText('Values in order: [B2, B1]');
  await expect(b.getByTestId('value-order')).toContainText('B1 is effective');
  await expect(b.getByTestId('why')).toContainText('(“R1”, “B2”)');
  await page.getByLabel('Priority of B1').selectOption('0');
  await expect(b.getByTestId('value-order')).toContainText('Values in order: [B1, B2]');
});

test('resource map: a cookbook package is refused by the RFC design and mapped with a warning by Chef 15', async ({ page }) => {
  await page.goto('/resource-map');
  await page.getByLabel('Resource name').fill('package');
  await page.getByLabel('Class', { exact: true }).fill('Acme::Package');
  await page.getByRole('button', { name: 'Add registration' }).click();
  await expect(page.getByTestId('refused')).toContainText('Acme::Package for package: the name is locked by core');
  const row = page.locator('[data-testid="mode-comparison"] tr[data-key="package"]');
  await expect(row.locator('td[data-mode="rfc"]')).toContainText('Chef::Resource::AptPackage');
  await expect(row.locator('td[data-mode="rfc"]')).toContainText('refused');
  await expect(row.locator('td[data-mode="rfc"]')).toContainText('Acme::Package: not mapped');
  await expect(row.locator('td[data-mode="chef15"]')).toContainText('Acme::Package: mapped, rank');
  await expect(row.locator('td[data-mode="chef15"]')).toContainText('warning');
  // Core still wins on Ubuntu (its platform_family filter outranks the unfiltered cookbook entry): the shipped quirk warns anyway.
  await expect(row.locator('td[data-mode="chef15"]')).toContainText('Chef::Resource::AptPackage');
  await page.getByLabel('Mode').selectOption('chef15');
  await expect(page.getByTestId('resource-map-messages')).toContainText('collision');
});
