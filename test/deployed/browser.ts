/**
 * Demo personas (each of them, or the ones the caller names) sign in through Chromium and open every page of the console, alternating instances (the
 * sign-in on one, the next page on the other, and so on: a session one instance issued is honoured by the
 * other). A problem is any 5xx (the page or anything it loads), the console's error screen or Next's, a redirect
 * to /login after signing in, or the catch-all not answering 404.
 */
import { chromium, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumExecutable } from '@/e2e/chromium';
import { DEMO_PASSWORD, DEMO_USERS } from '@/lib/seed/demo-data';
import type { Instance } from './deployment';
import type { ConsolePage } from './pages';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumExecutable(), args: CHROMIUM_ARGS });
}

const ERROR_SCREENS = ['This page could not be loaded', 'Application error: a server-side exception', 'Application error: a client-side exception', 'Internal Server Error'];

async function errorScreen(page: Page): Promise<string | null> {
  const text = await page.locator('body').innerText({ timeout: 10_000 }).catch(() => '');
  return ERROR_SCREENS.find((t) => text.includes(t)) ?? null;
}

async function signIn(page: Page, base: string, email: string): Promise<void> {
  await page.goto(`${base}/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => !u.pathname.startsWith('/login'), { timeout: 60_000 });
}

const SESSION_COOKIES = ['next-auth.session-token', '__Secure-next-auth.session-token'];

/**
 * The instances here are told apart by port on one host, and one of them speaks HTTPS: next-auth names its
 * session cookie `__Secure-next-auth.session-token` over HTTPS and `next-auth.session-token` over HTTP. Behind one
 * load balancer every instance sees one scheme, so one name; here the session one instance issued is handed to
 * the other under both names (the signed token is what the other instance must honour).
 */
async function shareSession(context: BrowserContext): Promise<void> {
  const cookies = await context.cookies();
  const issued = cookies.find((c) => SESSION_COOKIES.includes(c.name));
  if (!issued) throw new Error('no session cookie after signing in');
  const add = SESSION_COOKIES.filter((name) => !cookies.some((c) => c.name === name)).map((name) => ({ ...issued, name, secure: name.startsWith('__Secure-') }));
  if (add.length) await context.addCookies(add);
}

/** Every persona (of `personas`, all demo users by default) × every page; returns the problems found (empty when all is well) and how many pages were opened. */
export async function everyPersonaEveryPage(browser: Browser, instances: Instance[], pages: ConsolePage[], personas: readonly (typeof DEMO_USERS)[number][] = DEMO_USERS): Promise<{ problems: string[]; opened: number }> {
  const problems: string[] = [];
  let opened = 0;
  // The sign-out confirmation last: nothing after it needs the session.
  const ordered = [...pages].sort((a, b) => Number(a.url === '/logout') - Number(b.url === '/logout'));
  for (const [k, user] of personas.entries()) {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    let current = '';
    page.on('response', (r) => {
      if (r.status() >= 500) problems.push(`${user.email} ${current}: ${r.status()} from ${r.request().method()} ${r.url()}`);
    });
    try {
      const home = instances[k % instances.length];
      current = `sign-in on ${home.name}`;
      await signIn(page, home.url, user.email);
      if (new Set(instances.map((i) => i.https)).size > 1) await shareSession(context);
      for (const [j, p] of ordered.entries()) {
        const inst = instances[(k + j + 1) % instances.length];
        current = `${p.url} on ${inst.name}`;
        const res = await page.goto(`${inst.url}${p.url}`, { waitUntil: 'load', timeout: 90_000 });
        opened++;
        const status = res?.status() ?? 0;
        const at = new URL(page.url());
        if (at.pathname === '/login') problems.push(`${user.email} ${current}: redirected to /login (the session was not honoured)`);
        if (p.expect === 'not-found' && status !== 404) problems.push(`${user.email} ${current}: ${status}, expected the not-found page (404)`);
        if (status >= 500) problems.push(`${user.email} ${current}: answered ${status}`);
        const screen = await errorScreen(page);
        if (screen) problems.push(`${user.email} ${current}: error screen "${screen}"`);
      }
    } catch (e) {
      problems.push(`${user.email} ${current}: ${(e as Error).message.split('\n')[0]}`);
    } finally {
      await context.close();
    }
  }
  return { problems, opened };
}
