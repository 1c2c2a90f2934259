import { expect, test, type Page } from './test';
import { serverUrl } from './servers';
import { stateFile } from './roles';

/**
 * Issue 30: a ringed rollout on the board and its page. The spec starts its
 * own ring (through /api/v1/rings, on a dev policy that has another revision),
 * then pauses, resumes and rolls it back from the page, leaving dev as it was.
 */
test.use({ storageState: stateFile('admin') });

const cell = (page: Page, policy: string, stage: string) => page.locator(`tr[data-policy="${policy}"] td[data-stage="${stage}"]`);

async function startRing(page: Page): Promise<{ id: string; policy: string }> {
  const groups = await (await page.request.get('/api/v1/policy_groups')).json();
  const dev = groups.dev.policies as Record<string, { revision_id: string }>;
  const policies = (await (await page.request.get('/api/v1/policies')).json()) as Record<string, { revisions: Record<string, unknown> }>;
  for (const [policy, { revision_id: current }] of Object.entries(dev).sort()) {
    const other = Object.keys(policies[policy]?.revisions ?? {}).find((r) => r !== current);
    if (!other) continue;
    const res = await page.request.post('/api/v1/rings', { data: { stage: 'dev', policy, revision_id: other, steps: [50, 100], reason: 'e2e ring' }, headers: { origin: serverUrl() } });
    if (res.status() === 201) return { id: (await res.json()).ring.id, policy };
  }
  throw new Error('no dev policy of the demo has another revision to ring');
}

test('a ringed cell on the board, its rollout page, and pause / resume / roll back with confirmation', async ({ page }) => {
  const { id, policy } = await startRing(page);
  await page.goto('/');
  const ringCell = cell(page, policy, 'dev').getByTestId('ring-cell');
  await expect(ringCell).toContainText('ring 50%');
  await ringCell.click();
  await expect(page).toHaveURL(new RegExp(`/rings/${id}$`));
  await expect(page.getByTestId('ring-status')).toHaveText('active');
  await expect(page.getByTestId('ring-step')).toHaveCount(2);

  await page.getByTestId('ring-pause').click();
  await page.getByRole('dialog').getByRole('button', { name: 'Pause' }).click();
  await expect(page.getByTestId('ring-status')).toHaveText('paused');
  await page.getByTestId('ring-resume').click();
  await page.getByRole('dialog').getByRole('button', { name: 'Resume' }).click();
  await expect(page.getByTestId('ring-status')).toHaveText('active');

  await page.getByTestId('ring-rollback').click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('return to');
  await dialog.getByLabel('Reason (optional, audited)').fill('e2e: done');
  await dialog.getByRole('button', { name: 'Roll back' }).click();
  await expect(page.getByTestId('ring-status')).toHaveText('rolled back');

  await page.goto('/');
  await expect(cell(page, policy, 'dev').locator('a.mono').first()).toBeVisible();
  await expect(cell(page, policy, 'dev').getByTestId('ring-cell')).toHaveCount(0);
});

test('start a ringed rollout from the console: the guard answers before the click, the button says it, and the ring page opens', async ({ page }) => {
  const groups = await (await page.request.get('/api/v1/policy_groups')).json();
  const dev = groups.dev.policies as Record<string, { revision_id: string }>;
  const policies = (await (await page.request.get('/api/v1/policies')).json()) as Record<string, { revisions: Record<string, unknown> }>;
  const [policy, revision] = Object.entries(dev)
    .sort()
    .map(([p, { revision_id: current }]) => [p, Object.keys(policies[p]?.revisions ?? {}).find((r) => r !== current)] as const)
    .find(([, other]) => !!other)!;
  await page.goto('/rings');
  await page.getByRole('link', { name: 'Start a ringed rollout' }).first().click();
  await expect(page).toHaveURL(/\/rings\/new$/);
  await page.goto(`/rings/new?policy=${encodeURIComponent(policy)}&stage=dev&revision=${revision}`);
  const form = page.getByRole('form', { name: 'Start a ringed rollout' });
  await expect(form.getByLabel('Policy')).toHaveValue(policy);
  await expect(form.getByLabel('Revision the ring gets')).toHaveValue(revision!);
  await form.getByLabel("Steps (percent of the stage's nodes)").fill('50, 100');
  await expect(form.getByTestId('guard-answer')).toHaveAttribute('data-outcome', 'move');
  const start = form.getByTestId('start-ring');
  await expect(start).toHaveText(/^Start the ring at 50% \(\d+ of \d+ nodes?\)$/);
  await start.click();
  await expect(page).toHaveURL(/\/rings\/(?!new)[^/]+$/);
  await expect(page.getByTestId('ring-status')).toHaveText('active');
  await expect(page.getByTestId('ring-step')).toHaveCount(2);
});
