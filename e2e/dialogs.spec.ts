import { expect, test, type Page } from './test';
import { stateFile } from './roles';

/**
 * Dialogs keep the keyboard where the user put it: typing one character at a
 * time (as a person does) reaches the field whole, even while the page behind
 * the dialog re-renders (the board's background refresh). The old hand-written
 * modal re-grabbed focus on every re-render, so each keystroke after the first
 * went to the first field.
 */
test.use({ storageState: stateFile('admin') });

/** Every request for the board data: each one is a refetch that re-renders the board under the dialog. */
function countBoardFetches(page: Page) {
  const seen = { n: 0 };
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/api/v1/board') seen.n++;
  });
  return seen;
}

test('the upload dialog takes a policy name and a document typed character by character', async ({ page }) => {
  const policy = `typed-${Date.now().toString(36)}`;
  await page.goto('/policies');
  await page.getByRole('button', { name: 'Upload lock' }).click();
  const dialog = page.getByRole('dialog', { name: 'Upload a Policyfile lock' });
  const name = dialog.getByLabel('Policy name');
  await name.click();
  await name.pressSequentially(policy, { delay: 15 });
  await expect(name).toHaveValue(policy);
  await expect(name).toBeFocused();

  const doc = JSON.stringify({ name: policy, revision_id: `r-${policy}`, run_list: ['recipe[base::default]'], cookbook_locks: { base: { version: '1.0.0', identifier: 'abc' } } });
  const text = dialog.getByLabel('Document');
  await text.click();
  await text.pressSequentially(doc, { delay: 5 });
  await expect(text).toHaveValue(doc);
  await expect(text).toBeFocused();
  // The name typed first is untouched by the keystrokes that followed.
  await expect(name).toHaveValue(policy);

  await dialog.getByRole('button', { name: 'Upload', exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/policies/${policy}/revisions/r-${policy}$`));
});

test('the promote dialog keeps its reason and focus while the board refreshes behind it', async ({ page }) => {
  // Its own policy, uploaded here: the test depends on no other test's writes.
  const policy = `refresh-${Date.now().toString(36)}`;
  const rev = `r-${policy}`;
  await page.goto('/policies');
  await page.getByRole('button', { name: 'Upload lock' }).click();
  await page.getByLabel('Policy name').fill(policy);
  await page.getByLabel('Document').fill(JSON.stringify({ name: policy, revision_id: rev, run_list: ['recipe[base::default]'], cookbook_locks: { base: { version: '1.0.0', identifier: 'abc' } } }));
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/revisions/${rev}$`));

  // A fake clock that runs in real time, so the test can jump past the board's 15 s refresh interval at will.
  await page.clock.install();
  await page.goto('/');
  const row = page.locator(`tr[data-policy="${policy}"]`);
  const dialog = page.getByTestId('promote-dialog');
  // dev, then qa: two plain promotions bring it to the stage before staging.
  await row.getByTestId('run-newest').click();
  await dialog.getByRole('button', { name: 'Run in dev' }).click();
  await expect(row.locator('td[data-stage="dev"]')).toContainText(rev.slice(0, 8));
  await row.locator('td[data-stage="dev"]').getByTestId('promote-button').click();
  await dialog.getByRole('button', { name: 'Promote to qa' }).click();
  await expect(row.locator('td[data-stage="qa"]')).toContainText(rev.slice(0, 8));

  // Staging requires every cookbook on the server and this lock's one is not: the dialog shows an override
  // reason field before the reason (the old modal moved focus to the first field on every re-render).
  const fetches = countBoardFetches(page);
  await row.locator('td[data-stage="qa"]').getByTestId('promote-button').click();
  await expect(dialog.getByTestId('artifacts-missing')).toBeVisible();
  const reason = dialog.getByLabel(/^Reason/);
  await reason.click();
  const words = ['CHG-4711:', 'typed', 'while', 'the', 'board', 'refreshes'];
  for (const [i, word] of words.entries()) {
    await reason.pressSequentially(`${i ? ' ' : ''}${word}`, { delay: 20 });
    // Past the refresh interval (and the stale time): the board refetches and re-renders under the open dialog.
    const before = fetches.n;
    await page.clock.fastForward(16_000);
    await expect.poll(() => fetches.n).toBeGreaterThan(before);
    await expect(page.getByText('Refreshing…')).toHaveCount(0);
    await expect(reason).toBeFocused();
  }
  expect(fetches.n).toBeGreaterThanOrEqual(words.length);
  await expect(reason).toHaveValue(words.join(' '));
  await expect(reason).toBeFocused();
  await expect(dialog.getByLabel('Override reason')).toHaveValue('');

  await dialog.getByLabel('Override reason').fill('e2e: no artifacts for a typed lock');
  await dialog.getByRole('button', { name: 'Promote to staging' }).click();
  await expect(page.getByText(`Promoted ${policy} to staging`)).toBeVisible();
  await page.goto(`/audit?policy=${policy}`);
  await expect(page.getByText(words.join(' ')).first()).toBeVisible();
});
