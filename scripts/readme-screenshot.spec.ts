/** The README's screenshot: the stage board as the admin sees it (run by `npm run screenshot`, not by the e2e suite). */
import { expect, test } from '../e2e/test';
import { stateFile } from '../e2e/roles';

test.use({ storageState: stateFile('admin') });

test('docs/screenshot.png: the stage board', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('stage-board')).toContainText('webapp');
  await page.screenshot({ path: 'docs/screenshot.png' });
});
