/** Signs in each demo role once through next-auth's credentials callback and keeps its storageState; then keeps the seeded database for e2e/test.ts. */
import fs from 'node:fs';
import { request, type FullConfig } from '@playwright/test';
import { DEMO_PASSWORD, ROLES, stateFile, type Role } from './roles';
import { saveSeedState } from './seed-state';

export default async function globalSetup(config: FullConfig) {
  const baseURL = config.projects[0].use.baseURL!;
  fs.mkdirSync('e2e/.auth', { recursive: true });
  for (const role of Object.keys(ROLES) as Role[]) {
    const ctx = await request.newContext({ baseURL });
    const { csrfToken } = await (await ctx.get('/api/auth/csrf')).json();
    const res = await ctx.post('/api/auth/callback/credentials', {
      form: { csrfToken, email: ROLES[role], password: DEMO_PASSWORD, json: 'true' },
    });
    if (!res.ok()) throw new Error(`sign-in for ${role} failed: ${res.status()}`);
    const session = await (await ctx.get('/api/auth/session')).json();
    if (session?.user?.email !== ROLES[role]) throw new Error(`no session for ${role}: ${JSON.stringify(session)}`);
    await ctx.storageState({ path: stateFile(role) });
    await ctx.dispose();
  }
  // Every spec file starts from this state (e2e/test.ts).
  await saveSeedState();
}
