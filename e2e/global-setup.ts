/**
 * Signs in each demo role once on each worker slot's server (e2e/servers.ts) through next-auth's credentials callback
 * and keeps its storageState; then keeps each slot's seeded database for e2e/test.ts. Playwright has started every
 * server (webServer in playwright.config.ts) before this runs.
 */
import fs from 'node:fs';
import { request } from '@playwright/test';
import { DEMO_PASSWORD, ROLES, stateFile, type Role } from './roles';
import { saveSeedState } from './seed-state';
import { E2E_WORKERS, serverUrl } from './servers';

async function signInAll(slot: number): Promise<void> {
  const baseURL = serverUrl(slot);
  for (const role of Object.keys(ROLES) as Role[]) {
    const ctx = await request.newContext({ baseURL });
    const { csrfToken } = await (await ctx.get('/api/auth/csrf')).json();
    const res = await ctx.post('/api/auth/callback/credentials', {
      form: { csrfToken, email: ROLES[role], password: DEMO_PASSWORD, json: 'true' },
    });
    if (!res.ok()) throw new Error(`sign-in for ${role} on ${baseURL} failed: ${res.status()}`);
    const session = await (await ctx.get('/api/auth/session')).json();
    if (session?.user?.email !== ROLES[role]) throw new Error(`no session for ${role} on ${baseURL}: ${JSON.stringify(session)}`);
    await ctx.storageState({ path: stateFile(role, slot) });
    await ctx.dispose();
  }
  // Every spec file the slot's worker runs starts from this state (e2e/test.ts).
  await saveSeedState(slot);
}

export default async function globalSetup() {
  fs.mkdirSync('e2e/.auth', { recursive: true });
  await Promise.all(Array.from({ length: E2E_WORKERS }, (_, slot) => signInAll(slot)));
}
