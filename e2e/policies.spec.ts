import fs from 'node:fs';
import { expect, test } from './test';
import { stateFile } from './roles';

test.use({ storageState: stateFile('admin') });

test('upload the RFC example lock from the browser and read it back', async ({ page }) => {
  await page.goto('/policies');
  await page.getByRole('button', { name: 'Upload lock' }).click();
  await page.getByLabel('Lock file (Policyfile.lock.json)').setInputFiles('test/fixtures/locks/rfc-demo.lock.json');
  await expect(page.getByLabel('Policy name')).toHaveValue('policyfile_demo');
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await expect(page).toHaveURL(/\/policies\/policyfile_demo\/revisions\/edd40c30c4e0ebb3658abde4620597597d2e9c17/);
  await expect(page.getByRole('heading', { name: /Cookbooks \(2\)/ })).toBeVisible();
  await expect(page.getByRole('listitem').filter({ hasText: 'recipe[policyfile_demo::default]' })).toBeVisible();
  await expect(page.getByText('unverified: chef-cli would compute')).toBeVisible();
  const raw = page.locator('details', { hasText: 'Raw JSON' });
  await raw.locator('summary').click();
  await expect(raw.locator('pre')).toHaveText(fs.readFileSync('test/fixtures/locks/rfc-demo.lock.json', 'utf8'));
});

test('a bad lock shows every violation inline by path, and nothing is stored', async ({ page }) => {
  await page.goto('/policies/webapp');
  const before = await page.locator('[data-testid="revisions-table"] tbody tr').count();
  await page.getByRole('button', { name: 'Upload lock' }).click();
  await page.getByLabel('Document').fill(
    JSON.stringify({ name: 'webapp', revision_id: 'bad-1', run_list: ['recipe[nginx::default]', 'role[web]'], cookbook_locks: { nginx: { version: '0.1.s', identifier: 'abc' } } }),
  );
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  const errors = page.getByTestId('upload-errors');
  await expect(errors).toContainText('/run_list/1');
  await expect(errors).toContainText('/cookbook_locks/nginx/version');
  await page.getByRole('button', { name: 'Cancel' }).click();
  await page.reload();
  await expect(page.locator('[data-testid="revisions-table"] tbody tr')).toHaveCount(before);
});
