import { defineConfig } from '@playwright/test';
import base from './playwright.config';

/**
 * `npm run screenshot`: the README's screenshot (docs/screenshot.png), taken
 * on its own against the same seeded server as the e2e suite. Kept out of
 * `e2e/` so a test run never rewrites a tracked file.
 */
export default defineConfig({
  ...base,
  testDir: 'scripts',
  testMatch: 'readme-screenshot.spec.ts',
});
