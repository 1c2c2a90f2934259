/**
 * Issue 29 in the browser: a revision's journey on its page — where it was first stored (by whom,
 * through which tool) and each stage it went through, with its own policy (e2e-journey-app), set into
 * dev and promoted to qa through /api/v1 with the admin's session.
 */
import { expect, test } from './test';
import { buildDemoLock, type DemoPolicySpec } from '../lib/seed/demo-data';
import { stateFile } from './roles';

const POLICY = 'e2e-journey-app';
const spec: DemoPolicySpec = {
  name: POLICY,
  team: 'core',
  runList: ['recipe[apt::default]'],
  revisions: [{ cookbooks: { apt: '7.4.0' }, default: { e2e_journey: true } }],
  stages: {},
  nodes: { platform: 'ubuntu', platform_family: 'debian', platform_version: '22.04' },
};

test.use({ storageState: stateFile('admin') });

test('the revision page shows its journey: first stored by whom and how, then each stage with who moved it there', async ({ page }) => {
  const { text, lock } = buildDemoLock(spec, 0);
  await page.goto('/');
  const headers = { origin: new URL(page.url()).origin, 'content-type': 'application/json' };
  const set = await page.request.put(`/api/v1/policy_groups/dev/policies/${POLICY}`, { data: text, headers });
  expect(set.status(), await set.text()).toBe(201);
  const promoted = await page.request.post('/api/v1/policy_groups/qa/promote', { data: { from: 'dev', policies: [POLICY], expected: { [POLICY]: null }, reason: 'e2e journey' }, headers });
  expect(promoted.status(), await promoted.text()).toBe(200);

  await page.goto(`/policies/${POLICY}/revisions/${lock.revision_id}`);
  const journey = page.getByTestId('revision-journey');
  await expect(journey.getByRole('heading', { name: 'Journey across stages' })).toBeVisible();
  await expect(journey.getByTestId('journey-created')).toContainText('by admin@example.com through the console (upload)');
  const steps = journey.getByTestId('journey-step');
  await expect(steps).toHaveCount(2);
  await expect(steps.nth(0)).toHaveAttribute('data-stage', 'dev');
  await expect(steps.nth(0)).toContainText('set');
  await expect(steps.nth(0)).toContainText('by admin@example.com (first revision there)');
  await expect(steps.nth(1)).toHaveAttribute('data-stage', 'qa');
  await expect(steps.nth(1)).toContainText('promoted');
  await expect(steps.nth(1)).toContainText('Reason: e2e journey');
  await expect(steps.nth(1).getByTestId('journey-soak')).toContainText('running here');
  // The stage link leads to that stage's history of the policy.
  await steps.nth(1).getByRole('link', { name: 'qa' }).click();
  await expect(page).toHaveURL(new RegExp(`/history\\?policy=${POLICY}&stage=qa$`));
});
