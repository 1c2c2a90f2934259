import { expect, test } from './test';
import { stateFile } from './roles';

/**
 * Issue 23 (step 4): Admin → Organizations. Its own organization name (e2e-orgs-acme); the spec file starts from the
 * seeded demo (e2e/test.ts), where only the home organization exists.
 */
test.describe('admin', () => {
  test.use({ storageState: stateFile('admin') });

  test('creates an organization (the validator key shown once), adds a member, and deletes it after a confirmation', async ({ page }) => {
    await page.goto('/admin');
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Organizations' }).click();
    await expect(page.getByRole('heading', { name: 'Organizations', level: 1 })).toBeVisible();
    const table = page.getByTestId('organizations-table');
    await expect(table.getByRole('row', { name: /console/ })).toContainText('home');
    await expect(page.getByTestId('organizations-empty')).toBeVisible();

    // A refused name is shown next to the field, and the form stays open.
    await page.getByRole('button', { name: 'New organization' }).click();
    const form = page.getByRole('dialog', { name: 'New organization' });
    await form.getByLabel('Name', { exact: true }).fill('Not A Name');
    await form.getByLabel('Full name').fill('Acme Corporation');
    await form.getByRole('button', { name: 'Create organization' }).click();
    await expect(form.locator('[data-field-error="name"]')).toBeVisible();
    await expect(form.getByLabel('Name', { exact: true })).toHaveAttribute('aria-invalid', 'true');

    await form.getByLabel('Name', { exact: true }).fill('e2e-orgs-acme');
    await form.getByRole('button', { name: 'Create organization' }).click();
    const secret = page.getByRole('dialog', { name: 'Validator key of organization e2e-orgs-acme' });
    await expect(secret.getByLabel('Private key')).toHaveValue(/BEGIN (RSA )?PRIVATE KEY/);
    await expect(secret.getByTestId('shown-once')).toContainText('Shown once');
    await expect(secret.getByRole('button', { name: 'Copy' })).toBeVisible();
    // A stray Escape does not lose the key.
    await page.keyboard.press('Escape');
    await expect(secret).toBeVisible();
    await secret.getByRole('button', { name: 'I have saved it' }).click();
    await expect(secret).toHaveCount(0);

    // The new organization is selected (a deep link); after a reload the key is nowhere on the page.
    await expect(page).toHaveURL(/\/admin\/organizations\?org=e2e-orgs-acme$/);
    await page.reload();
    await expect(page.getByRole('heading', { name: 'Members of e2e-orgs-acme' })).toBeVisible();
    await expect(page.getByText(/PRIVATE KEY/)).toHaveCount(0);
    await expect(page.getByLabel('Private key')).toHaveCount(0);
    const row = table.getByRole('row', { name: /e2e-orgs-acme/ });
    await expect(row).toContainText('Acme Corporation');
    await expect(row.getByRole('cell').nth(3)).toHaveText('1');

    // Add a member (keyboard: the select and the button).
    const members = page.getByTestId('organization-members');
    await expect(members).toContainText('No members yet');
    await members.getByLabel('Add a user').selectOption({ label: 'Victor Viewer (viewer@example.com)' });
    await members.getByRole('button', { name: 'Add member' }).press('Enter');
    await expect(members.getByRole('row', { name: /viewer@example.com/ })).toBeVisible();
    await expect(row.getByRole('cell').nth(2)).toHaveText('1');

    // Delete: the dialog names what goes and wants the name typed.
    await row.getByRole('button', { name: 'Delete organization e2e-orgs-acme' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete organization e2e-orgs-acme?' });
    await expect(confirm).toContainText('1 client');
    await expect(confirm).toContainText('1 member');
    await expect(confirm).toContainText('e2e-orgs-acme-validator');
    const go = confirm.getByRole('button', { name: 'Delete organization' });
    await expect(go).toBeDisabled();
    await confirm.getByLabel(/Type e2e-orgs-acme to confirm/).fill('e2e-orgs-acme');
    await go.click();
    await expect(confirm).toHaveCount(0);
    await expect(page).toHaveURL(/\/admin\/organizations$/);
    await expect(table.getByRole('row', { name: /e2e-orgs-acme/ })).toHaveCount(0);
    await expect(page.getByTestId('organizations-empty')).toBeVisible();
  });
});
