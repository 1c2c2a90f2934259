/**
 * Issue 44 step 4 / issue 49: /api/v1 served by the node:http front (lib/api/http.ts), not by Next. Through the
 * front's shell (lib/ops/server.ts) as scripts/serve.ts composes it: the bearer read serves the stored bytes with
 * the caller's request id and the console's security headers; unknown paths and methods are answered by the
 * router before authentication (404, 405 with Allow; HEAD and OPTIONS as Next answered them); the browser session
 * is read from the next-auth cookie itself; cross-site refusal comes before authentication; bodies over the
 * contract's limit are refused; the metrics name the route's pattern.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encode } from 'next-auth/jwt';
import { db } from '@/lib/db/client';
import { authSecret } from '@/lib/auth/secret';
import { groupPolicyBytes } from '@/lib/db/queries/policies';
import { revokeSession } from '@/lib/db/queries/users';
import { respondEarly } from '@/lib/ops/early-guard';
import { serveApi } from '@/lib/api/http';
import { createConsoleServer } from '@/lib/ops/server';
import { seed, snapshot, tokenFor } from '@/test/helpers';

let server: http.Server;
let base: string;
let viewer: string;

beforeAll(async () => {
  await seed();
  viewer = await tokenFor('viewer@example.com');
  ({ server } = createConsoleServer({
    surface: () => 'console',
    routeLabel: () => 'other',
    handle: async (req, res) => {
      if (respondEarly(req, res)) return;
      if (await serveApi(req, res)) return;
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('next');
    },
  }) as { server: http.Server });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

/** A next-auth session cookie for a user, as the sign-in makes it (lib/authn/options.ts: sub, sid, sv). */
async function sessionCookie(email: string, sid = randomUUID()): Promise<{ cookie: string; sid: string; userId: string }> {
  const u = await db().user.findUniqueOrThrow({ where: { email } });
  const token = await encode({ token: { sub: u.id, sid, sv: u.sessionVersion, am: 'password' }, secret: authSecret() });
  return { cookie: `other=1; next-auth.session-token=${token}`, sid, userId: u.id };
}

describe('/api/v1 on the node:http front', () => {
  it('serves the bearer policy read: the stored bytes, the caller’s request id, the security headers; other paths go on to Next', async () => {
    const res = await fetch(`${base}/api/v1/policy_groups/production/policies/webapp`, { headers: { authorization: `Bearer ${viewer}`, 'x-request-id': 'front-read-1' } });
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(await groupPolicyBytes('production', 'webapp'))).toBe(true);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-request-id')).toBe('front-read-1');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(await (await fetch(`${base}/api/health`)).text()).toBe('next');
    expect(await (await fetch(`${base}/api/v1x`)).text()).toBe('next');
  });

  it('answers an unknown path 404 and another method 405 with Allow, before authentication; HEAD and OPTIONS as Next did', async () => {
    const unknown = await fetch(`${base}/api/v1/no-such-thing`, { headers: { 'x-request-id': 'front-404' } });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error[0]).toMatch(/no-such-thing/);
    expect(unknown.headers.get('x-request-id')).toBe('front-404');
    const wrong = await fetch(`${base}/api/v1/policies`, { method: 'PATCH' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect((await wrong.json()).error[0]).toMatch(/PATCH/);
    const options = await fetch(`${base}/api/v1/policy_groups/dev/policies/webapp`, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('DELETE, GET, HEAD, OPTIONS, PUT');
    const head = await fetch(`${base}/api/v1/policy_groups/production/policies/webapp`, { method: 'HEAD', headers: { authorization: `Bearer ${viewer}` } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect((await fetch(`${base}/api/v1/policies`)).status).toBe(401);
  });

  it('reads the browser session from the next-auth cookie, and refuses it once signed out or forged', async () => {
    const { cookie, sid, userId } = await sessionCookie('viewer@example.com');
    const ok = await fetch(`${base}/api/v1/policies`, { headers: { cookie } });
    expect(ok.status).toBe(200);
    expect(Object.keys(await ok.json()).length).toBeGreaterThan(0);
    const forged = cookie.replace(/session-token=(.)/, (_m, c: string) => `session-token=${c === 'a' ? 'b' : 'a'}`);
    expect((await fetch(`${base}/api/v1/policies`, { headers: { cookie: forged } })).status).toBe(401);
    await revokeSession(sid, userId, new Date(Date.now() + 3600_000));
    expect((await fetch(`${base}/api/v1/policies`, { headers: { cookie } })).status).toBe(401);
  });

  it('refuses a cross-site write with the session cookie before authenticating it, changing nothing', async () => {
    const { cookie } = await sessionCookie('release@example.com');
    const before = snapshot();
    const res = await fetch(`${base}/api/v1/policy_groups/dev/freezes`, { method: 'POST', headers: { cookie, origin: 'http://evil.example', 'content-type': 'application/json' }, body: JSON.stringify({ reason: 'x' }) });
    expect(res.status).toBe(403);
    expect((await res.json()).error[0]).toMatch(/Cross-origin request refused/);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    // A forged cookie is refused the same way: the origin is judged first.
    const forged = await fetch(`${base}/api/v1/policy_groups/dev/freezes`, { method: 'POST', headers: { cookie: 'next-auth.session-token=forged', origin: 'http://evil.example', 'content-type': 'application/json' }, body: '{}' });
    expect(forged.status).toBe(403);
    expect(snapshot()).toBe(before);
  });

  it('refuses a body over the contract’s limit with 413, and names the route’s pattern in the metrics', async () => {
    const big = JSON.stringify({ techniques: [], directives: [{ id: 'd', name: 'D', technique: 't', values: { v: ['y'.repeat(1_100_000)] } }], rules: [] });
    const res = await fetch(`${base}/api/v1/ordering/preview`, { method: 'POST', headers: { authorization: `Bearer ${viewer}`, 'content-type': 'application/json' }, body: big });
    expect(res.status).toBe(413);
    expect((await res.json()).error[0]).toMatch(/limit/);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/route="\/api\/v1\/policy_groups\/\[group\]\/policies\/\[name\]"/);
    expect(metrics).toMatch(/route="\/api\/v1\/ordering\/preview"/);
  });
});
