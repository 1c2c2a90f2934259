import { chromium, request } from '@playwright/test';
const base = 'http://127.0.0.1:3126';
async function login(email) {
  const ctx = await request.newContext({ baseURL: base });
  const { csrfToken } = await (await ctx.get('/api/auth/csrf')).json();
  await ctx.post('/api/auth/callback/credentials', { form: { csrfToken, email, password: 'demo-password', json: 'true' } });
  const st = await ctx.storageState();
  await ctx.dispose();
  return st;
}
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
const ctx = await b.newContext({ storageState: await login(process.argv[2] ?? 'release@example.com'), baseURL: base });
const p = await ctx.newPage();
p.on('console', (m) => m.type() === 'error' && console.log('console:', m.text()));
const script = process.argv[3];
await eval(`(async () => { ${script} })()`);
await p.screenshot({ path: '/tmp/h15ui-probe.png', fullPage: true });
await b.close();
