/**
 * Issue 29's three high and eight medium defects, one test each ("defect N: …"),
 * each independent of the others: it starts from the seeded demo (the database
 * is put back to the seed before every test of this file, so a test that fails
 * half way leaves nothing behind for the next), sets up its state through
 * /api/v1 as the demo users' own sessions, then checks the fixed behaviour in
 * the UI. Each one fails on the build before the fixes (4244e1d).
 *
 * Own data: mysql-replica qa → staging (no other spec moves it) and, for a
 * request that needs two approvals, webapp staging → production.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serverUrl } from './servers';
import { expect, test, type Page } from './test';
import { createdRequestId } from './approvals';
import { stateFile, type Role } from './roles';
import { restoreSeedState } from './seed-state';

type Json = Record<string, unknown>;
type Request = { id: string; status: string; approvals: unknown[]; approvals_required: number; from_revision_id: string | null; to_revision_id: string | null };

// Every test starts from the seeded demo, whatever the one before did.
test.beforeEach(() => restoreSeedState());

const POLICY = 'mysql-replica';

/** /api/v1 as the page's user (its session cookie; a cookie-authenticated write must come from the console's origin, lib/api/csrf.ts). */
async function api(page: Page, method: 'GET' | 'POST', path: string, data?: unknown, expected: number | number[] = 200): Promise<Json> {
  const res = await page.request.fetch(`/api/v1${path}`, { method, data, headers: { origin: serverUrl() } });
  const text = await res.text();
  expect([expected].flat(), `${method} ${path}: ${res.status()} ${text}`).toContain(res.status());
  return JSON.parse(text) as Json;
}

/** The revision a stage runs for a policy (the node read path's lock). */
const stageRevision = async (page: Page, stage: string, policy: string) => (await api(page, 'GET', `/policy_groups/${stage}/policies/${policy}`)).revision_id as string;

/** Promotes a whole policy through the API where the change needs approvals: the request it opens. */
async function requestPromotion(page: Page, policy: string, from: string, to: string): Promise<Request> {
  const expected = await stageRevision(page, to, policy);
  const body = await api(page, 'POST', `/policy_groups/${to}/promote`, { from, policies: [policy], expected: { [policy]: expected }, reason: 'e2e: guard-dialogs' }, 202);
  return body.request as Request;
}

/** Promotes one cookbook of mysql-replica from qa into staging: 202 with a request (mysql, a major bump), 201 when it moves at once (apt, a minor one). */
async function promoteCookbook(page: Page, cookbook: string, expectedStatus: 201 | 202): Promise<Json> {
  const expected = await stageRevision(page, 'staging', POLICY);
  return api(page, 'POST', `/policy_groups/staging/policies/${POLICY}/promote-cookbook`, { from: 'qa', cookbook, expected_revision_id: expected, reason: `e2e: ${cookbook}` }, expectedStatus);
}

const getRequest = async (page: Page, id: string) => (await api(page, 'GET', `/promotion_requests/${encodeURIComponent(id)}`)).request as Request;

/** A pending request for mysql alone, then apt moved into staging at once: the mysql request was made against a lock staging no longer runs. */
async function staleCookbookRequest(release: Page): Promise<Request> {
  const asked = (await promoteCookbook(release, 'mysql', 202)).request as Request;
  await promoteCookbook(release, 'apt', 201);
  return asked;
}

test('defect 1 (high): the promotion dialog says before the click whether the change needs approval, how many, or moves at once', async ({ pageAs }) => {
  const release = await pageAs('release');
  await release.goto(`/compare?policy=${POLICY}&from=qa&to=staging`);

  // The whole policy into staging is a major mysql bump: one approval, and the button says so.
  await release.getByTestId('compare-promote').click();
  let dialog = release.getByTestId('promote-dialog');
  await expect(dialog.getByTestId('promote-confirm')).toHaveText('Request 1 approval — Promote to staging');
  await expect(dialog.getByTestId('guard-answer')).toHaveAttribute('data-outcome', 'request');
  await expect(dialog.getByTestId('guard-headline')).toHaveText('Needs 1 approval: opens a request');
  await expect(dialog.getByTestId('guard-reasons')).toContainText('major');
  await release.keyboard.press('Escape');

  // A minor cookbook bump into the same protected stage moves at once, and the dialog says so.
  await release.locator('[data-change="cookbook"][data-cookbook="apt"]').getByTestId('promote-cookbook').click();
  dialog = release.getByTestId('promote-dialog');
  await expect(dialog.getByTestId('promote-confirm')).toHaveText('Move now — Promote apt to staging');
  await expect(dialog.getByTestId('guard-answer')).toHaveAttribute('data-outcome', 'move');
  await expect(dialog.getByTestId('guard-summary')).toContainText('its rules ask for no approval of this change');
});

test('defect 2 (high): re-requesting an outdated single-cookbook request recomputes the change from what the stage runs now, with its diff', async ({ pageAs }) => {
  const release = await pageAs('release');
  const lead = await pageAs('lead');
  const stale = await staleCookbookRequest(release);
  // The approver's approval finds staging moved: the request is outdated, nothing moves (answered 409 since the fix, 200 before).
  await api(lead, 'POST', `/promotion_requests/${encodeURIComponent(stale.id)}/approve`, { comment: 'e2e' }, [200, 409]);
  expect((await getRequest(release, stale.id)).status).toBe('outdated');

  await release.goto(`/requests/${encodeURIComponent(stale.id)}`);
  await release.getByTestId('request-rerequest').click();
  const dialog = release.getByRole('dialog');
  // The change is mysql alone, derived from what staging runs now (apt 7.5.0): shown before the click, nothing downgraded.
  await expect(dialog).toContainText('mysql 10.1.0 → 11.0.0');
  await expect(dialog).toContainText('Ask again: cookbook mysql of mysql-replica → staging');
  await expect(dialog.getByTestId('cookbook-changes').locator('li')).toHaveCount(1);
  await expect(dialog.getByTestId('guard-answer')).toHaveAttribute('data-outcome', 'request');
  await expect(dialog.getByTestId('guard-answer')).not.toContainText('Downgrades');
  await dialog.getByTestId('promote-confirm').click();
  const again = await getRequest(release, await createdRequestId(dialog));

  // The new request asks for staging's current lock with mysql 11.0.0 — apt stays at 7.5.0.
  expect(again.from_revision_id).toBe(await stageRevision(release, 'staging', POLICY));
  const lock = await api(release, 'GET', `/policies/${POLICY}/revisions/${again.to_revision_id}?raw=true`);
  const versions = Object.fromEntries(Object.entries(lock.cookbook_locks as Record<string, { version: string }>).map(([name, cb]) => [name, cb.version]));
  expect(versions).toMatchObject({ mysql: '11.0.0', apt: '7.5.0' });
});

test('defect 3 (high): a freeze override given by the last approver is recorded as the approver\'s, in the history, the audit log and the freeze.overridden webhook', async ({ pageAs }) => {
  // A receiver for the freeze.overridden webhook (the console delivers to it from its outbox worker).
  const received: Json[] = [];
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push(JSON.parse(body) as Json);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    const release = await pageAs('release');
    const admin = await pageAs('admin');
    const { port } = receiver.address() as AddressInfo;
    await api(admin, 'POST', '/webhooks', { name: 'e2e freeze overrides', url: `http://127.0.0.1:${port}/hook`, events: ['freeze.overridden'], allow_private_targets: true }, 201);
    // release (promote, not manage) asks; then staging freezes; admin (an approver who manages staging) approves, overriding the freeze.
    const asked = await requestPromotion(release, POLICY, 'qa', 'staging');
    await api(admin, 'POST', '/policy_groups/staging/freezes', { starts_at: new Date(Date.now() - 60_000).toISOString(), ends_at: new Date(Date.now() + 3_600_000).toISOString(), reason: 'e2e guard-dialogs freeze' }, 201);

    await admin.goto(`/requests/${encodeURIComponent(asked.id)}`);
    await admin.getByTestId('request-approve').click();
    const dialog = admin.getByTestId('request-approve-dialog');
    // Issue 43: the last approver learns of the freeze before approving, and (a manager) writes the override there.
    await expect(dialog.getByTestId('approve-freeze')).toContainText('staging is frozen until');
    await expect(dialog.getByRole('button', { name: 'Approve', exact: true })).toBeDisabled();
    await dialog.getByLabel(/Override the freeze: reason/).fill('e2e: the approver overrides');
    await dialog.getByRole('button', { name: 'Approve', exact: true }).click();
    await expect(admin.getByTestId('request-status')).toHaveAttribute('data-status', 'applied');

    // The history names the approver as the one who overrode the freeze, not the requester.
    await admin.goto(`/history?policy=${POLICY}&stage=staging`);
    const override = admin.getByTestId('history').getByTestId('freeze-override');
    await expect(override).toContainText('freeze override by admin@example.com');
    await expect(override).not.toContainText('release@example.com');
    // The audit log has the override as admin's own entry.
    await admin.goto(`/audit?policy=${POLICY}&stage=staging&action=freeze.override`);
    const entry = admin.getByTestId('audit-table').locator('tr[data-action="freeze.override"]');
    await expect(entry).toHaveCount(1);
    await expect(entry.locator('td').nth(1)).toHaveText('admin@example.com');
    await expect(entry).toContainText('e2e: the approver overrides');
    // And so does the webhook (delivered when the outbox worker runs next).
    await expect.poll(() => received.length, { message: 'the freeze.overridden webhook arrives', timeout: 30_000 }).toBeGreaterThan(0);
    const event = received[0] as { event: string; summary: string; data: Json };
    expect(event.event).toBe('freeze.overridden');
    expect(event.data.overridden_by).toBe('admin@example.com');
    expect(event.summary).toMatch(/^admin@example\.com overrode the freeze of staging/);
  } finally {
    await new Promise((resolve) => receiver.close(resolve));
  }
});

test('defect 4: the request page\'s diff header reads before → after (what the stage ran → what was asked for)', async ({ pageAs }) => {
  const release = await pageAs('release');
  const asked = await requestPromotion(release, POLICY, 'qa', 'staging');
  await release.goto(`/requests/${encodeURIComponent(asked.id)}`);
  const header = release.getByTestId('compare-view').locator('.card').first();
  // Left: the revision staging ran when asked; right: the requested one.
  const sides = header.locator('.mono[title]');
  await expect(sides).toHaveCount(2);
  await expect(sides.nth(0)).toHaveAttribute('title', asked.from_revision_id!);
  await expect(sides.nth(1)).toHaveAttribute('title', asked.to_revision_id!);
  await expect(release.getByTestId('change-before')).toContainText('Before');
  await expect(release.getByTestId('change-before')).toContainText('staging when asked');
  await expect(release.getByTestId('change-after')).toContainText('After');
  await expect(release.getByTestId('change-after')).toContainText('requested (from qa)');
});

test('defect 5: a request whose stage has moved offers no approval, and the server refuses one with 409', async ({ pageAs }) => {
  const release = await pageAs('release');
  const lead = await pageAs('lead');
  const stale = await staleCookbookRequest(release);

  await lead.goto(`/requests/${encodeURIComponent(stale.id)}`);
  await expect(lead.getByTestId('request-status-line')).toBeVisible();
  await expect(lead.getByTestId('request-approve')).toHaveCount(0);
  await expect(lead.getByTestId('approve-hint')).toContainText('can no longer be approved');
  await expect(lead.getByTestId('request-status-line')).toContainText('outdated');

  // The server refuses the approval (409), records none, and nothing moves.
  const staging = await stageRevision(lead, 'staging', POLICY);
  const refused = await api(lead, 'POST', `/promotion_requests/${encodeURIComponent(stale.id)}/approve`, { comment: 'e2e' }, 409);
  expect(JSON.stringify(refused)).toContain('outdated');
  const after = await getRequest(lead, stale.id);
  expect(after.status).toBe('outdated');
  expect(after.approvals).toEqual([]);
  expect(await stageRevision(lead, 'staging', POLICY)).toBe(staging);
});

test('defect 6: the approve dialog says what this approval does ("1 of 2: nothing moves yet", "the last one: this applies the change")', async ({ pageAs }) => {
  const release = await pageAs('release');
  const lead = await pageAs('lead');
  const one = await requestPromotion(release, POLICY, 'qa', 'staging');
  const two = await requestPromotion(release, 'webapp', 'staging', 'production');
  expect([one.approvals_required, two.approvals_required]).toEqual([1, 2]);

  await lead.goto(`/requests/${encodeURIComponent(two.id)}`);
  await lead.getByTestId('request-approve').click();
  await expect(lead.getByTestId('request-approve-dialog')).toContainText('Yours is approval 1 of 2: nothing moves yet; 1 more approval is needed after yours.');
  await lead.keyboard.press('Escape');

  await lead.goto(`/requests/${encodeURIComponent(one.id)}`);
  await lead.getByTestId('request-approve').click();
  await expect(lead.getByTestId('request-approve-dialog')).toContainText('Yours is approval 1 of 1: it is the last one needed, so approving applies the change');
  await expect(lead.getByTestId('request-approve-dialog')).toContainText(`staging moves to ${one.to_revision_id!.slice(0, 10)} of ${POLICY} at once`);
});

test('defect 7: "Run newest upload" does not offer a revision the console derived (it would run an old lock again)', async ({ pageAs }) => {
  const release = await pageAs('release');
  // apt alone into staging derives a revision from staging's lock; returning to the seed's revision leaves it running nowhere.
  const seeded = await stageRevision(release, 'staging', POLICY);
  await promoteCookbook(release, 'apt', 201);
  const derived = await stageRevision(release, 'staging', POLICY);
  await api(release, 'POST', `/policy_groups/staging/policies/${POLICY}/rollback`, { to_revision_id: seeded, expected_revision_id: derived, reason: 'e2e: back to the seed' });
  const orphans = (await api(release, 'GET', `/policies/${POLICY}/revisions?orphans=true`)).revisions as Json;
  expect(Object.keys(orphans)).toContain(derived);

  await release.goto('/');
  const row = release.locator(`tr[data-policy="${POLICY}"]`);
  await expect(row).toBeVisible();
  await expect(row).not.toContainText(derived.slice(0, 10));
  await expect(row.getByTestId('run-newest')).toHaveCount(0);
});

test('defect 8: the Chef tools page gives a config.rb whose key path chef-cli accepts', async ({ pageAs }) => {
  // chef-cli does not expand "~" in client_key ("I cannot read ~/.chef/release.pem"); a path beside config.rb works.
  const release = await pageAs('release');
  await release.goto('/connect');
  const configRb = release.locator('pre').first();
  await expect(configRb).toContainText('client_key');
  await expect(configRb).not.toContainText('~/');
  await expect(configRb).toContainText('client_key File.join(__dir__, "release.pem")');
});

test('defect 9: a rejected request can be asked for again', async ({ pageAs }) => {
  const release = await pageAs('release');
  const lead = await pageAs('lead');
  const asked = await requestPromotion(release, POLICY, 'qa', 'staging');
  await api(lead, 'POST', `/promotion_requests/${encodeURIComponent(asked.id)}/reject`, { comment: 'e2e: not now' });

  await release.goto(`/requests/${encodeURIComponent(asked.id)}`);
  await expect(release.getByTestId('request-status-line')).toContainText('rejected');
  await expect(release.getByTestId('request-rerequest')).toBeVisible();
  await release.getByTestId('request-rerequest').click();
  const dialog = release.getByRole('dialog');
  await expect(dialog).toContainText('Ask again: mysql-replica → staging');
  await expect(dialog.getByTestId('promote-confirm')).toHaveText('Request 1 approval — Ask again');
  await dialog.getByTestId('promote-confirm').click();
  const again = await getRequest(release, await createdRequestId(dialog));
  expect(again.id).not.toBe(asked.id);
  expect(again.status).toBe('pending');
  expect(again.to_revision_id).toBe(asked.to_revision_id);
});

test('defect 10: after a request action, focus lands on the request\'s status, not the page body', async ({ pageAs }) => {
  const release = await pageAs('release');
  const lead = await pageAs('lead');
  const two = await requestPromotion(release, 'webapp', 'staging', 'production');
  const one = await requestPromotion(release, POLICY, 'qa', 'staging');

  // An approval that is not the last one.
  await lead.goto(`/requests/${encodeURIComponent(two.id)}`);
  await lead.getByTestId('request-approve').click();
  await lead.getByTestId('request-approve-dialog').getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(lead.getByTestId('approval-count')).toHaveText('1 of 2');
  await expect(lead.getByTestId('request-status-line')).toBeFocused();

  // A rejection.
  await lead.goto(`/requests/${encodeURIComponent(one.id)}`);
  await lead.getByTestId('request-reject').click();
  await lead.getByRole('dialog').getByLabel(/Comment/).fill('e2e: not now');
  await lead.getByRole('dialog').getByRole('button', { name: 'Reject', exact: true }).click();
  await expect(lead.getByTestId('request-status-line')).toContainText('rejected');
  await expect(lead.getByTestId('request-status-line')).toBeFocused();
});

test('defect 11: the request page\'s deep link has no stray "?"', async ({ pageAs }) => {
  const release = await pageAs('release');
  const asked = await requestPromotion(release, POLICY, 'qa', 'staging');
  const path = `/requests/${encodeURIComponent(asked.id)}`;
  await release.goto(path);
  const deepLink = release.getByText('Deep link to this view:').getByRole('link');
  await expect(deepLink).toHaveText(path);
  await expect(deepLink).toHaveAttribute('href', path);
});
