/**
 * The e2e suite's `test` and `expect`: Playwright's, plus
 * - `baseURL` pointed at the worker's own e2e server (e2e/servers.ts), so relative URLs in `page.goto`,
 *   `page.request` and contexts from `browser.newContext()` reach the server whose database the worker owns;
 * - a fixture that puts the worker's database back to the seeded demo before each spec file's first test
 *   (e2e/seed-state.ts), so no file depends on what another left behind;
 * - a fixture that closes, after each test, the contexts the test opened with `browser.newContext()` (Playwright
 *   closes only its own `context`): left open, their pages kept polling the server (the board every 15 s) for the
 *   rest of the worker's life, dozens of renderers competing with the running test for the CPU.
 * - `pageAs(role)`: a page signed in as that demo user, in a context of its own (closed after the test, as above).
 * Spec files import `test` from here (eslint enforces it).
 */
import { test as base, type Page } from '@playwright/test';
import { stateFile, type Role } from './roles';
import { restoreSeedStateFor } from './seed-state';
import { serverUrl } from './servers';

export { expect } from '@playwright/test';
export type { Browser, BrowserContext, Locator, Page } from '@playwright/test';

export const test = base.extend<{ seedState: void; closeOwnContexts: void; pageAs: (role: Role) => Promise<Page> }>({
  baseURL: async ({}, use, testInfo) => use(serverUrl(testInfo.parallelIndex)),
  seedState: [
    async ({}, use, testInfo) => {
      restoreSeedStateFor(testInfo.file, testInfo.parallelIndex);
      await use();
    },
    { auto: true },
  ],
  closeOwnContexts: [
    async ({ browser }, use) => {
      const before = new Set(browser.contexts());
      await use();
      await Promise.all(browser.contexts().filter((c) => !before.has(c)).map((c) => c.close()));
    },
    { auto: true },
  ],
  pageAs: async ({ browser }, use) => {
    await use(async (role) => (await browser.newContext({ storageState: stateFile(role) })).newPage());
  },
});
