/**
 * Issue 43's two highs and its ring / request / verdict mediums in the browser, with reported runs (signed
 * chef-client run_converge messages, as the nodes' runs arrive) driving the rings. Every test starts from the
 * seeded demo (the database is put back before each one) and sets its state up through the Chef API and
 * /api/v1 as the demo users' own sessions. Each test fails on the build before this work (main 87c65ee).
 *
 * - high 1: a canary ring rolled back for a failed node leaves its verdict on the ring page, the rings list, the
 *   board, the promote dialog (the guard's answer before the click), the revision's journey and the stage history;
 * - high 2: a ring's approval request says a ring starts, on the request page, the approve dialog, its toast and
 *   the stage history;
 * - mediums: the Widen dialog says the ring has not converged (no API field), a stage's health counts its ring's
 *   nodes apart; an outdated request is pending nowhere; the last approver learns of a freeze before approving;
 *   and zero axe violations on the rings pages (active, rolled back, list, new) and the changed request and history pages.
 */
import AxeBuilder from '@axe-core/playwright';
import { serverUrl } from './servers';
import { inRing, ringSeed } from '../lib/domain/rings';
import { expect, test, type Page } from './test';
import { stateFile, type Role } from './roles';
import { restoreSeedState } from './seed-state';
import { chefKeyFromConnect, signedChefRequest } from './chef-requests';
import { runConvergeMessage } from '../test/run-message';

type Json = Record<string, any>;

test.use({ storageState: stateFile('admin') });
test.beforeEach(() => restoreSeedState());

const ORG = '/organizations/console';
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

async function expectNoViolations(page: Page, label: string) {
  const { violations } = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  expect(
    violations.map((v) => `${v.id} (${v.nodes.length}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`),
    `axe violations on ${label}`,
  ).toEqual([]);
}

async function api(page: Page, method: 'GET' | 'POST' | 'PUT', p: string, data?: unknown, expected: number | number[] = 200): Promise<Json> {
  const res = await page.request.fetch(`/api/v1${p}`, { method, data, headers: { origin: serverUrl() } });
  const text = await res.text();
  expect([expected].flat(), `${method} ${p}: ${res.status()} ${text}`).toContain(res.status());
  return JSON.parse(text) as Json;
}

/** A Chef key for admin, made once per test from the Connect page (as a user would for knife). */
const chefKey = (page: Page) => chefKeyFromConnect(page, `e2e-verdicts-${Date.now()}`);

/** Places nodes in a stage running a policy (as knife would create them: the console's fact). */
async function placeNodes(page: Page, key: string, stage: string, policy: string, names: string[]) {
  for (const name of names) {
    const r = await signedChefRequest(page.request, key, 'POST', `${ORG}/nodes`, { name, chef_type: 'node', json_class: 'Chef::Node', policy_name: policy, policy_group: stage, automatic: {}, normal: {}, default: {}, override: {}, run_list: [] });
    expect(r.status(), await r.text()).toBe(201);
  }
}

let seq = 0;

/** Reports a finished chef-client run of `node` (signed, as chef-client's data collector sends it). */
async function reportRun(page: Page, key: string, node: string, stage: string, policy: string, revision: string, status: 'success' | 'failure') {
  const msg = runConvergeMessage({ runId: `e2e43000-0000-4000-8000-${String(++seq).padStart(12, '0')}`, node, stage, policy, revision, status });
  const r = await signedChefRequest(page.request, key, 'POST', `${ORG}/data-collector`, msg);
  expect(r.status(), await r.text()).toBe(201);
}

/** Node names of which `inside` fall in the 50% ring of stage × policy and `outside` do not. */
function ringNodes(stage: string, policy: string, prefix: string, inside: number, outside: number) {
  const seed = ringSeed(stage, policy);
  const a: string[] = [];
  const b: string[] = [];
  for (let i = 0; a.length < inside || b.length < outside; i++) {
    const n = `${prefix}-${i}`;
    if (inRing({ seed, percent: 50 }, n)) a.length < inside && a.push(n);
    else if (b.length < outside) b.push(n);
  }
  return { inside: a, outside: b };
}

/** A policy whose `from` stage runs another revision than `to` (the revision a ring or promotion would bring). */
async function differing(page: Page, from: string, to: string, exclude: string[] = []) {
  const groups = await api(page, 'GET', '/policy_groups');
  const a = groups[from].policies as Record<string, { revision_id: string }>;
  const b = groups[to].policies as Record<string, { revision_id: string }>;
  const found = Object.keys(a)
    .sort()
    .filter((p) => !exclude.includes(p) && b[p] && b[p].revision_id !== a[p].revision_id);
  expect(found.length, `a policy whose ${from} and ${to} revisions differ`).toBeGreaterThan(0);
  return found.map((policy) => ({ policy, revision: a[policy].revision_id, current: b[policy].revision_id }));
}

/** A change into production that needs exactly one approval (the guard's own dry run says so). */
async function oneApprovalChanges(page: Page, exclude: string[] = []) {
  const out: { policy: string; revision: string; current: string }[] = [];
  for (const c of await differing(page, 'staging', 'production', exclude)) {
    const p = await api(page, 'POST', `/policy_groups/production/policies/${c.policy}/preview`, { kind: 'promote', from: 'staging' });
    if (p.outcome === 'request' && p.approvals_required === 1) out.push(c);
  }
  return out;
}

test('high 1: a canary ring rolled back for a failed node leaves its verdict on the ring, the rings list, the board, the promote dialog, the journey and the history', async ({ page, pageAs }) => {
  const key = await chefKey(page);
  const [{ policy, revision }] = await differing(page, 'dev', 'qa');
  const { inside, outside } = ringNodes('qa', policy, 'e2e-canary', 2, 1);
  await placeNodes(page, key, 'qa', policy, [...inside, ...outside]);
  const started = await api(page, 'POST', '/rings', { stage: 'qa', policy, revision_id: revision, steps: [50, 100], gate_on_convergence: true }, 201);
  const id = started.ring.id as string;
  // The ring's nodes report: one converged the canary revision, one failed on it.
  await reportRun(page, key, inside[0], 'qa', policy, revision, 'success');
  await reportRun(page, key, inside[1], 'qa', policy, revision, 'failure');

  // The ring page: rolled back on its own, the verdict, the facts of its end, the failed node's resource.
  await page.goto(`/rings/${id}`);
  await expect(page.getByTestId('ring-status')).toHaveText('rolled back');
  await expect(page.getByTestId('ring-verdict')).toContainText(/failed in a canary ring in qa (just now|\d+ minutes? ago): 1 of \d+ nodes, ruby_block\[check release\] \(cookbook rollout\)/);
  await expect(page.getByTestId('ring-health')).toHaveAttribute('data-ended', 'true');
  await expect(page.getByTestId('ring-health')).toContainText(/\d+ in ring · 1 converged · 1 failed/);
  await expect(page.locator(`[data-testid="ring-node"][data-node="${inside[1]}"]`).getByTestId('ring-node-standing')).toHaveText('failed at ruby_block[check release] (cookbook rollout)');
  await expect(page.getByTestId('ring-ended')).toContainText(/automatic: 1 of \d+ ring nodes? failed on revision/);
  await expectNoViolations(page, 'ring page (rolled back)');

  // The rings list says how it ended and why.
  await page.goto('/rings');
  const row = page.getByTestId('ring-row').filter({ has: page.locator(`a[href="/rings/${id}"]`) });
  await expect(row.getByTestId('ring-row-verdict')).toContainText('1 of');
  await expect(row.getByTestId('ring-row-verdict')).toContainText('failed at ruby_block[check release]');
  await expect(row.getByTestId('ring-row-health')).toContainText('at its end');
  await expectNoViolations(page, 'rings list');

  // The board: the dev cell says where its revision failed; its promote dialog says it before the click.
  await page.goto('/');
  const devCell = page.locator(`tr[data-policy="${policy}"] td[data-stage="dev"]`);
  await expect(devCell.getByTestId('failed-in-stage')).toContainText(/failed in qa \(canary ring\): 1 of \d+ nodes/);
  await devCell.getByTestId('promote-button').click();
  const dialog = page.getByTestId('promote-dialog');
  const here = dialog.locator('[data-testid="guard-verdict"][data-where="here"]');
  await expect(here).toContainText(/This revision failed in a canary ring in qa (just now|\d+ minutes? ago): 1 of \d+ nodes, ruby_block\[check release\]/);
  const confirm = dialog.getByTestId('promote-confirm');
  await expect(confirm).toBeDisabled();
  await here.getByLabel(/Move it into qa again anyway/).fill('e2e: the node was rebuilt');
  await expect(confirm).toBeEnabled();
  await page.keyboard.press('Escape');

  // A developer (promote on qa, not manage) is refused, in words.
  const dev = await pageAs('dev');
  await dev.goto('/');
  await dev.locator(`tr[data-policy="${policy}"] td[data-stage="dev"]`).getByTestId('promote-button').click();
  await expect(dev.getByTestId('guard-answer')).toHaveAttribute('data-outcome', 'blocked');
  await expect(dev.getByTestId('guard-refusal')).toContainText('failed in a canary ring in qa');
  await expect(dev.getByTestId('guard-answer')).not.toContainText('_reason');

  // The revision's journey and qa's history tell of the ring and its failure.
  await page.goto(`/policies/${policy}/revisions/${revision}`);
  await expect(page.getByTestId('journey-verdicts').locator('li[data-stage="qa"]')).toContainText('a canary ring');
  await expect(page.getByTestId('journey-rings').locator('li[data-stage="qa"]')).toContainText('rolled back');
  await page.goto(`/history?policy=${policy}&stage=qa`);
  await expect(page.locator('[data-testid="history-event"][data-action="ring.start"]')).toContainText('Ring started: 50% of qa gets');
  await expect(page.locator('[data-testid="history-event"][data-action="ring.rollback"]')).toContainText('failed in a canary ring in qa');
  await expectNoViolations(page, 'history with rings');
});

test('high 2: a ring request says a ring starts — the request page, the approve dialog, its toast, the list and the history', async ({ page, pageAs }) => {
  const [{ policy, revision, current }] = await oneApprovalChanges(page, ['api-gateway']);
  const release = await pageAs('release');
  const asked = await api(release, 'POST', '/rings', { stage: 'production', policy, revision_id: revision, steps: [50, 100], gate_on_convergence: true }, 202);
  const requestId = asked.ring.request.id as string;

  const lead = await pageAs('lead');
  await lead.goto(`/requests/${requestId}`);
  await expect(lead.getByRole('heading', { level: 1 })).toContainText(`Request: a ringed rollout of ${policy} in production`);
  await expect(lead.getByTestId('request-effect')).toContainText(/The last approval starts a ringed rollout: 50% of production \(\d+ of \d+ nodes?\) gets [0-9a-f]{10}, widening by hand once converged/);
  await expectNoViolations(lead, 'ring request page (pending)');
  await lead.getByTestId('request-approve').click();
  const dialog = lead.getByTestId('request-approve-dialog');
  await expect(dialog).toContainText(/it is the last one needed, so approving starts a ringed rollout: 50% of production \(\d+ of \d+ nodes?\) gets/);
  await expect(dialog).not.toContainText('moves to');
  await dialog.getByRole('button', { name: 'Approve' }).click();
  await expect(lead.getByText(new RegExp(`Approved: the ring started; production still runs ${current.slice(0, 10)}`))).toBeVisible();
  await expect(lead.getByTestId('request-status-line')).toContainText(`Applied: the ring started; production still runs ${current.slice(0, 10)}`);
  await expectNoViolations(lead, 'ring request page (applied)');
  // The ring it started: approved, by whom, and what its start did.
  await lead.goto(`/rings/${asked.ring.id}`);
  await expect(lead.getByTestId('ring-status')).toHaveText('active');
  await expectNoViolations(lead, 'ring page (approved)');

  // The requests list tells a ring from a whole-policy promotion; production's history shows the ring and the request.
  await lead.goto('/requests?view=all&stage=production');
  await expect(lead.locator(`tr[data-request="${requestId}"]`).getByTestId('request-kind')).toHaveText('ringed rollout (part of the stage first)');
  await lead.goto(`/history?policy=${policy}&stage=production`);
  await expect(lead.locator('[data-testid="history-event"][data-action="ring.start"]')).toContainText(`production still runs ${current.slice(0, 10)}`);
  await expect(lead.locator('[data-testid="history-event"][data-action="request.approve"]')).toBeVisible();
});

test('mediums: the Widen dialog says the ring has not converged, in words; the stage health counts the ring apart; the ring form gives the blast radius', async ({ page }) => {
  // The seeded demo has no ring yet: the rings list's empty state (one of the pages axe found a link-in-text-block on).
  await page.goto('/rings');
  await expectNoViolations(page, 'rings list (empty)');
  const key = await chefKey(page);
  const [{ policy, revision }] = await differing(page, 'dev', 'qa');
  const { inside, outside } = ringNodes('qa', policy, 'e2e-widen', 2, 2);
  await placeNodes(page, key, 'qa', policy, [...inside, ...outside]);
  const started = await api(page, 'POST', '/rings', { stage: 'qa', policy, revision_id: revision, steps: [50, 100], gate_on_convergence: true }, 201);
  await reportRun(page, key, inside[0], 'qa', policy, revision, 'success');

  // The board: the ring's nodes are counted on the ring, not as "not yet run" against qa's revision.
  await page.goto('/');
  const health = page.locator(`tr[data-policy="${policy}"] td[data-stage="qa"]`).getByTestId('rollout-health');
  await expect(health).not.toHaveAttribute('data-in-ring', '0');
  await expect(health).toContainText('in the ring');

  await page.goto(`/rings/${started.ring.id}`);
  await expectNoViolations(page, 'ring page (active)');
  await page.getByTestId('ring-widen').click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByTestId('widen-answer')).toContainText(/The ring has not converged yet: 1 of \d+ ring nodes converged revision/);
  await expect(dialog).not.toContainText('gate_override_reason');
  const confirm = dialog.getByRole('button', { name: 'Widen anyway, with my reason' });
  await expect(confirm).toBeDisabled();
  await dialog.getByLabel('Why widen now (required)').fill('e2e: the pending node is being rebuilt');
  await expect(confirm).toBeEnabled();
  await expectNoViolations(page, 'widen dialog (not converged)');
  await page.keyboard.press('Escape');

  await page.goto(`/rings/new?policy=${encodeURIComponent(policy)}&stage=dev`);
  await expect(page.getByTestId('ring-blast-radius')).toContainText(/first \(/);
  await expect(page.getByTestId('ring-rollback-on-failure')).toBeVisible();
  await expectNoViolations(page, 'start a ring');
});

test('mediums: an outdated request is pending nowhere; the last approver learns of a freeze before approving', async ({ page, pageAs }) => {
  const [first, second] = await oneApprovalChanges(page, ['api-gateway']);
  const release = await pageAs('release');
  const asked = async (as: Page, c: { policy: string; current: string }) =>
    (await api(as, 'POST', '/policy_groups/production/promote', { from: 'staging', policies: [c.policy], expected: { [c.policy]: c.current } }, 202)).request.id as string;
  const outdated = await asked(release, first);
  const waiting = await asked(release, second);
  // Another person's request for the same change is approved: production moves, the first request can never apply.
  const other = await asked(page, first);
  const lead = await pageAs('lead');
  await api(lead, 'POST', `/promotion_requests/${other}/approve`, { comment: 'e2e' });

  await lead.goto('/requests');
  await expect(lead.locator(`tr[data-request="${waiting}"]`)).toBeVisible();
  await expect(lead.locator(`tr[data-request="${outdated}"]`)).toHaveCount(0);
  expect((await api(lead, 'GET', `/promotion_requests/${outdated}`)).request.status).toBe('outdated');
  await lead.goto('/');
  await expect(lead.locator(`tr[data-policy="${first.policy}"] td[data-stage="production"]`).getByTestId('pending-requests')).toHaveCount(0);

  // production freezes; the approver who cannot override it learns so before approving the last approval.
  await api(page, 'POST', '/policy_groups/production/freezes', { starts_at: new Date(Date.now() - 60_000).toISOString(), ends_at: new Date(Date.now() + 3_600_000).toISOString(), reason: 'e2e: change freeze' }, 201);
  await lead.goto(`/requests/${waiting}`);
  await lead.getByTestId('request-approve').click();
  const dialog = lead.getByTestId('request-approve-dialog');
  await expect(dialog.getByTestId('approve-freeze')).toContainText('production is frozen until');
  await expect(dialog.getByTestId('approve-freeze')).toContainText('cannot apply the change until the freeze ends');
  await expect(dialog.getByRole('button', { name: 'Approve' })).toBeDisabled();
  await expectNoViolations(lead, 'approve dialog during a freeze');
});
