import fs from 'node:fs';
import { chromium } from '@playwright/test';

/**
 * Playwright's own Chromium when it is installed (`npx playwright install chromium`),
 * else a system Chromium: CHROMIUM_PATH, then /usr/bin/chromium (Debian's package).
 * Undefined means "Playwright finds its own browser".
 */
export function chromiumExecutable(): string | undefined {
  const managed = (() => {
    try {
      return chromium.executablePath();
    } catch {
      return undefined;
    }
  })();
  if (managed && fs.existsSync(managed)) return undefined; // Playwright finds its own browser.
  for (const candidate of [process.env.CHROMIUM_PATH, '/usr/bin/chromium']) if (candidate && fs.existsSync(candidate)) return candidate;
  return process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
}

/** Whether a Chromium is there to launch (Playwright's, or the system one chromiumExecutable names). */
export function chromiumAvailable(): boolean {
  const exe = chromiumExecutable();
  return exe === undefined || fs.existsSync(exe);
}

/** The launch arguments of every Chromium the tests start (a container: no sandbox, no GPU, nothing phoning home). */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];
