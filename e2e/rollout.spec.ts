/**
 * Issue 26 in the browser: rollout health on the board and a node's run
 * history (from the demo's run reports), a stage's promotion gate and rollback
 * rule edited in Admin → Stages, and an automatic rollback shown in history as
 * done by the rule with its evidence (its own policy, e2e-rollout-app, pushed
 * and reported through the Chef API as knife and chef-client would).
 */
import { expect, test, type Page } from './test';
import { buildDemoLock, type DemoPolicySpec } from '../lib/seed/demo-data';
import { stateFile } from './roles';
import { chefKeyFromConnect, signedChefRequest } from './chef-requests';
import { runConvergeMessage } from '../test/run-message';

const ORG = '/organizations/console';
const POLICY = 'e2e-rollout-app';

test.use({ storageState: stateFile('admin') });

test('the board shows each stage’s rollout, and a node page its chef-client runs (demo run reports)', async ({ page }) => {
  await page.goto('/');
  // webapp is mid-rollout in qa: one node converged, one failed in nginx, one has not run the revision yet.
  const qa = page.locator('tr[data-policy="webapp"] td[data-stage="qa"]').getByTestId('rollout-health');
  await expect(qa).toHaveAttribute('data-converged', '1');
  await expect(qa).toHaveAttribute('data-failed', '1');
  await expect(qa).toHaveAttribute('data-pending', '1');
  await expect(qa.getByTestId('rollout-top-failure')).toContainText('nginx · template[/etc/nginx/nginx.conf] (1 node)');
  // base has a production node that stopped reporting.
  await expect(page.locator('tr[data-policy="base"] td[data-stage="production"]').getByTestId('rollout-health')).toHaveAttribute('data-missing', '1');

  await page.goto('/nodes/webapp-qa-02.example.com');
  const runs = page.getByTestId('node-runs');
  await expect(runs.getByTestId('run-row')).toHaveCount(6);
  const latest = runs.getByTestId('run-row').first();
  await expect(latest).toHaveAttribute('data-status', 'failure');
  await expect(latest.getByTestId('run-failure')).toContainText('template[/etc/nginx/nginx.conf] in cookbook nginx');
  await expect(runs.getByTestId('node-missing')).toHaveCount(0);

  await page.goto('/nodes/base-production-08.example.com');
  await expect(page.getByTestId('node-missing')).toContainText('missing: last heard from 3d ago');
});

async function saveRules(page: Page, stage: string) {
  const form = page.locator(`form[data-testid="rollout-rule-form"][data-stage="${stage}"]`);
  await form.getByTestId('rollout-rule-save').click();
  return form;
}

test('Admin → Stages edits a stage’s promotion gate and its rollback rule (server-checked numbers)', async ({ page }) => {
  await page.goto('/admin/stages');
  const section = page.locator('details[data-testid="rollout-rules"][data-stage="qa"]');
  await section.locator('summary').click();
  const form = section.getByTestId('rollout-rule-form');
  await form.getByTestId('gate-enabled').check();
  await form.getByLabel('Converged on at least (X)').fill('120');
  await saveRules(page, 'qa');
  await expect(form.getByText('min_success_pct must be a whole number from 0 to 100')).toBeVisible();
  try {
    await form.getByLabel('Converged on at least (X)').fill('80');
    await form.getByLabel('Nodes at least (N)').fill('2');
    await form.getByLabel('For at least (T)').fill('15');
    await saveRules(page, 'qa');
    await expect(page.getByText('qa: promotion gate on, automatic promotion off, automatic rollback off')).toBeVisible();
    await expect(section.locator('summary')).toContainText('gate: ≥ 80% of ≥ 2 node(s) in dev, ≤ 10% failing, 15 min');
    const saved = await (await page.request.get('/api/v1/policy_groups/qa/rollout')).json();
    expect(saved.gate).toEqual({ enabled: true, min_success_pct: 80, min_nodes: 2, max_failure_pct: 10, soak_minutes: 15, checks: [] });
    expect(saved.updated_by).toBe('admin@example.com');
  } finally {
    // Leave qa ungated for every other spec.
    const off = await page.request.put('/api/v1/policy_groups/qa/rollout', { data: { gate: { enabled: false } }, headers: { origin: new URL(page.url()).origin } });
    expect(off.status()).toBe(200);
  }
});

let seq = 0;
/** A run_converge as chef-client 18 sends it (the recorded one), for this spec's node, policy and revision; a failure raises in nginx. */
const runMessage = (node: string, revision: string, status: 'success' | 'failure') =>
  runConvergeMessage({ runId: `e2e00000-0000-4000-8000-${String(++seq).padStart(12, '0')}-${Date.now().toString(16)}`.slice(0, 64), node, stage: 'dev', policy: POLICY, revision, status, failedCookbook: 'nginx' });

test('an automatic rollback shows in history as done by the stage’s rule, with its evidence and where the failures fall', async ({ page }) => {
  // A Chef key for admin (as knife would use it).
  const key = await chefKeyFromConnect(page, `e2e-rollout-${Date.now()}`);

  // The rollback rule of dev, in Admin → Stages.
  await page.goto('/admin/stages');
  const section = page.locator('details[data-testid="rollout-rules"][data-stage="dev"]');
  await section.locator('summary').click();
  const form = section.getByTestId('rollout-rule-form');
  await form.getByTestId('rollback-enabled').check();
  await form.getByLabel('Within (W)').fill('60');
  await form.getByLabel('At least (Y)').fill('50');
  await form.getByLabel('Reported by at least (N)').fill('2');
  await saveRules(page, 'dev');
  await expect(page.getByText('dev: promotion gate off, automatic promotion off, automatic rollback on')).toBeVisible();

  try {
    const spec: DemoPolicySpec = {
      name: POLICY,
      team: 'web',
      runList: ['recipe[nginx::default]'],
      revisions: [
        { cookbooks: { nginx: '12.0.1' }, default: { e2e: 1 } },
        { cookbooks: { nginx: '12.1.0' }, default: { e2e: 1 } },
      ],
      stages: {},
      nodes: { platform: 'ubuntu', platform_family: 'debian', platform_version: '22.04' },
    };
    const [v1, v2] = [0, 1].map((i) => buildDemoLock(spec, i).lock);
    const put = (lock: unknown) => signedChefRequest(page.request, key, 'PUT', `${ORG}/policy_groups/dev/policies/${POLICY}`, lock);
    const report = async (node: string, revision: string, status: 'success' | 'failure') => {
      const r = await signedChefRequest(page.request, key, 'POST', `${ORG}/data-collector`, runMessage(node, revision, status));
      expect(r.status(), await r.text()).toBe(201);
    };
    expect([200, 201]).toContain((await put(v1)).status());
    // Issue 41: runs count in the stage the console has the node in: the nodes are placed in dev first (as knife would).
    for (const n of ['e2e-rb-1', 'e2e-rb-2', 'e2e-rb-3']) {
      const created = await signedChefRequest(page.request, key, 'POST', `${ORG}/nodes`, { name: n, chef_type: 'node', json_class: 'Chef::Node', policy_name: POLICY, policy_group: 'dev', automatic: {}, normal: {}, default: {}, override: {}, run_list: [] });
      expect([201, 409], await created.text()).toContain(created.status());
    }
    for (const n of ['e2e-rb-1', 'e2e-rb-2', 'e2e-rb-3']) await report(n, v1.revision_id, 'success');
    expect([200, 201]).toContain((await put(v2)).status());
    await report('e2e-rb-1', v2.revision_id, 'failure');
    await report('e2e-rb-2', v2.revision_id, 'failure');
    // 2 of 2 runs failed within the window: dev is back on v1.
    const now = await signedChefRequest(page.request, key, 'GET', `${ORG}/policy_groups/dev/policies/${POLICY}`);
    expect((await now.json()).revision_id).toBe(v1.revision_id);

    await page.goto(`/history?policy=${POLICY}&stage=dev`);
    const rolled = page.locator('[data-testid="rollout-outcome"][data-event="rollout.rolled_back"]');
    await expect(rolled).toContainText("Rolled back automatically by the stage's rule (≥ 50% of at least 2 node(s) failed within 60 minute(s)): 2 of 2 node(s) failed (100%)");
    await expect(rolled).toContainText(/Failed nodes: e2e-rb-[12], e2e-rb-[12]/);
    const entry = page.locator('[data-testid="history"] li[data-kind="rollback"]').first();
    await expect(entry).toContainText('system (automatic rollback)');
    await expect(entry.getByTestId('automatic-rollback')).toContainText("allowed without approval by the stage's automatic rollback rule");
    const failures = page.locator(`[data-testid="change-failures"][data-revision="${v2.revision_id}"]`);
    await expect(failures).toContainText('nginx 12.0.1');
    await expect(failures.getByTestId('failure-group')).toHaveAttribute('data-in-change', 'true');
    await expect(failures.getByTestId('failure-group')).toContainText('2 nodes (2 runs) fail at ruby_block[check release] in cookbook nginx');

    // The board: dev runs v1 again; the two nodes that failed have not run it since.
    await page.goto('/');
    const cell = page.locator(`tr[data-policy="${POLICY}"] td[data-stage="dev"]`).getByTestId('rollout-health');
    await expect(cell).toHaveAttribute('data-converged', '1');
    await expect(cell).toHaveAttribute('data-pending', '2');
  } finally {
    const off = await page.request.put('/api/v1/policy_groups/dev/rollout', { data: { rollback: { enabled: false } }, headers: { origin: new URL(page.url()).origin } });
    expect(off.status()).toBe(200);
  }
});
