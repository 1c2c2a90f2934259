/**
 * Issue 29: every outcome of the guard is said before the click, in the dialog,
 * and its confirm button says it: moves now, a request with N approvals, a
 * freeze (refused without the right to override, an override with it), a bad
 * revision, an unmet promotion gate (issue 26's rule, set through the API).
 * The compose page's "save into stage" shows the same dry run. And the smaller
 * defects: the pending-count badge on Requests, the jump to a policy's row, the
 * compare deep link without a stray "?", toasts at WCAG AA all through their
 * animation.
 *
 * Own data: jenkins-ci dev → qa and webapp staging → production, webapp composed
 * by admin; every guard set here (gate, freeze, bad mark) is taken off again.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Browser, type Page } from './test';
import { createdRequestId } from './approvals';
import { stateFile, type Role } from './roles';

const pageAs = async (browser: Browser, role: Role) => (await browser.newContext({ storageState: stateFile(role) })).newPage();
const cell = (page: Page, policy: string, stage: string) => page.locator(`tr[data-policy="${policy}"] td[data-stage="${stage}"]`);
/** A cookie-authenticated write must come from the console's own origin (lib/api/csrf.ts). */
const origin = (page: Page) => ({ origin: new URL(page.url()).origin });

/** Opens the promote dialog of jenkins-ci dev → qa on the board. */
async function openJenkinsPromote(page: Page) {
  await page.goto('/');
  await cell(page, 'jenkins-ci', 'dev').getByTestId('promote-button').click();
  const dialog = page.getByTestId('promote-dialog');
  await expect(dialog.getByTestId('guard-answer')).not.toHaveAttribute('data-outcome', 'pending');
  return dialog;
}

async function badgeCount(page: Page): Promise<number> {
  const badge = page.getByTestId('nav-requests-badge');
  return (await badge.count()) ? parseInt((await badge.textContent()) ?? '0', 10) : 0;
}

test('each guard outcome is said before the click, and the confirm button says it', async ({ browser }) => {
  const dev = await pageAs(browser, 'dev');
  const admin = await pageAs(browser, 'admin');
  await admin.goto('/');

  // Moves now: qa asks for no approval.
  let dialog = await openJenkinsPromote(dev);
  await expect(dialog.getByTestId('guard-answer')).toHaveAttribute('data-outcome', 'move');
  await expect(dialog.getByTestId('guard-headline')).toHaveText('Moves now: no approval needed');
  await expect(dialog.getByTestId('promote-confirm')).toHaveText('Move now — Promote to qa');
  await dev.keyboard.press('Escape');

  // Gate unmet: qa's promotion gate (issue 26) asks for 50 converged nodes in dev.
  const gate = await admin.request.put('/api/v1/policy_groups/qa/rollout', { data: { gate: { enabled: true, min_success_pct: 80, min_nodes: 50, max_failure_pct: 10, soak_minutes: 0 } }, headers: origin(admin) });
  expect(gate.status(), await gate.text()).toBe(200);
  dialog = await openJenkinsPromote(dev);
  await expect(dialog.getByTestId('guard-answer')).toHaveAttribute('data-outcome', 'blocked');
  await expect(dialog.getByTestId('guard-gate')).toHaveAttribute('data-met', 'false');
  await expect(dialog.getByTestId('guard-gate')).toContainText('of at least 50 node(s) in dev converged');
  await expect(dialog.getByTestId('guard-gate')).toContainText('Only someone who manages qa may override the gate');
  await expect(dialog.getByTestId('promote-confirm')).toHaveText('Promotion gate not met — Promote to qa');
  await expect(dialog.getByTestId('promote-confirm')).toBeDisabled();
  await dev.keyboard.press('Escape');
  // The admin manages qa: the same gate is an override, which needs a reason.
  dialog = await openJenkinsPromote(admin);
  await expect(dialog.getByTestId('guard-gate')).toContainText('of at least 50 node(s) in dev converged');
  await expect(dialog.getByTestId('promote-confirm')).toHaveText('Override the gate — Promote to qa');
  await expect(dialog.getByTestId('promote-confirm')).toBeDisabled();
  await dialog.getByLabel(/Override the gate: reason/).fill('e2e: gate override');
  await expect(dialog.getByTestId('promote-confirm')).toBeEnabled();
  await admin.keyboard.press('Escape');
  const ungate = await admin.request.put('/api/v1/policy_groups/qa/rollout', { data: { gate: { enabled: false } }, headers: origin(admin) });
  expect(ungate.status(), await ungate.text()).toBe(200);

  // Frozen: refused for dev (promote, not manage), an override for the admin.
  const freeze = await admin.request.post('/api/v1/policy_groups/qa/freezes', {
    data: { starts_at: new Date(Date.now() - 60_000).toISOString(), ends_at: new Date(Date.now() + 3_600_000).toISOString(), reason: 'e2e outcomes freeze' },
    headers: origin(admin),
  });
  expect(freeze.status(), await freeze.text()).toBe(201);
  const freezeId = ((await freeze.json()) as { freeze: { id: string } }).freeze.id;
  dialog = await openJenkinsPromote(dev);
  await expect(dialog.getByTestId('guard-answer')).toHaveAttribute('data-outcome', 'blocked');
  await expect(dialog.getByTestId('guard-freeze')).toContainText('e2e outcomes freeze');
  await expect(dialog.getByTestId('guard-freeze')).toContainText('Only someone who manages this stage may override it');
  await expect(dialog.getByTestId('promote-confirm')).toHaveText('Frozen — Promote to qa');
  await expect(dialog.getByTestId('promote-confirm')).toBeDisabled();
  await dev.keyboard.press('Escape');
  dialog = await openJenkinsPromote(admin);
  await expect(dialog.getByTestId('guard-answer')).toHaveAttribute('data-outcome', 'move');
  await expect(dialog.getByTestId('guard-freeze')).toContainText('You manage this stage and may override the freeze');
  await expect(dialog.getByTestId('promote-confirm')).toHaveText('Override the freeze — Promote to qa');
  await expect(dialog.getByTestId('promote-confirm')).toBeDisabled();
  await dialog.getByLabel(/Override the freeze: reason/).fill('e2e: freeze override');
  await expect(dialog.getByTestId('promote-confirm')).toBeEnabled();
  await admin.keyboard.press('Escape');
  expect((await admin.request.delete(`/api/v1/policy_groups/qa/freezes/${encodeURIComponent(freezeId)}`, { headers: origin(admin) })).status()).toBe(200);

  // A bad revision: refused before the click, with who and why.
  const devRevision = (await cell(dev, 'jenkins-ci', 'dev').locator('a.mono').first().getAttribute('title'))!;
  const bad = await admin.request.put(`/api/v1/policies/jenkins-ci/revisions/${devRevision}/bad`, { data: { reason: 'e2e outcomes: leaks handles' }, headers: origin(admin) });
  expect(bad.status(), await bad.text()).toBe(200);
  dialog = await openJenkinsPromote(dev);
  await expect(dialog.getByTestId('guard-answer')).toHaveAttribute('data-outcome', 'blocked');
  await expect(dialog.getByTestId('guard-bad')).toContainText('e2e outcomes: leaks handles');
  await expect(dialog.getByTestId('promote-confirm')).toHaveText('Revision marked bad — Promote to qa');
  await expect(dialog.getByTestId('promote-confirm')).toBeDisabled();
  await dev.keyboard.press('Escape');
  expect((await admin.request.delete(`/api/v1/policies/jenkins-ci/revisions/${devRevision}/bad`, { headers: origin(admin) })).status()).toBe(200);

  // Back to moves now, and it does: the success toast stays fully opaque from its first frame to its removal
  // (sampled every frame), and meets WCAG AA at rest.
  dialog = await openJenkinsPromote(dev);
  await expect(dialog.getByTestId('promote-confirm')).toHaveText('Move now — Promote to qa');
  await dev.evaluate(() => {
    const w = window as unknown as { toastMin: number; toastFrames: number };
    w.toastMin = 1;
    w.toastFrames = 0;
    const sample = () => {
      for (const el of document.querySelectorAll<HTMLElement>('[data-sonner-toast]')) {
        const cs = getComputedStyle(el);
        if (cs.visibility === 'hidden') continue;
        w.toastFrames++;
        let o = Number(cs.opacity);
        for (const child of Array.from(el.children)) {
          const c = getComputedStyle(child);
          if (c.visibility !== 'hidden') o = Math.min(o, Number(c.opacity));
        }
        w.toastMin = Math.min(w.toastMin, o);
      }
      requestAnimationFrame(sample);
    };
    requestAnimationFrame(sample);
  });
  await dialog.getByTestId('promote-confirm').click();
  const toast = dev.locator('[data-sonner-toast]').filter({ hasText: 'Promoted jenkins-ci to qa' });
  await expect(toast).toBeVisible();
  await expect(toast).toHaveAttribute('data-mounted', 'true');
  // The pointer on the toast holds its timer (as for a reader), so axe checks the toast itself however long
  // axe takes on a loaded machine (two runs at once: the toast dismissed itself mid-analysis, and there was
  // no toast left to close).
  await toast.hover();
  const { violations } = await new AxeBuilder({ page: dev }).include('[data-sonner-toaster]').withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.failureSummary).join(' | ')}`)).toEqual([]);
  await expect(toast, 'axe looked at the toast, not at an empty toaster').toBeVisible();
  await toast.getByRole('button', { name: 'Close toast' }).click();
  await expect(toast).toHaveCount(0);
  const sampled = await dev.evaluate(() => {
    const w = window as unknown as { toastMin: number; toastFrames: number };
    return { min: w.toastMin, frames: w.toastFrames };
  });
  expect(sampled.frames).toBeGreaterThan(0);
  expect(sampled.min, 'the lowest opacity of a visible toast (1: never faded)').toBe(1);
});

test('a request with N approvals; the Requests badge counts what awaits my approval; the deep link has no stray "?"; a keyboard jump to a row', async ({ browser }) => {
  const lead = await pageAs(browser, 'lead');
  await lead.goto('/');
  const before = await badgeCount(lead);

  const release = await pageAs(browser, 'release');
  await release.goto('/');
  // Jump to a row: type the policy, Enter lands on its first promote button (not 100 Tab presses away).
  await release.getByLabel('Search policies').fill('webapp');
  await release.getByLabel('Search policies').press('Enter');
  await expect(release.locator('tr[data-policy="webapp"]').getByTestId('promote-button').first()).toBeFocused();
  await cell(release, 'webapp', 'staging').getByTestId('promote-button').click();
  const dialog = release.getByTestId('promote-dialog');
  await expect(dialog.getByTestId('guard-answer')).toHaveAttribute('data-outcome', 'request');
  await expect(dialog.getByTestId('guard-headline')).toHaveText('Needs 2 approvals: opens a request');
  await expect(dialog.getByTestId('guard-reasons')).toContainText('major');
  await expect(dialog.getByTestId('promote-confirm')).toHaveText('Request 2 approvals — Promote to production');
  await dialog.getByLabel(/Reason/).fill('e2e: outcomes');
  await dialog.getByTestId('promote-confirm').click();
  const id = await createdRequestId(release.getByRole('dialog'));
  // The requester's own request is not theirs to approve: no badge for it.
  await release.goto(`/requests/${encodeURIComponent(id)}`);
  await expect(release.getByTestId('nav-requests-badge')).toHaveCount(0);
  const deepLink = release.getByText('Deep link to this view:').getByRole('link');
  await expect(deepLink).toHaveAttribute('href', `/requests/${encodeURIComponent(id)}`);

  // The approver's badge counts it (server-computed on every page).
  await lead.goto('/');
  await expect(lead.getByTestId('nav-requests-badge')).toContainText(String(before + 1));
  await expect(lead.getByRole('link', { name: /^Requests/ })).toHaveAccessibleName(new RegExp(`^Requests\\s*${before + 1} awaiting your approval$`));
  // A viewer approves nothing: no badge.
  const viewer = await pageAs(browser, 'viewer');
  await viewer.goto('/');
  await expect(viewer.getByRole('link', { name: /^Requests/ })).toBeVisible();
  await expect(viewer.getByTestId('nav-requests-badge')).toHaveCount(0);
});

test('compose: "save into stage" shows the guard\'s answer and the button says it', async ({ browser }) => {
  const admin = await pageAs(browser, 'admin');
  await admin.goto('/compose?policy=webapp');
  await admin.getByLabel('Run list', { exact: true }).fill('webapp::default\nnginx');
  await admin.getByLabel('Cookbook locks', { exact: true }).fill('{"webapp": {"version": "1.6.0", "identifier": "e2e-webapp-160"}, "nginx": {"version": "12.0.0", "identifier": "e2e-nginx-1200"}}');
  await admin.getByRole('button', { name: 'Add include' }).click();
  await admin.getByLabel('Include 1 policy').selectOption('base');
  await admin.getByLabel('Include 1 stage or revision').selectOption('group:staging');
  await expect(admin.getByTestId('compose-preview')).toContainText('no conflicts');
  await expect(admin.getByTestId('compose-save')).toHaveText('Save as new revision');

  // Into dev (no approvals): moves at once.
  await admin.getByLabel('Point a stage at it').selectOption('dev');
  const guard = admin.getByTestId('compose-guard').getByTestId('guard-answer');
  await expect(guard).toHaveAttribute('data-outcome', 'move');
  await expect(admin.getByTestId('compose-save')).toHaveText('Move now — Save and run in dev');

  // Into production (protected; nginx 12 is a major bump there): a request, and the click opens one.
  await admin.getByLabel('Point a stage at it').selectOption('production');
  await expect(guard).toHaveAttribute('data-outcome', 'request');
  await expect(admin.getByTestId('compose-guard').getByTestId('guard-reasons')).toContainText('major');
  const approvals = (await admin.getByTestId('compose-guard').getByTestId('guard-headline').textContent())!.match(/Needs (\d+) approvals?/)![1];
  await expect(admin.getByTestId('compose-save')).toHaveText(`Request ${approvals} approval${approvals === '1' ? '' : 's'} — Save and run in production`);
  // production requires every cookbook on the server, and the composition pins two nobody pushed: a reason first.
  await expect(admin.getByTestId('compose-missing-artifacts')).toContainText('webapp');
  await expect(admin.getByTestId('compose-save')).toBeDisabled();
  await admin.getByLabel('Go ahead without them: reason (required, audited)').fill('e2e: artifacts follow');
  await admin.getByTestId('compose-save').click();
  await expect(admin).toHaveURL(/\/requests\/[^/?]+$/);
  await expect(admin.getByTestId('approvals-required')).toHaveText(approvals);
});
