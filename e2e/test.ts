/**
 * The e2e suite's `test` and `expect`: Playwright's, plus a fixture that puts
 * the database back to the seeded demo before each spec file's first test
 * (e2e/seed-state.ts), so no file depends on what another left behind. Spec
 * files import `test` from here (eslint enforces it).
 */
import { test as base } from '@playwright/test';
import { restoreSeedStateFor } from './seed-state';

export { expect } from '@playwright/test';
export type { Browser, BrowserContext, Locator, Page } from '@playwright/test';

export const test = base.extend<{ seedState: void }>({
  seedState: [
    async ({}, use, testInfo) => {
      restoreSeedStateFor(testInfo.file);
      await use();
    },
    { auto: true },
  ],
});
