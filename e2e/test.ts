/**
 * The e2e suite's `test` and `expect`: Playwright's, plus
 * - `baseURL` pointed at the worker's own e2e server (e2e/servers.ts), so relative URLs in `page.goto`,
 *   `page.request` and contexts from `browser.newContext()` reach the server whose database the worker owns;
 * - a fixture that puts the worker's database back to the seeded demo before each spec file's first test
 *   (e2e/seed-state.ts), so no file depends on what another left behind.
 * Spec files import `test` from here (eslint enforces it).
 */
import { test as base } from '@playwright/test';
import { restoreSeedStateFor } from './seed-state';
import { serverUrl } from './servers';

export { expect } from '@playwright/test';
export type { Browser, BrowserContext, Locator, Page } from '@playwright/test';

export const test = base.extend<{ seedState: void }>({
  baseURL: async ({}, use, testInfo) => use(serverUrl(testInfo.parallelIndex)),
  seedState: [
    async ({}, use, testInfo) => {
      restoreSeedStateFor(testInfo.file, testInfo.parallelIndex);
      await use();
    },
    { auto: true },
  ],
});
