import { expect, test, type Browser, type Page } from './test';
import { stateFile, type Role } from './roles';

const cell = (page: Page, policy: string, stage: string) => page.locator(`tr[data-policy="${policy}"] td[data-stage="${stage}"]`);
const pageAs = async (browser: Browser, role: Role) => (await browser.newContext({ storageState: stateFile(role) })).newPage();

test('a revision whose cookbooks are not on the server is flagged before the click, and a stage that requires them asks for a reason', async ({ browser }) => {
  // dev (team web, owner of api-gateway) uploads a revision pinning a cookbook nobody pushed.
  const dev = await pageAs(browser, 'dev');
  await dev.goto('/');
  const devRev = (await cell(dev, 'api-gateway', 'dev').locator('a.mono').first().getAttribute('title'))!;
  const raw = await (await dev.request.get(`/api/v1/policies/api-gateway/revisions/${devRev}?raw=true`)).json();
  const identifier = 'e'.repeat(40);
  const revisionId = Array.from({ length: 64 }, (_, i) => '0123456789abcdef'[(i * 5 + Date.now()) % 16]).join('');
  const doc = { ...raw, revision_id: revisionId, cookbook_locks: { ...raw.cookbook_locks, ghostly: { version: '0.1.0', identifier } } };
  await dev.goto('/policies/api-gateway');
  await dev.getByRole('button', { name: 'Upload lock' }).click();
  await dev.getByRole('dialog').getByLabel('Document').fill(JSON.stringify(doc, null, 2));
  await dev.getByRole('dialog').getByRole('button', { name: 'Upload', exact: true }).click();
  await expect(dev).toHaveURL(new RegExp(`/revisions/${revisionId}`));
  await expect(dev.getByTestId('artifact-summary')).toContainText('1 of');
  await expect(dev.getByRole('row', { name: /^ghostly/ })).toContainText('missing');

  // dev does not require artifacts: a warning, and the promotion can go ahead.
  await dev.getByTestId('run-revision').click();
  let dialog = dev.getByTestId('promote-dialog');
  await expect(dialog.getByTestId('artifacts-missing')).toContainText(`ghostly ${identifier}`);
  await expect(dialog.getByLabel('Override reason')).toHaveCount(0);
  await dialog.getByRole('button', { name: 'Run in dev' }).click();
  await expect(dev.getByText(`dev now runs revision ${revisionId.slice(0, 10)} of api-gateway`)).toBeVisible();

  // An admin makes qa require artifacts.
  const admin = await pageAs(browser, 'admin');
  await admin.goto('/admin/stages');
  await admin.getByLabel('qa requires every cookbook on the server').check();
  await expect(admin.getByText('Saved qa')).toBeVisible();
  try {
    // Promoting dev → qa now needs an override reason before confirm is enabled.
    await dev.goto('/');
    await cell(dev, 'api-gateway', 'dev').getByTestId('promote-button').click();
    dialog = dev.getByTestId('promote-dialog');
    await expect(dialog.getByTestId('artifacts-missing')).toContainText('qa requires every cookbook on the server');
    const confirm = dialog.getByRole('button', { name: 'Promote to qa' });
    await expect(dialog.getByTestId('blast-radius')).toBeVisible();
    await expect(confirm).toBeDisabled();
    await dialog.getByLabel('Override reason').fill('ghostly is vendored on the qa hosts');
    await expect(confirm).toBeEnabled();
    await confirm.click();
    await expect(dev.getByText('Promoted api-gateway to qa')).toBeVisible();
    await admin.goto('/audit?action=pointer.promote');
    await expect(admin.getByTestId('audit-table')).toContainText('ghostly is vendored on the qa hosts');
  } finally {
    await admin.goto('/admin/stages');
    await admin.getByLabel('qa requires every cookbook on the server').uncheck();
    await expect(admin.getByText('Saved qa')).toBeVisible();
  }
});
