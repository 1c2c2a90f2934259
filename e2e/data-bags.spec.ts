import { expect, test } from './test';
import { stateFile } from './roles';

/**
 * Issue 24's Data bags pages. Reads the demo's seeded bags (plain, encrypted,
 * vault: lib/seed/demo-data-bags.ts); writes only a bag of its own.
 */
test.describe('as an admin', () => {
  test.use({ storageState: stateFile('admin') });

  test('the list, item kinds, and a vault with its holders and the nodes missing a key', async ({ page }) => {
    await page.goto('/data-bags');
    for (const bag of ['demo_settings', 'demo_secrets', 'demo_vault']) await expect(page.getByRole('link', { name: bag, exact: true })).toBeVisible();
    await expect(page.getByTestId('demo-secret')).toContainText('policy-console-demo-secret-');

    await page.getByRole('link', { name: 'demo_secrets', exact: true }).click();
    await expect(page.getByText('encrypted v3')).toBeVisible();
    await expect(page.getByText('encrypted fields: api_key, password')).toBeVisible();

    await page.goto('/data-bags/demo_vault');
    await expect(page.getByText('chef-vault')).toBeVisible();
    // The keys item is shown with its vault, not as an item of its own.
    await expect(page.getByRole('link', { name: 'alerting_keys' })).toHaveCount(0);
    await expect(page.getByText('monitoring-dev-01.example.com, monitoring-dev-02.example.com')).toBeVisible();
    await expect(page.getByText('policy_name:monitoring')).toBeVisible();
    const missing = page.locator('dd .text-red-700');
    await expect(missing).toContainText('monitoring-dev-03.example.com');
    await expect(missing).toContainText('monitoring-production-01.example.com');
    await expect(missing).not.toContainText('monitoring-dev-01.example.com');

    await page.goto('/data-bags/demo_settings/monitoring');
    await expect(page.getByText('plain', { exact: true })).toBeVisible();
    await expect(page.getByLabel('Item document')).toContainText('"graphite_host": "graphite.internal"');
  });

  test('create a bag and an item, edit it (history shows the diff), delete item and bag after confirming', async ({ page }) => {
    const bag = `e2e-bags-${Date.now().toString(36)}`;
    await page.goto('/data-bags');
    const form = page.getByRole('form', { name: 'Create a data bag' });
    await form.getByLabel('New data bag').fill('bad name!');
    await form.getByRole('button', { name: 'Create' }).click();
    await expect(form.getByLabel('New data bag')).toHaveAttribute('aria-invalid', 'true');
    await form.getByLabel('New data bag').fill(bag);
    await form.getByRole('button', { name: 'Create' }).click();
    await expect(page).toHaveURL(new RegExp(`/data-bags/${bag}$`));

    await page.getByRole('button', { name: 'New item' }).click();
    const create = page.getByRole('form', { name: 'Create an item' });
    await create.getByRole('textbox').fill('{"id": "app", "port": 8080}');
    await create.getByRole('button', { name: 'Create item' }).click();
    await expect(page).toHaveURL(new RegExp(`/data-bags/${bag}/app$`));
    await expect(page.getByLabel('Item document')).toContainText('8080');

    await page.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('form', { name: 'Edit item app' });
    await edit.getByRole('textbox').fill('{"id": "app", "port": 9090}');
    await edit.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByLabel('Item document')).toContainText('9090');
    // History: the update, with the changed line on both sides of the diff.
    const update = page.locator('li', { hasText: 'update by' });
    await expect(update).toContainText('8080');
    await expect(update).toContainText('9090');

    await page.getByRole('button', { name: 'Delete item' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog).toContainText(`${bag}/app`);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByLabel('Item document')).toBeVisible();
    await page.getByRole('button', { name: 'Delete item' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete item' }).click();
    await expect(page).toHaveURL(new RegExp(`/data-bags/${bag}$`));
    await expect(page.getByText('No items')).toBeVisible();

    await page.getByRole('button', { name: 'Delete bag' }).click();
    const confirm = page.getByRole('dialog');
    const go = confirm.getByRole('button', { name: 'Delete bag and items' });
    await expect(go).toBeDisabled();
    await confirm.getByRole('textbox').fill(bag);
    await go.click();
    await expect(page).toHaveURL(/\/data-bags$/);
    await expect(page.getByRole('link', { name: bag, exact: true })).toHaveCount(0);
  });
});

test.describe('as a viewer', () => {
  test.use({ storageState: stateFile('viewer') });

  test('reads the bags but may not create or change one', async ({ page }) => {
    await page.goto('/data-bags');
    await expect(page.getByRole('link', { name: 'demo_settings', exact: true })).toBeVisible();
    await expect(page.getByRole('form', { name: 'Create a data bag' })).toHaveCount(0);
    await page.goto('/data-bags/demo_settings');
    await expect(page.getByText('You may read this bag.')).toBeVisible();
    await expect(page.getByRole('button', { name: 'New item' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Delete bag' })).toHaveCount(0);
    await page.goto('/data-bags/demo_settings/monitoring');
    await expect(page.getByLabel('Item document')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Edit' })).toHaveCount(0);
  });
});
