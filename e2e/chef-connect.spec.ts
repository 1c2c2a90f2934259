import { expect, test } from './test';
import { signRequest } from '../lib/auth/chef-signing';
import { stateFile } from './roles';

test.describe('release manager', () => {
  test.use({ storageState: stateFile('release') });

  test('connects knife: sees the exact config.rb, generates a key shown once, and the key signs requests', async ({ page, baseURL }) => {
    await page.goto('/connect');
    await expect(page.getByRole('heading', { name: 'Connect Chef tools' })).toBeVisible();
    await expect(page.locator('pre').first()).toContainText(`chef_server_url "${baseURL}/organizations/console"`);
    await expect(page.locator('pre').first()).toContainText('node_name "release"');

    await page.getByLabel('Key name').fill('e2e-laptop');
    await page.getByRole('button', { name: 'Generate key' }).click();
    const dialog = page.getByRole('dialog');
    const pem = await dialog.getByLabel('Private key').inputValue();
    expect(pem).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
    // A stray Escape does not lose the key.
    await page.keyboard.press('Escape');
    await expect(dialog).toBeVisible();
    await dialog.getByRole('button', { name: 'I have saved it' }).click();
    await expect(dialog).toHaveCount(0);
    await expect(page.getByTestId('chef-keys')).toContainText('e2e-laptop');

    // The key works against the organization routes, as knife would use it.
    const path = '/organizations/console/policy_groups/staging/policies/webapp';
    const res = await page.request.get(path, { headers: signRequest({ method: 'GET', path, userId: 'release', privateKey: pem }) });
    expect(res.status()).toBe(200);
    expect((await res.json()).name).toBe('webapp');
    await page.reload();
    // "Last used" now shows the signed request.
    await expect(page.getByTestId('chef-keys').getByRole('row', { name: /e2e-laptop/ }).getByRole('cell').nth(3)).toHaveText('just now');
  });
});

test.describe('admin', () => {
  test.use({ storageState: stateFile('admin') });

  test('creates the validator, sees it among the clients, and rotation asks first', async ({ page }) => {
    await page.goto('/admin/clients');
    await page.getByRole('button', { name: 'Create validator' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByLabel('Private key')).toHaveValue(/BEGIN RSA PRIVATE KEY/);
    await dialog.getByRole('button', { name: 'I have saved it' }).click();
    await expect(page.getByTestId('chef-clients')).toContainText('console-validator');
    await page.getByRole('button', { name: 'Rotate validator key' }).click();
    await expect(page.getByRole('dialog')).toContainText('stops working at once');
    await page.getByRole('button', { name: 'Cancel' }).click();
  });
});
