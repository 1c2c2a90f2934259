import { expect, test } from './test';
import { stateFile } from './roles';

test.use({ storageState: stateFile('release') });

test('a revision shows its cookbooks on the server; an artifact shows its files; a node shows it converged', async ({ page }) => {
  // The revision production runs.
  const board = await (await page.request.get('/api/v1/policy_groups/production/policies/webapp')).json();
  await page.goto(`/policies/webapp/revisions/${board.revision_id}`);
  await expect(page.getByTestId('artifact-summary')).toHaveText('Every cookbook this revision pins is on the server.');
  const nginx = page.getByRole('row', { name: /^nginx/ });
  await nginx.getByRole('link', { name: 'on the server: files' }).click();

  await expect(page.getByRole('heading', { level: 1 })).toContainText('nginx');
  const files = page.getByTestId('artifact-files');
  await expect(files.getByRole('link', { name: /recipes\/default\.rb/ })).toHaveAttribute('aria-current', 'page');
  await expect(page.locator('pre code.hljs')).toContainText("log 'nginx");
  await files.getByRole('link', { name: /metadata\.rb/ }).click();
  await expect(page.getByRole('heading', { name: 'metadata.rb' })).toBeVisible();
  await expect(page.locator('pre code.hljs')).toContainText("name 'nginx'");

  await page.goto('/nodes/webapp-production-01.example.com');
  await expect(page.getByText("converged to the stage's revision")).toBeVisible();
});

test('the compare view opens the file-level diff of a cookbook whose identifier changed', async ({ page }) => {
  await page.goto('/compare?policy=webapp&from=staging&to=production');
  const nginx = page.locator('[data-cookbook="nginx"]');
  await nginx.getByTestId('artifact-diff-link').click();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('nginx: 11.');
  await expect(page.getByRole('heading', { level: 1 })).toContainText('→ 12.');
  const files = page.getByTestId('artifact-diff-files');
  await expect(files.getByRole('listitem').filter({ hasText: 'metadata.rb' })).toContainText('changed');
  // The first changed file is shown: its text diff names both versions.
  await files.getByRole('link', { name: 'metadata.rb' }).click();
  await expect(page.getByRole('heading', { name: 'metadata.rb' })).toBeVisible();
  await expect(page.getByLabel('File diff')).toContainText("version '12.");
  await expect(page.getByLabel('File diff')).toContainText("version '11.");
});
