/**
 * Issue 29: scheduled promotion from the console. The promote dialog offers "at a time (UTC)" and, while
 * the target stage is frozen, "when the freeze ends" (with the freeze's end); the button says what will
 * happen and the dialog says the guard is asked again then. A time in the past is refused under the time
 * field. The schedule is then visible on the board's cell and on the Requests page, where it is cancelled
 * after a confirmation, by keyboard.
 *
 * Own data: the policy e2e-schedule-app, set into dev through /api/v1 with the admin's session; the
 * freeze on qa is taken off again.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Browser, type Page } from './test';
import { buildDemoLock, type DemoPolicySpec } from '../lib/seed/demo-data';
import { stateFile, type Role } from './roles';

const POLICY = 'e2e-schedule-app';
const spec: DemoPolicySpec = {
  name: POLICY,
  team: 'core',
  runList: ['recipe[apt::default]'],
  revisions: [{ cookbooks: { apt: '7.4.0' }, default: { e2e_schedule: true } }],
  stages: {},
  nodes: { platform: 'ubuntu', platform_family: 'debian', platform_version: '22.04' },
};

const pageAs = async (browser: Browser, role: Role) => (await browser.newContext({ storageState: stateFile(role) })).newPage();
const cell = (page: Page, stage: string) => page.locator(`tr[data-policy="${POLICY}"] td[data-stage="${stage}"]`);
const origin = (page: Page) => ({ origin: new URL(page.url()).origin });
/** The console's way of writing a time (lib/format dateTime). */
const utc = (iso: string) => `${new Date(iso).toISOString().replace('T', ' ').slice(0, 16)} UTC`;
/** WCAG 2.1 AA violations inside `selector` (axe). */
async function axe(page: Page, selector: string) {
  const { violations } = await new AxeBuilder({ page }).include(selector).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.failureSummary).join(' | ')}`);
}

async function openPromote(page: Page) {
  await page.goto('/');
  await cell(page, 'dev').getByTestId('promote-button').click();
  const dialog = page.getByTestId('promote-dialog');
  await expect(dialog.getByTestId('guard-answer')).not.toHaveAttribute('data-outcome', 'pending');
  return dialog;
}

test('schedule a promotion from the dialog (a time in the past is named), see it on the board and the Requests page, cancel it after confirming; "when the freeze ends" while frozen', async ({ browser }) => {
  const admin = await pageAs(browser, 'admin');
  await admin.goto('/');
  const set = await admin.request.put(`/api/v1/policy_groups/dev/policies/${POLICY}`, { data: buildDemoLock(spec, 0).text, headers: { ...origin(admin), 'content-type': 'application/json' } });
  expect(set.status(), await set.text()).toBe(201);

  const dev = await pageAs(browser, 'dev');
  let dialog = await openPromote(dev);
  await expect(dialog.getByTestId('promote-confirm')).toHaveText('Move now — Promote to qa');
  // qa is not frozen: no "when the freeze ends". The choice is made by keyboard (arrow keys in the radio group).
  await expect(dialog.getByRole('radio', { name: /When the freeze ends/ })).toHaveCount(0);
  await dialog.getByRole('radio', { name: /^Now/ }).focus();
  await dev.keyboard.press('ArrowRight');
  await expect(dialog.getByRole('radio', { name: 'At a time (UTC)' })).toBeChecked();
  await expect(dialog.getByTestId('promote-confirm')).toHaveText('Schedule: pick a time first');
  await expect(dialog.getByTestId('promote-confirm')).toBeDisabled();
  await expect(dialog.getByTestId('schedule-note')).toContainText('the guard is asked again, with your rights then');
  await expect(dialog.getByTestId('schedule-note')).toContainText('a promotion request is opened then');

  // A time in the past: refused by the server, under the time field.
  const time = dialog.getByLabel('Time (UTC)', { exact: true });
  await time.fill('2020-01-01T00:00');
  await expect(dialog.getByTestId('promote-confirm')).toHaveText('Schedule for 00:00 UTC on 1 Jan 2020');
  await dialog.getByTestId('promote-confirm').click();
  await expect(dialog.locator('[data-field-error="at"]')).toContainText('Must be in the future');
  await expect(time).toHaveAttribute('aria-invalid', 'true');
  expect(await axe(dev, '[data-testid="promote-dialog"]')).toEqual([]);

  // Tomorrow 02:00 UTC.
  const tomorrow = new Date(Date.now() + 24 * 3600_000).toISOString().slice(0, 10);
  const at = `${tomorrow}T02:00:00.000Z`;
  await time.fill(`${tomorrow}T02:00`);
  await expect(dialog.getByTestId('promote-confirm')).toHaveText(/^Schedule for 02:00 UTC on \d+ \w{3}/);
  await dialog.getByLabel(/Reason/).fill('e2e: nightly window');
  await dialog.getByTestId('promote-confirm').click();
  await expect(dev.getByTestId('promote-dialog')).toHaveCount(0);
  await expect(dev.locator('[data-sonner-toast]').filter({ hasText: `Scheduled: ${POLICY} into qa at ${utc(at)}` })).toBeVisible();

  // The board's qa cell shows it and leads to the Requests page's list.
  const badge = cell(dev, 'qa').getByTestId('scheduled-promotions');
  await expect(badge).toContainText(`scheduled ${utc(at)}`);
  await badge.click();
  await expect(dev).toHaveURL(/\/requests\?.*#scheduled$/);
  const row = dev.locator(`tr[data-testid="scheduled-row"][data-policy="${POLICY}"]`);
  await expect(row).toHaveCount(1);
  await expect(row).toContainText(`at ${utc(at)}`);
  await expect(row).toContainText('Reason: e2e: nightly window');
  await expect(row).toContainText('dev@example.com');
  expect(await axe(dev, '[data-testid="scheduled-section"]')).toEqual([]);

  // Cancel, by keyboard, after a confirmation (which can also keep it).
  await row.getByTestId('scheduled-cancel').focus();
  await dev.keyboard.press('Enter');
  let confirm = dev.getByRole('dialog', { name: 'Cancel this scheduled promotion?' });
  await expect(confirm).toContainText(`${POLICY} will not be promoted into qa at ${utc(at)}`);
  await confirm.getByRole('button', { name: 'Keep it' }).press('Enter');
  await expect(confirm).toHaveCount(0);
  await expect(row).toHaveCount(1);
  await row.getByTestId('scheduled-cancel').press('Enter');
  confirm = dev.getByRole('dialog', { name: 'Cancel this scheduled promotion?' });
  await confirm.getByRole('button', { name: 'Cancel the scheduled promotion' }).press('Enter');
  await expect(row).toHaveCount(0);
  await expect(dev.locator('#scheduled')).toBeFocused();
  await expect(dev.getByTestId('scheduled-empty')).toBeVisible();
  await expect(dev.getByTestId('scheduled-recent')).toContainText('cancelled by dev@example.com');

  // qa frozen (dev may not override): the dialog offers "when the freeze ends", with its end.
  const freeze = await admin.request.post('/api/v1/policy_groups/qa/freezes', {
    data: { starts_at: new Date(Date.now() - 60_000).toISOString(), ends_at: new Date(Date.now() + 3_600_000).toISOString(), reason: 'e2e schedule freeze' },
    headers: origin(admin),
  });
  expect(freeze.status(), await freeze.text()).toBe(201);
  const { freeze: frozen } = (await freeze.json()) as { freeze: { id: string; ends_at: string } };
  dialog = await openPromote(dev);
  await expect(dialog.getByTestId('guard-answer')).toHaveAttribute('data-outcome', 'blocked');
  await expect(dialog.getByTestId('promote-confirm')).toHaveText('Frozen — Promote to qa');
  const freezeEnd = dialog.getByRole('radio', { name: `When the freeze ends (${utc(frozen.ends_at)})` });
  await freezeEnd.check();
  await expect(dialog.getByTestId('schedule-note')).toContainText(`When the freeze ends (${utc(frozen.ends_at)}), the guard is asked again`);
  await expect(dialog.getByTestId('promote-confirm')).toHaveText('Schedule for when the freeze ends');
  await dialog.getByTestId('promote-confirm').click();
  await expect(dev.locator('[data-sonner-toast]').filter({ hasText: `Scheduled: ${POLICY} into qa when the freeze ends (${utc(frozen.ends_at)})` })).toBeVisible();
  await dev.goto(`/requests?view=all&policy=${POLICY}`);
  await expect(dev.locator(`tr[data-testid="scheduled-row"][data-policy="${POLICY}"]`)).toContainText(`when the freeze ends (${utc(frozen.ends_at)})`);
  expect((await admin.request.delete(`/api/v1/policy_groups/qa/freezes/${encodeURIComponent(frozen.id)}`, { headers: origin(admin) })).status()).toBe(200);
});
