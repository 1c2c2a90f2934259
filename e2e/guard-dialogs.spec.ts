/**
 * Issue 29: every dialog says, before the click, what the guard will do (the
 * dry run of movePointer's own judgement) and its confirm button says it;
 * requests cannot mislead (a re-request recomputes the change from what the
 * stage runs now, an outdated request offers no approval, the approve dialog
 * says what this approval does, the request's diff reads before → after).
 *
 * Own data: mysql-replica in qa → staging (no other spec moves it); staging is
 * put back as the seed had it at the end, and the request made here is withdrawn.
 */
import { expect, test, type Browser, type Page } from '@playwright/test';
import { createdRequestId, pendingRequests } from './approvals';
import { stateFile, type Role } from './roles';

const pageAs = async (browser: Browser, role: Role) => (await browser.newContext({ storageState: stateFile(role) })).newPage();
const POLICY = 'mysql-replica';
const compareUrl = `/compare?policy=${POLICY}&from=qa&to=staging`;
const cookbookRow = (page: Page, cookbook: string) => page.locator(`[data-change="cookbook"][data-cookbook="${cookbook}"]`);

test('the guard answers before the click, and a re-request of an outdated cookbook request is recomputed from what the stage runs now', async ({ browser }) => {
  const release = await pageAs(browser, 'release');
  await release.goto(compareUrl);

  // High defect 1: the whole policy into staging is a major mysql bump: the dialog says it needs 1 approval, and why.
  await release.getByTestId('compare-promote').click();
  let dialog = release.getByTestId('promote-dialog');
  await expect(dialog.getByTestId('guard-answer')).toHaveAttribute('data-outcome', 'request');
  await expect(dialog.getByTestId('guard-headline')).toHaveText('Needs 1 approval: opens a request');
  await expect(dialog.getByTestId('guard-reasons')).toContainText('major');
  await expect(dialog.getByTestId('promote-confirm')).toHaveText('Request 1 approval — Promote to staging');
  await release.keyboard.press('Escape');

  // A minor cookbook bump into the same protected stage moves at once, and the dialog says so.
  await cookbookRow(release, 'apt').getByTestId('promote-cookbook').click();
  dialog = release.getByTestId('promote-dialog');
  await expect(dialog.getByTestId('guard-answer')).toHaveAttribute('data-outcome', 'move');
  await expect(dialog.getByTestId('guard-summary')).toContainText('its rules ask for no approval of this change');
  await expect(dialog.getByTestId('promote-confirm')).toHaveText('Move now — Promote apt to staging');
  await release.keyboard.press('Escape');

  // Ask for mysql alone (a request), then move staging with apt: the mysql request is now outdated.
  await cookbookRow(release, 'mysql').getByTestId('promote-cookbook').click();
  dialog = release.getByTestId('promote-dialog');
  await dialog.getByRole('button', { name: 'Request 1 approval — Promote mysql to staging' }).click();
  const first = await createdRequestId(release.getByRole('dialog'));
  await release.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
  await cookbookRow(release, 'apt').getByTestId('promote-cookbook').click();
  await release.getByTestId('promote-dialog').getByRole('button', { name: 'Move now — Promote apt to staging' }).click();
  await expect(release.getByText(/Promoted apt into staging/)).toBeVisible();

  // Medium: the request's diff reads before → after (what staging ran → what was asked for).
  await release.goto(`/requests/${first}`);
  await expect(release.getByTestId('change-before')).toContainText('staging when asked');
  await expect(release.getByTestId('change-after')).toContainText('requested (from qa)');
  await expect(release.getByTestId('request-status-line')).toContainText('outdated');

  // Medium: an outdated request offers no approval to an approver.
  const lead = await pageAs(browser, 'lead');
  await lead.goto(`/requests/${first}`);
  await expect(lead.getByTestId('approve-hint')).toContainText('can no longer be approved');
  await expect(lead.getByTestId('request-approve')).toHaveCount(0);

  // High defect 2: asking again derives mysql from what staging runs now (with apt 7.5.0): only mysql changes, nothing is downgraded.
  await release.getByTestId('request-rerequest').click();
  dialog = release.getByTestId('promote-dialog');
  await expect(release.getByRole('dialog')).toContainText('Ask again: cookbook mysql of mysql-replica → staging');
  await expect(dialog.getByTestId('dependency-ok')).toContainText('mysql 10.1.0 → 11.0.0');
  await expect(dialog.getByTestId('cookbook-changes').locator('li')).toHaveCount(1);
  await expect(dialog.getByTestId('guard-answer')).toHaveAttribute('data-outcome', 'request');
  await expect(dialog.getByTestId('guard-answer')).not.toContainText('Downgrades');
  await expect(dialog.getByTestId('promote-confirm')).toHaveText('Request 1 approval — Ask again');
  await release.keyboard.press('Escape');

  // Put staging back as the seed had it (the dialog says it moves now and downgrades apt).
  await release.goto(`/history?policy=${POLICY}&stage=staging`);
  await release.getByTestId('history').locator('li[data-kind="seed"]').getByTestId('rollback').click();
  dialog = release.getByTestId('rollback-dialog');
  await expect(dialog.getByTestId('guard-answer')).toHaveAttribute('data-outcome', 'move');
  await expect(dialog.getByTestId('guard-risks')).toContainText('Downgrades 1 cookbook: apt 7.5.0 → 7.4.0');
  await dialog.getByLabel('Reason (required)').fill('e2e: back to the seed');
  await dialog.getByRole('button', { name: 'Move now — Roll back' }).click();
  await expect(release.getByRole('dialog')).toHaveCount(0);
  // Medium: the derived revisions left running nowhere are not offered as "the newest upload" (they would run an old lock again).
  await release.goto('/');
  await expect(release.locator(`tr[data-policy="${POLICY}"]`)).toBeVisible();
  await expect(release.locator(`tr[data-policy="${POLICY}"]`).getByTestId('run-newest')).toHaveCount(0);

  // Staging runs what the request was made against again: lead rejects it (focus lands on its status, not the page body).
  await lead.goto(`/requests/${first}`);
  await lead.getByTestId('request-reject').click();
  await lead.getByRole('dialog').getByLabel(/Comment/).fill('e2e: not now');
  await lead.getByRole('dialog').getByRole('button', { name: 'Reject' }).click();
  await expect(lead.getByTestId('request-status-line')).toContainText('rejected');
  await expect(lead.getByTestId('request-status-line')).toBeFocused();
  // Medium: a rejected change may be asked for again.
  await release.goto(`/requests/${first}`);
  await expect(release.getByTestId('request-rerequest')).toBeVisible();
});

test('the approve dialog says what this approval does', async ({ browser }) => {
  // The seed's pending api-gateway request into production (read only: the dialog is cancelled).
  const pending = (await pendingRequests(browser, 'lead', 'production')).find((r) => r.policy === 'api-gateway' && r.approvals.length === 0);
  expect(pending, 'the seed opens an api-gateway request into production').toBeTruthy();
  const lead = await pageAs(browser, 'lead');
  await lead.goto(`/requests/${pending!.id}`);
  await lead.getByTestId('request-approve').click();
  const body = lead.getByTestId('request-approve-dialog');
  await expect(body).toContainText(pending!.approvals_required === 1 ? 'Yours is approval 1 of 1: it is the last one needed, so approving applies the change' : `Yours is approval 1 of ${pending!.approvals_required}: nothing moves yet`);
  await lead.keyboard.press('Escape');
});

test('the Chef tools page gives a config.rb whose key path chef-cli accepts', async ({ browser }) => {
  // chef-cli does not expand "~" in client_key ("I cannot read ~/.chef/release.pem"); a path beside config.rb works.
  const release = await pageAs(browser, 'release');
  await release.goto('/connect');
  const configRb = release.locator('pre').first();
  await expect(configRb).toContainText('client_key File.join(__dir__, "release.pem")');
  await expect(configRb).not.toContainText('~/');
});
