/**
 * Issue 47 in the browser: Admin → Stages sets a stage's automatic promotion and edits its gate's outside checks
 * (http and prometheus; the server's field errors under each field; read-only, with the reason, for a manager who is
 * not an administrator, whom the server refuses too); the board's automation badge per stage — off, on, waiting (for
 * what), held (by whom) — and the Resume button on the stage's history page lifting the hold.
 *
 * "waiting" is written by the rollout worker's pass; the e2e servers run it every minute, so the spec runs one pass
 * itself on the worker's database (the same code, `autoPromotePass`) instead of waiting for the clock.
 */
import { execFileSync } from 'node:child_process';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from './test';
import { stateFile } from './roles';
import { e2eDatabaseUrl } from './servers';

test.use({ storageState: stateFile('admin') });

/** One pass of the automatic promotion on this worker's database, as the server's rollout worker runs it. */
function autoPromotePass(): void {
  execFileSync('npx', ['tsx', '-e', "import('./lib/services/runs/auto-promote.ts').then((m) => m.autoPromotePass()).then(() => process.exit(0))"], {
    env: { ...process.env, DATABASE_URL: e2eDatabaseUrl() },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

const origin = (page: Page) => ({ origin: new URL(page.url()).origin });

/** WCAG 2.0/2.1 A and AA violations inside `selector` (as e2e/a11y.spec.ts checks whole pages). */
async function violationsIn(page: Page, selector: string): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).include(selector).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

test('Admin → Stages: automatic promotion and the gate’s outside checks (administrator), read-only for a manager who is not one', async ({ page, browser }) => {
  await page.goto('/admin/stages');
  const section = page.locator('details[data-testid="rollout-rules"][data-stage="qa"]');
  await section.locator('summary').click();
  const form = section.getByTestId('rollout-rule-form');
  await form.getByTestId('gate-enabled').check();
  await form.getByTestId('auto-promote-enabled').check();
  await form.getByLabel('And has soaked in the stage before for').fill('5');

  // An http check on a loopback address without the allowance: the server names the field and the rule.
  await form.getByTestId('gate-check-add').click();
  const smoke = form.getByTestId('gate-check').nth(0);
  await smoke.getByLabel('Name', { exact: true }).fill('smoke');
  await smoke.getByLabel('URL').fill('http://127.0.0.1:9/ready');
  await smoke.getByLabel('Expected statuses').fill('200');
  await form.getByTestId('rollout-rule-save').click();
  await expect(smoke.getByText(/url must not point at a loopback, link-local, private or unspecified address \(set gate\.checks\[0\]\.allow_private_targets/)).toBeVisible();
  await expect(smoke.getByLabel('URL')).toHaveAttribute('aria-invalid', 'true');

  // Allowed explicitly; a prometheus check without bounds: named by its field too.
  await smoke.getByTestId('gate-check-private').check();
  await form.getByTestId('gate-check-add').click();
  const errors = form.getByTestId('gate-check').nth(1);
  await errors.getByLabel('Name', { exact: true }).fill('errors');
  await errors.getByLabel('Kind').selectOption('prometheus');
  await errors.getByLabel('URL').fill('https://prometheus.example.com/');
  await errors.getByLabel('Query (PromQL)').fill('sum(rate(http_errors_total[5m]))');
  await form.getByTestId('rollout-rule-save').click();
  await expect(errors.getByText('a prometheus check needs min, max or both')).toBeVisible();
  expect(await violationsIn(page, 'details[data-testid="rollout-rules"][data-stage="qa"]'), 'the check editor with field errors').toEqual([]);

  await errors.getByLabel('At most (max)').fill('0.5');
  await form.getByTestId('rollout-rule-save').click();
  await expect(page.getByText('qa: promotion gate on, automatic promotion on, automatic rollback off')).toBeVisible();
  let saved = await (await page.request.get('/api/v1/policy_groups/qa/rollout')).json();
  expect(saved.auto_promote).toEqual({ enabled: true, soak_minutes: 5 });
  expect(saved.gate.checks).toEqual([
    { name: 'smoke', kind: 'http', url: 'http://127.0.0.1:9/ready', expect_status: [200], allow_private_targets: true },
    { name: 'errors', kind: 'prometheus', url: 'https://prometheus.example.com/', query: 'sum(rate(http_errors_total[5m]))', max: 0.5 },
  ]);

  // Edited and removed: one check left, expecting 200 or 204.
  const again = page.locator('details[data-testid="rollout-rules"][data-stage="qa"]').getByTestId('rollout-rule-form');
  await again.getByTestId('gate-check').nth(0).getByLabel('Expected statuses').fill('200, 204');
  await again.getByRole('button', { name: 'Remove check errors' }).click();
  await expect(again.getByTestId('gate-check')).toHaveCount(1);
  await again.getByTestId('rollout-rule-save').click();
  await expect
    .poll(async () => (await (await page.request.get('/api/v1/policy_groups/qa/rollout')).json()).gate.checks)
    .toEqual([{ name: 'smoke', kind: 'http', url: 'http://127.0.0.1:9/ready', expect_status: [200, 204], allow_private_targets: true }]);

  // A manager of qa who is not an administrator: the checks are read-only and the page says why; the server refuses a change.
  const grant = await page.request.put('/api/v1/policy_groups/qa/permissions', { data: { subject: { type: 'user', email: 'release@example.com' }, level: 'manage' }, headers: origin(page) });
  expect(grant.status(), await grant.text()).toBe(200);
  const context = await browser.newContext({ storageState: stateFile('release') });
  const release = await context.newPage();
  await release.goto('/admin/stages');
  const theirs = release.locator('details[data-testid="rollout-rules"][data-stage="qa"]').getByTestId('rollout-rule-form');
  await expect(theirs.getByTestId('gate-checks-rights')).toHaveText(/Only an administrator registers or changes outside checks: the console fetches their URLs from the server\./);
  await expect(theirs.getByTestId('gate-check').getByLabel('URL')).toBeDisabled();
  await expect(theirs.getByTestId('gate-check-add')).toHaveCount(0);
  await expect(theirs.getByRole('button', { name: /Remove check/ })).toHaveCount(0);
  await expect(theirs.getByTestId('auto-promote-enabled')).toBeEnabled();
  const refused = await release.request.put('/api/v1/policy_groups/qa/rollout', { data: { gate: { enabled: true, checks: [] } }, headers: origin(release) });
  expect(refused.status()).toBe(403);
  saved = await (await page.request.get('/api/v1/policy_groups/qa/rollout')).json();
  expect(saved.gate.checks).toHaveLength(1);
});

test('the board shows each stage’s automation (off, on, waiting for what, held by whom) and Resume lifts the hold', async ({ page }) => {
  await page.goto('/');
  const put = async (stage: string, data: unknown) => {
    const r = await page.request.put(`/api/v1/policy_groups/${stage}/rollout`, { data, headers: origin(page) });
    expect(r.status(), await r.text()).toBe(200);
  };
  // qa: on, with an outside check nobody answers (inconclusive); staging: gated, automation off; a new last stage
  // running nothing yet: on, with nothing to wait for (the automation promotes only policies a stage already runs).
  await put('qa', { gate: { enabled: true, min_nodes: 1, min_success_pct: 50, checks: [{ name: 'smoke', kind: 'http', url: 'http://127.0.0.1:9/ready', timeout_ms: 500, allow_private_targets: true }] }, auto_promote: { enabled: true } });
  await put('staging', { gate: { enabled: true } });
  const created = await page.request.put('/api/v1/policy_groups/canary', { data: {}, headers: origin(page) });
  expect(created.status(), await created.text()).toBeLessThan(300);
  await put('canary', { gate: { enabled: true }, auto_promote: { enabled: true } });
  await page.reload();
  const badge = (stage: string) => page.locator('[data-testid="stage-board"] thead th', { hasText: new RegExp(`^${stage}`) }).getByTestId('stage-automation');
  await expect(badge('staging')).toHaveAttribute('data-state', 'off');
  await expect(badge('staging')).toHaveText('auto: off');
  await expect(badge('staging')).toHaveAttribute('title', 'Automatic promotion into staging is off.');
  await expect(badge('dev')).toHaveCount(0);

  // The worker's pass: qa waits, and the badge says for what.
  autoPromotePass();
  await page.reload();
  await expect(badge('qa')).toHaveAttribute('data-state', 'waiting');
  await expect(badge('qa')).toHaveText(/^auto: waiting/);
  await expect(badge('qa')).toHaveAttribute('title', /^Automatic promotion into qa is waiting: .+/);
  await expect(badge('canary')).toHaveAttribute('data-state', 'on');
  await expect(badge('canary')).toHaveText('auto: on');

  // A person moves another revision into qa than dev runs (staging's logstash-shipper): automation is held, by whom.
  const qa = await (await page.request.get('/api/v1/policy_groups/qa')).json();
  const moved = await page.request.post('/api/v1/policy_groups/qa/promote', {
    data: { from: 'staging', policies: ['logstash-shipper'], expected: { 'logstash-shipper': qa.policies['logstash-shipper'].revision_id }, reason: 'pin the released shipper in qa', gate_override_reason: 'the released one is what qa tests now' },
    headers: origin(page),
  });
  expect(moved.status(), await moved.text()).toBe(200);
  await page.reload();
  await expect(badge('qa')).toHaveAttribute('data-state', 'held');
  await expect(badge('qa')).toHaveText('auto: held by admin@example.com');

  // The badge leads to the stage's automation: Resume lifts the hold.
  await badge('qa').click();
  const panel = page.getByTestId('automation-panel');
  await expect(panel).toHaveAttribute('data-state', 'held');
  await expect(panel.getByTestId('automation-state')).toContainText('admin@example.com');
  expect(await violationsIn(page, '[data-testid="automation-panel"]'), 'the held automation panel').toEqual([]);
  await panel.getByLabel('Why resume (optional)').fill('the pin is intended; automate again');
  await panel.getByTestId('automation-resume').click();
  await expect(page.getByText('Automatic promotion into qa resumed', { exact: true })).toBeVisible();
  await expect(panel).toHaveAttribute('data-state', /^(on|waiting)$/);
  await expect(panel.getByTestId('stage-timeline').locator('li[data-kind="resumed"]')).toContainText('the pin is intended; automate again');

  await page.goto('/');
  await expect(badge('qa')).toHaveAttribute('data-state', /^(on|waiting)$/);
});
