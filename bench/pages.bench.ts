import { chromium, type Browser, type Page } from '@playwright/test';
import { createDb } from '@/lib/db/client';
import { DEMO_PASSWORD } from '@/lib/seed/demo-data';
import { CHROMIUM_ARGS, chromiumExecutable } from '../e2e/chromium';
import { round, type BenchResult } from './lib/harness';
import { populate } from './lib/populate';
import { loadAverage, median, startServe } from './lib/servers';

/**
 * Issue 49's browser benchmark: warm page-to-content times in Chromium against the production server
 * (scripts/serve.ts after `next build`), on the demo seed plus 300 policies × 6 stages (bench/lib/populate.ts),
 * signed in as the demo administrator. For each page: 2 warm-up loads, then the median of 7 full loads, timed from
 * `page.goto` (from a blank page, so the previous page's unloading is not counted) to the page's content being visible
 * (the board's rows, the compare view, the text diff's table, the nodes table, the rings heading) and, for the board,
 * hydrated (React has attached to the table: clicks and keys work). Baseline: the sign-in page (no data) in the same
 * browser and run.
 *
 * The board renders only the rows near the viewport above 100 policies (components/board-window.ts): its rows here are
 * the board's top, and a deep link to its last policy (`/#policy-policy-0299`, scrolled into view).
 */
const PAGES: { name: string; path: string; content: string; hydrated?: string; goal?: number }[] = [
  { name: 'board, 300 policies × 6 stages (+ the demo), top', path: '/', content: 'tr[data-policy]', hydrated: '[data-testid="stage-board"]', goal: 300 },
  { name: 'board, 300 policies × 6 stages (+ the demo), deep link to the last policy', path: '/#policy-policy-0299', content: 'tr[data-policy="policy-0299"]', hydrated: '[data-testid="stage-board"]', goal: 300 },
  { name: 'compare, webapp staging → production', path: '/compare?policy=webapp&from=staging&to=production', content: '[data-testid="compare-view"] [data-cookbook]' },
  { name: 'text diff, webapp staging → production (split)', path: '/compare?policy=webapp&from=staging&to=production&text=1', content: '[data-testid="text-diff"] table', goal: 500 },
  { name: 'nodes', path: '/nodes', content: '[data-testid="node-total"]' },
  { name: 'rings', path: '/rings', content: 'main h1' },
];

/** Median page-to-content time, and the medians of the navigation's first byte and last byte (the server's share: the HTML streams until the server has rendered it all). */
async function timeLoads(page: Page, path: string, content: string, hydrated?: string, runs = 7, warmup = 2): Promise<{ ms: number; firstByte: number; lastByte: number; bytes: number }> {
  const samples: number[] = [];
  const first: number[] = [];
  const last: number[] = [];
  let bytes = 0;
  for (let i = 0; i < warmup + runs; i++) {
    await page.goto('about:blank');
    const t = performance.now();
    await page.goto(path, { waitUntil: 'commit' });
    await page.locator(content).first().waitFor({ state: 'visible', timeout: 60_000 });
    // Hydrated: React keeps its fiber on the elements it has attached to (the same check for any version of the page).
    if (hydrated) await page.waitForFunction((sel) => Object.keys(document.querySelector(sel) ?? {}).some((k) => k.startsWith('__reactFiber$')), hydrated, { timeout: 60_000, polling: 'raf' });
    if (i < warmup) continue;
    samples.push(performance.now() - t);
    const nav = await page.evaluate(() => {
      const n = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
      return n ? { first: n.responseStart, last: n.responseEnd, bytes: n.decodedBodySize } : { first: NaN, last: NaN, bytes: NaN };
    });
    first.push(nav.first);
    last.push(nav.last);
    bytes = nav.bytes;
  }
  return { ms: median(samples), firstByte: median(first), lastByte: median(last), bytes };
}

export default async function bench(): Promise<BenchResult[]> {
  const app = await startServe(3260, {
    populate: async (dbUrl) => {
      const client = createDb(dbUrl);
      await populate(client, 300, 6);
      await client.$disconnect();
    },
  });
  let browser: Browser | null = null;
  try {
    browser = await chromium.launch({ executablePath: chromiumExecutable(), args: CHROMIUM_ARGS });
    const anonymous = await browser.newContext({ baseURL: app.url });
    const login = await anonymous.newPage();
    const loadBefore = loadAverage();
    const baseMs = (await timeLoads(login, '/login', 'form button[type="submit"]')).ms;
    // Sign in as the demo administrator through next-auth's credentials callback (as e2e/global-setup.ts does).
    const ctx = await browser.newContext({ baseURL: app.url });
    const { csrfToken } = await (await ctx.request.get('/api/auth/csrf')).json();
    const signIn = await ctx.request.post('/api/auth/callback/credentials', { form: { csrfToken, email: 'admin@example.com', password: DEMO_PASSWORD, json: 'true' } });
    if (!signIn.ok()) throw new Error(`sign-in failed: ${signIn.status()}`);
    const page = await ctx.newPage();
    const rows: BenchResult[] = [];
    // BENCH_PAGES=board,text: only the pages whose name contains one of these words.
    const only = (process.env.BENCH_PAGES ?? '').split(',').filter(Boolean);
    for (const p of PAGES.filter((x) => !only.length || only.some((w) => x.name.includes(w)))) {
      const { ms, firstByte, lastByte, bytes } = await timeLoads(page, p.path, p.content, p.hydrated);
      rows.push({
        name: `page to content, warm, Chromium: ${p.name}`,
        ours_ms: round(ms, 1),
        baseline: 'the sign-in page (no data), same browser and run',
        baseline_ms: round(baseMs, 1),
        ratio: round(ms / baseMs),
        goal: p.goal ? `< ${p.goal} ms at idle (issue 49)` : 'report only',
        met: p.goal ? ms < p.goal : true,
        note: `median of 7 loads after 2 warm-ups; the HTML's first byte at ${Math.round(firstByte)} ms and last byte at ${Math.round(lastByte)} ms (the server's share), the rest is the browser; the HTML (with its inline RSC payload) ${Math.round(bytes / 1024)} KB; load average (1/5/15 min) ${loadBefore} before, ${loadAverage()} after`,
      });
    }
    return rows;
  } finally {
    await browser?.close();
    await app.stop();
  }
}
