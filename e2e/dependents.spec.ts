/**
 * Issue 48, the platform engineer's flow: two teams' policies include base from dev; base changes in dev; the
 * board says how many dependents carry an older base; the policy page lists them; Rebuild shows each one's
 * preview (what it gets, "from base … via include") and moves them; "Promote all to qa" moves base and both
 * dependents into qa in one action.
 */
import AxeBuilder from '@axe-core/playwright';
import { computeRevisionId, type PolicyLock } from '../lib/domain';
import { expect, test, type Page } from './test';
import { stateFile } from './roles';

test.use({ storageState: stateFile('admin') });

const origin = (page: Page) => ({ origin: new URL(page.url()).origin });

async function api(page: Page, method: string, path: string, data?: unknown) {
  const res = await page.request.fetch(`/api/v1${path}`, { method, ...(data !== undefined ? { data } : {}), headers: origin(page) });
  expect(res.ok(), `${method} ${path}: ${res.status()} ${await res.text()}`).toBe(true);
  return res.json();
}

test('base changes in dev: its dependents are seen, rebuilt with a preview, and promoted to qa with it in one action', async ({ page }) => {
  await page.goto('/');
  // Two teams build on base as dev runs it (compose saves each into dev with base included from dev).
  for (const [name, cb] of [
    ['e2e-shop', 'shop'],
    ['e2e-search', 'search'],
  ]) {
    await api(page, 'POST', `/policies/${name}/compose`, {
      parent: { run_list: [`${cb}::default`], cookbook_locks: { [cb]: { version: '0.1.0', identifier: `e2e-${cb}-010` } }, default_attributes: { [cb]: { enabled: true } } },
      includes: [{ name: 'base', source: { type: 'server', policy: 'base', group: 'dev' } }],
      save: true,
      group: 'dev',
      expected_revision_id: null,
    });
  }
  // base changes in dev (a new revision pushed there).
  const base = (await api(page, 'GET', '/policy_groups/dev/policies/base')) as PolicyLock;
  const changed = { ...base, default_attributes: { ...(base.default_attributes ?? {}), e2e_motd: 'platform r2' } } as PolicyLock;
  changed.revision_id = computeRevisionId(changed);
  await api(page, 'PUT', '/policy_groups/dev/policies/base', changed);

  // The board: a badge on base's dev cell.
  await page.goto('/');
  const cell = page.locator('tr[data-policy="base"] td[data-stage="dev"]');
  const badge = cell.getByTestId('older-dependents');
  await expect(badge).toHaveText(/2 dependents carry an older base/);
  await badge.click();

  // The policy page: both dependents, each carrying the older base directly.
  await expect(page).toHaveURL(/\/policies\/base\?stage=dev#dependents/);
  const dev = page.locator('[data-testid="dependents-stage"][data-stage="dev"]');
  await expect(dev.getByTestId('older-count')).toHaveText('2 dependents carry an older base');
  await expect(dev.locator('tr[data-policy="e2e-shop"]')).toContainText('(older)');
  await expect(dev.locator('tr[data-policy="e2e-search"]')).toContainText('directly');

  // Rebuild, with a preview first.
  await dev.getByRole('button', { name: 'Rebuild dependents…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Rebuild the dependents of base in dev' });
  const shop = dialog.locator('[data-testid="rebuild-item"][data-policy="e2e-shop"]');
  await expect(shop).toHaveAttribute('data-status', 'rebuilt');
  await expect(shop).toContainText(`default e2e_motd added — from base ${changed.revision_id.slice(0, 10)} via include`);
  await expect(dialog.getByTestId('rebuild-guard')).toContainText('dev needs no approval');
  expect((await new AxeBuilder({ page }).include('[role="dialog"]').analyze()).violations).toEqual([]);
  await dialog.getByRole('button', { name: 'Rebuild 2 and move them into dev' }).click();
  await expect(page.getByText('2 dependents of base rebuilt and moved in dev')).toBeVisible();
  await expect(dev.locator('tr[data-policy="e2e-shop"]')).toHaveAttribute('data-current', 'true');
  await expect(dev.locator('tr[data-policy="e2e-search"]')).toHaveAttribute('data-current', 'true');
  await expect(dev.getByTestId('older-count')).toHaveCount(0);

  // Promote base and both dependents to qa in one action.
  await dev.getByRole('button', { name: 'Promote all to qa…' }).click();
  const promote = page.getByRole('dialog', { name: 'Promote base and its dependents to qa' });
  await expect(promote.getByTestId('promote-all-members').locator('tbody tr')).toHaveCount(3);
  await promote.getByRole('button', { name: 'Move all 3 policies now' }).click();
  await expect(page.getByText('3 policies promoted to qa together')).toBeVisible();

  const qa = (await api(page, 'GET', '/policy_groups/qa/policies/base/dependents')) as { revision_id: string; older: number; dependents: { policy: string; current: boolean }[] };
  expect(qa.revision_id).toBe(changed.revision_id);
  expect(qa.older).toBe(0);
  expect(qa.dependents.map((d) => d.policy).sort()).toEqual(['e2e-search', 'e2e-shop']);
});
