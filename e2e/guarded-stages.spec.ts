import { expect, test, type Browser, type Page } from './test';
import { approveUntilApplied, createdRequestId } from './approvals';
import { stateFile, type Role } from './roles';

const cell = (page: Page, policy: string, stage: string) => page.locator(`tr[data-policy="${policy}"] td[data-stage="${stage}"]`);
const revOf = async (page: Page, policy: string, stage: string) => (await cell(page, policy, stage).locator('a.mono').first().getAttribute('title')) ?? '';
const pageAs = async (browser: Browser, role: Role) => (await browser.newContext({ storageState: stateFile(role) })).newPage();
/** A datetime-local value (minutes, UTC) `ms` from now. */
const utcLocal = (ms: number) => new Date(Date.now() + ms).toISOString().slice(0, 16);

test.describe.serial('guarded stages', () => {
  let requestUrl = '';
  let seedRevision = '';

  test('release promotes webapp (a major nginx bump) to production and gets a request needing 2 approvals', async ({ browser }) => {
    const page = await pageAs(browser, 'release');
    await page.goto('/');
    await expect(page.getByTestId('stage-board').locator('th', { hasText: 'production' }).getByTestId('stage-protected')).toBeVisible();
    const staging = await revOf(page, 'webapp', 'staging');
    const production = await revOf(page, 'webapp', 'production');
    seedRevision = production;
    expect(production).not.toBe(staging);
    await cell(page, 'webapp', 'staging').getByTestId('promote-button').click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByTestId('blast-radius')).toContainText('nodes in production run webapp');
    await dialog.getByLabel(/Reason/).fill('e2e: nginx 12 for webapp');
    await dialog.getByRole('button', { name: 'Promote to production' }).click();

    // Not "promoted": a pending request, how many approvals and why, and focus on the outcome.
    const created = dialog.getByTestId('request-created');
    await expect(created.getByRole('heading')).toHaveText('Request created: needs 2 approvals');
    await expect(created.getByRole('heading')).toBeFocused();
    await expect(created.getByTestId('request-created-reasons')).toContainText(/2 approvals: nginx [\d.]+ → 12\.\d+\.\d+ is a major bump/);
    await expect(page.getByText('Promoted webapp to production')).toHaveCount(0);
    await created.getByTestId('request-link').click();
    await expect(page).toHaveURL(/\/requests\/[^/]+$/);
    requestUrl = new URL(page.url()).pathname;

    await expect(page.getByTestId('request-status-line')).toContainText('pending');
    await expect(page.getByTestId('approvals-required')).toHaveText('2');
    await expect(page.getByTestId('request-reasons')).toContainText('is a major bump');
    await expect(page.getByTestId('approval-count')).toHaveText('0 of 2');
    await expect(page.getByTestId('request-to-revision')).toContainText(staging.slice(0, 12));
    // The diff of the change, as the compare page shows it.
    await expect(page.locator('[data-cookbook="nginx"]')).toContainText('upgraded · major');
    // The requester cannot approve their own request; they may withdraw it.
    await expect(page.getByTestId('request-approve')).toHaveCount(0);
    await expect(page.getByTestId('approve-hint')).toContainText('someone else has to approve it');
    await expect(page.getByTestId('request-withdraw')).toBeVisible();

    // Nothing moved; the board shows a pending request on the cell.
    await page.goto('/');
    expect(await revOf(page, 'webapp', 'production')).toBe(production);
    await expect(cell(page, 'webapp', 'production').getByTestId('pending-requests')).toContainText('1 pending request');
    // The Requests page lists it under "Mine".
    await page.goto('/requests?view=mine&policy=webapp');
    await expect(page.getByTestId('requests-table').locator(`a[href="${requestUrl}"]`)).toBeVisible();
  });

  test('lead approves (1 of 2), then admin approves and production runs the new revision', async ({ browser }) => {
    const lead = await pageAs(browser, 'lead');
    await lead.goto('/requests');
    // "Awaiting my approval" is the default tab.
    await expect(lead.getByTestId('requests-tab-to-approve')).toHaveAttribute('aria-current', 'page');
    await lead.getByTestId('requests-table').locator(`a[href="${requestUrl}"]`).click();
    await lead.getByTestId('request-approve').click();
    const dialog = lead.getByRole('dialog');
    await expect(dialog.getByLabel('Comment (optional)')).toBeFocused();
    await dialog.getByLabel('Comment (optional)').fill('Read the nginx 12 notes; fine.');
    await dialog.getByRole('button', { name: 'Approve', exact: true }).click();
    await expect(lead.getByText('Approved (1 of 2)')).toBeVisible();
    await expect(lead.getByTestId('approval-count')).toHaveText('1 of 2');
    await expect(lead.getByTestId('approvals')).toContainText('lead@example.com');
    await expect(lead.getByTestId('approvals')).toContainText('Read the nginx 12 notes; fine.');
    await expect(lead.getByTestId('request-approve')).toHaveCount(0);

    // Admins approve only where granted, like anyone else: the admin grants themself on the Stages tab.
    const admin = await pageAs(browser, 'admin');
    await admin.goto('/admin/stages');
    const production = admin.locator('[data-testid="stage-guards"][data-stage="production"]');
    await expect(production.getByTestId('requires-approval')).toBeChecked();
    if ((await production.getByRole('list', { name: 'Approvers of production' }).getByText('admin@example.com', { exact: true }).count()) === 0) {
      await production.getByLabel('New approver of production').selectOption({ label: 'admin@example.com' });
      await production.getByRole('button', { name: 'Grant approval' }).click();
      await expect(admin.getByText('user admin@example.com may now approve requests into production')).toBeVisible();
    }
    await expect(production.getByRole('list', { name: 'Approvers of production' })).toContainText('admin@example.com');
    await admin.goto('/');
    const staging = await revOf(admin, 'webapp', 'staging');
    await admin.goto(requestUrl);
    await admin.getByTestId('request-approve').click();
    await admin.getByRole('dialog').getByRole('button', { name: 'Approve', exact: true }).click();
    await expect(admin.getByText(/Approved: production now runs/)).toBeVisible();
    await expect(admin.getByTestId('request-status-line')).toContainText('applied');

    await admin.goto('/');
    await expect.poll(() => revOf(admin, 'webapp', 'production')).toBe(staging);
    await expect(cell(admin, 'webapp', 'production')).toContainText('same as staging');
    await expect(cell(admin, 'webapp', 'production').getByTestId('pending-requests')).toHaveCount(0);
    await admin.goto('/history?policy=webapp&stage=production');
    await expect(admin.getByTestId('history').locator('li').first()).toContainText('approved request');
  });

  test('a rollback into production asks for approval too; approved, it puts webapp back where the seed had it', async ({ browser }) => {
    const release = await pageAs(browser, 'release');
    await release.goto('/history?policy=webapp&stage=production');
    await release.getByTestId('history').locator('li[data-kind="seed"]').getByTestId('rollback').click();
    const dialog = release.getByRole('dialog');
    await dialog.getByLabel('Reason (required)').fill('e2e: back to the seed');
    await dialog.getByRole('button', { name: /^Request \d approvals? — Roll back$/ }).click();
    await expect(dialog.getByTestId('request-created').getByRole('heading')).toHaveText(/^Request created: needs \d approvals?$/);
    const id = await createdRequestId(dialog);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect(release.getByTestId('history').locator('li').first()).not.toContainText('e2e: back to the seed');
    await approveUntilApplied(browser, id);
    await release.goto('/');
    expect(await revOf(release, 'webapp', 'production')).toBe(seedRevision);
  });

  test('a freeze blocks a promotion; a manager overrides it with a reason, which the history shows', async ({ browser }) => {
    const admin = await pageAs(browser, 'admin');
    await admin.goto('/admin/stages');
    const qa = admin.locator('[data-testid="stage-guards"][data-stage="qa"]');
    if (!(await qa.evaluate((el) => (el as HTMLDetailsElement).open))) await qa.locator('summary').click();
    await qa.getByLabel('Starts (UTC)').fill(utcLocal(-60 * 60_000));
    await qa.getByLabel('Ends (UTC)').fill(utcLocal(3 * 60 * 60_000));
    await qa.getByLabel('Reason').fill('e2e: load test in progress');
    await qa.getByRole('button', { name: 'Add freeze' }).click();
    await expect(admin.getByText('Freeze added to qa')).toBeVisible();
    await expect(qa.getByTestId('freeze-row').filter({ hasText: 'e2e: load test in progress' })).toContainText('in force');

    try {
      // dev may promote into qa but does not manage it: refused with the reason and the end, no override.
      const dev = await pageAs(browser, 'dev');
      await dev.goto('/');
      await expect(dev.getByTestId('freeze-banner').filter({ hasText: 'qa is frozen' })).toContainText('e2e: load test in progress');
      const before = await revOf(dev, 'jenkins-ci', 'qa');
      await cell(dev, 'jenkins-ci', 'dev').getByTestId('promote-button').click();
      let dialog = dev.getByTestId('promote-dialog');
      await expect(dialog.getByTestId('blast-radius')).toBeVisible();
      // Issue 29: the freeze is said before the click (the guard's dry run), with no override for dev.
      await expect(dialog.getByTestId('guard-answer')).toHaveAttribute('data-outcome', 'blocked');
      await expect(dialog.getByTestId('guard-freeze')).toContainText('qa is frozen until');
      await expect(dialog.getByTestId('guard-freeze')).toContainText('e2e: load test in progress');
      await expect(dialog.getByTestId('guard-freeze')).toContainText('Only someone who manages this stage may override it');
      await expect(dialog.getByLabel(/Override the freeze/)).toHaveCount(0);
      await expect(dialog.getByTestId('promote-confirm')).toHaveText('Frozen — Promote to qa');
      await expect(dialog.getByTestId('promote-confirm')).toBeDisabled();
      await dev.keyboard.press('Escape');
      await dev.reload();
      expect(await revOf(dev, 'jenkins-ci', 'qa')).toBe(before);

      // The admin manages qa: the same refusal offers the override, which needs a reason.
      await admin.goto('/');
      const target = await revOf(admin, 'jenkins-ci', 'dev');
      await cell(admin, 'jenkins-ci', 'dev').getByTestId('promote-button').click();
      dialog = admin.getByTestId('promote-dialog');
      await expect(dialog.getByTestId('blast-radius')).toBeVisible();
      await expect(dialog.getByTestId('guard-freeze')).toContainText('e2e: load test in progress');
      const override = dialog.getByRole('button', { name: 'Override the freeze — Promote to qa' });
      await expect(override).toBeDisabled();
      await dialog.getByLabel(/Override the freeze: reason/).fill('e2e: hotfix for the CI agents');
      await override.click();
      await expect(admin.getByText('Promoted jenkins-ci to qa')).toBeVisible();
      await expect.poll(() => revOf(admin, 'jenkins-ci', 'qa')).toBe(target);

      await admin.goto('/history?policy=jenkins-ci&stage=qa');
      const entry = admin.getByTestId('history').locator('li').first();
      await expect(entry.getByTestId('freeze-override')).toContainText('e2e: load test in progress');
      await expect(entry.getByTestId('freeze-override')).toContainText('e2e: hotfix for the CI agents');
      // Put qa back as the seed had it (later specs promote jenkins-ci dev → qa); the freeze is deleted first.
      await admin.goto('/admin/stages');
      await deleteFreeze(admin);
      await admin.goto('/history?policy=jenkins-ci&stage=qa');
      await admin.getByTestId('rollback').first().click();
      await admin.getByRole('dialog').getByLabel('Reason (required)').fill('e2e: restore the seed');
      await admin.getByRole('dialog').getByRole('button', { name: /Roll (back|forward)/ }).click();
      await expect(admin.getByText(/qa now runs .* of jenkins-ci again/)).toBeVisible();
    } finally {
      await admin.goto('/admin/stages');
      if ((await admin.locator('[data-testid="stage-guards"][data-stage="qa"] [data-testid="freeze-row"]', { hasText: 'e2e: load test in progress' }).count()) > 0) await deleteFreeze(admin);
    }
  });
});

async function deleteFreeze(admin: Page) {
  const qa = admin.locator('[data-testid="stage-guards"][data-stage="qa"]');
  if (!(await qa.evaluate((el) => (el as HTMLDetailsElement).open))) await qa.locator('summary').click();
  await qa.getByTestId('freeze-row').filter({ hasText: 'e2e: load test in progress' }).getByRole('button', { name: /delete/ }).click();
  await admin.getByRole('dialog').getByRole('button', { name: 'Delete freeze' }).click();
  await expect(admin.getByText('Freeze deleted from qa')).toBeVisible();
  await expect(qa.getByTestId('freeze-row').filter({ hasText: 'e2e: load test in progress' })).toHaveCount(0);
}

test.describe.serial('bad revisions', () => {
  test('a revision marked bad (reason required) is marked on the board, compare and history, refused with who and why, then unmarked', async ({ browser }) => {
    const admin = await pageAs(browser, 'admin');
    await admin.goto('/');
    const rev = await revOf(admin, 'jenkins-ci', 'dev');
    await admin.goto(`/policies/jenkins-ci/revisions/${rev}`);
    await admin.getByTestId('mark-bad').click();
    const dialog = admin.getByRole('dialog');
    await expect(dialog.getByRole('button', { name: 'Mark bad' })).toBeDisabled();
    await dialog.getByLabel('Reason (required)').fill('e2e: the agent leaks file handles');
    await dialog.getByRole('button', { name: 'Mark bad' }).click();
    await expect(admin.getByTestId('bad-revision-banner')).toContainText('e2e: the agent leaks file handles');
    await expect(admin.getByTestId('bad-revision-banner')).toContainText('admin@example.com');

    try {
      const dev = await pageAs(browser, 'dev');
      await dev.goto('/');
      await expect(cell(dev, 'jenkins-ci', 'dev').getByTestId('bad-revision')).toBeVisible();
      await cell(dev, 'jenkins-ci', 'dev').getByTestId('promote-button').click();
      const promote = dev.getByTestId('promote-dialog');
      await expect(promote.getByTestId('blast-radius')).toBeVisible();
      // Issue 29: refused before the click, with who and why (the guard's dry run), and the confirm says so.
      await expect(promote.getByTestId('guard-answer')).toHaveAttribute('data-outcome', 'blocked');
      await expect(promote.getByTestId('guard-bad')).toContainText('Marked bad by admin@example.com');
      await expect(promote.getByTestId('guard-bad')).toContainText('e2e: the agent leaks file handles');
      await expect(promote.getByTestId('promote-confirm')).toHaveText('Revision marked bad — Promote to qa');
      await expect(promote.getByTestId('promote-confirm')).toBeDisabled();
      await dev.keyboard.press('Escape');
      await dev.goto('/compare?policy=jenkins-ci&from=dev&to=qa');
      await expect(dev.getByTestId('compare-bad-revisions')).toContainText('e2e: the agent leaks file handles');
      await dev.goto('/history?policy=jenkins-ci&stage=dev');
      await expect(dev.getByTestId('history').getByTestId('bad-revision').first()).toBeVisible();
    } finally {
      await admin.goto(`/policies/jenkins-ci/revisions/${rev}`);
      await admin.getByTestId('unmark-bad').click();
      await admin.getByRole('dialog').getByRole('button', { name: 'Unmark' }).click();
      await expect(admin.getByTestId('bad-revision-banner')).toHaveCount(0);
      await expect(admin.getByTestId('mark-bad')).toBeVisible();
    }
  });
});

test('a request made outdated by another change never applies, and its requester can ask again', async ({ browser }) => {
  // release asks for logstash-shipper staging → production (a11y.spec moved it into staging); production then changes under it (a cookbook promotion, approved).
  const release = await pageAs(browser, 'release');
  await release.goto('/');
  if ((await revOf(release, 'logstash-shipper', 'staging')) === (await revOf(release, 'logstash-shipper', 'production'))) {
    // Run alone: bring qa's newer revision into staging first (a minor change: staging asks approval for major bumps only).
    await cell(release, 'logstash-shipper', 'qa').getByTestId('promote-button').click();
    await release.getByTestId('promote-dialog').getByRole('button', { name: 'Promote to staging' }).click();
    await expect(release.getByText('Promoted logstash-shipper to staging')).toBeVisible();
    await release.goto('/');
  }
  const staging = await revOf(release, 'logstash-shipper', 'staging');
  await cell(release, 'logstash-shipper', 'staging').getByTestId('promote-button').click();
  await release.getByTestId('promote-dialog').getByRole('button', { name: 'Promote to production' }).click();
  const first = await createdRequestId(release);
  await release.goto(`/requests/${first}`);
  await expect(release.getByTestId('request-status-line')).toContainText('pending');

  await release.goto('/compare?policy=logstash-shipper&from=staging&to=production');
  await release.getByTestId('promote-cookbook').first().click();
  const dialog = release.getByTestId('promote-dialog');
  await expect(dialog.getByTestId('dependency-ok')).toBeVisible();
  await dialog.getByTestId('promote-confirm').click();
  await approveUntilApplied(browser, await createdRequestId(release));

  // Issue 29: production changed under the first request: it is outdated and offers no approval (nothing can move).
  const lead = await pageAs(browser, 'lead');
  await lead.goto(`/requests/${first}`);
  await expect(lead.getByTestId('request-status-line')).toContainText('outdated');
  await expect(lead.getByTestId('approve-hint')).toContainText('can no longer be approved');
  await expect(lead.getByTestId('request-approve')).toHaveCount(0);
  await release.goto('/');
  expect(await revOf(release, 'logstash-shipper', 'production')).not.toBe(staging);

  await release.goto(`/requests/${first}`);
  await expect(release.getByTestId('request-status-line')).toContainText('changed after this request was made');
  await release.getByTestId('request-rerequest').click();
  // Asking again shows the change against what production runs now and the guard's answer before the click.
  await expect(release.getByTestId('guard-answer')).toHaveAttribute('data-outcome', 'request');
  await release.getByRole('dialog').getByRole('button', { name: /^Request \d approvals? — Ask again$/ }).click();
  await release.getByTestId('request-link').click();
  await expect(release).not.toHaveURL(new RegExp(`/requests/${first}$`));
  await expect(release.getByTestId('request-status-line')).toContainText('pending');
  await expect(release.getByTestId('request-to-revision')).toContainText(staging.slice(0, 12));
  // Leave production as release-path expects it (logstash-shipper behind staging): withdraw the new request.
  await release.getByTestId('request-withdraw').click();
  await release.getByRole('dialog').getByRole('button', { name: 'Withdraw' }).click();
  await expect(release.getByTestId('request-status-line')).toContainText('withdrawn');
});
