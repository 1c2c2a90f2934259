import { expect, test } from './test';
import { stateFile } from './roles';

/** Issue 25's Nodes page: search with Chef's query language, saved searches, the board's deep link. Reads the demo's nodes; saves its own searches. */
test.describe('as a release manager', () => {
  test.use({ storageState: stateFile('release') });

  test('search, a bad query with its position, examples and the total; rows link to node pages', async ({ page }) => {
    await page.goto('/nodes');
    await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Nodes', exact: true })).toHaveAttribute('aria-current', 'page');
    await expect(page.getByTestId('node-total')).toContainText('nodes');

    const box = page.getByRole('searchbox', { name: 'Search nodes' });
    await box.fill('policy_name:bastion AND policy_group:production');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect(page).toHaveURL(/\/nodes\?q=policy_name%3Abastion/);
    await expect(page.getByTestId('node-total')).toContainText('8 nodes match');
    await expect(page.getByRole('link', { name: 'bastion-production-01.example.com' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'bastion-dev-01.example.com' })).toHaveCount(0);

    await page.getByRole('searchbox', { name: 'Search nodes' }).fill('policy_name:(bastion');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect(page.getByTestId('query-error')).toContainText('position');
    await expect(page.getByRole('form', { name: 'Save this search' })).toHaveCount(0);

    await page.getByRole('link', { name: 'name:mysql-*' }).click();
    await expect(page.getByRole('searchbox', { name: 'Search nodes' })).toHaveValue('name:mysql-*');
    await expect(page.getByRole('link', { name: 'mysql-primary-production-01.example.com' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'bastion-production-01.example.com' })).toHaveCount(0);

    await page.goto('/nodes?q=name:no-such-node-*');
    await expect(page.getByText('No node matches this query')).toBeVisible();

    await page.goto(`/nodes?q=${encodeURIComponent('name:bastion-production-01.example.com')}`);
    await page.getByRole('link', { name: 'bastion-production-01.example.com' }).click();
    await expect(page).toHaveURL(/\/nodes\/bastion-production-01\.example\.com$/);
    await expect(page.getByRole('heading', { name: 'bastion-production-01.example.com' })).toBeVisible();
  });

  test('saved searches: save, reopen, a taken name refused, delete after confirming', async ({ page }) => {
    const name = `prod bastions ${Date.now().toString(36)}`;
    const query = 'policy_name:bastion AND policy_group:production';
    await page.goto(`/nodes?q=${encodeURIComponent(query)}`);
    const save = page.getByRole('form', { name: 'Save this search' });
    await save.getByLabel('Save this search as').fill(name);
    await save.getByRole('button', { name: 'Save' }).click();
    const saved = page.getByRole('region', { name: 'Your saved searches' });
    await expect(saved.getByRole('link', { name })).toBeVisible();

    await save.getByLabel('Save this search as').fill(name);
    await save.getByRole('button', { name: 'Save' }).click();
    await expect(save.getByLabel('Save this search as')).toHaveAttribute('aria-invalid', 'true');

    await page.goto('/nodes');
    await saved.getByRole('link', { name }).click();
    await expect(page.getByRole('searchbox', { name: 'Search nodes' })).toHaveValue(query);
    await expect(page.getByTestId('node-total')).toContainText('8 nodes match');

    await saved.getByRole('button', { name: `Delete saved search ${name}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect(saved.getByRole('link', { name })).toHaveCount(0);
  });

  test("a stage cell on the board links to the nodes that run it", async ({ page }) => {
    await page.goto('/');
    const cell = page.getByTestId('stage-board').locator('tr', { has: page.getByRole('link', { name: 'bastion', exact: true }) }).locator('td[data-stage="production"]');
    await cell.getByTestId('cell-nodes-link').click();
    await expect(page).toHaveURL(/\/nodes\?q=/);
    await expect(page.getByRole('searchbox', { name: 'Search nodes' })).toHaveValue('policy_name:bastion AND policy_group:production');
    await expect(page.getByTestId('node-total')).toContainText('8 nodes match');
  });
});
