/** Issue 17: sign-in rate limit (6), sessions that end (7), open redirect (14), audit visibility (18), CSV guard (22). */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { encode, type JWT } from 'next-auth/jwt';
import type { Session, User } from 'next-auth';
import { apiRoutes, accessFor, call, seed, tokenFor } from '@/test/helpers';
import { db } from '@/lib/db/client';
import { DEMO_PASSWORD } from '@/lib/seed/seed-demo';
import { authorizeCredentials, DEACTIVATED, LoginLockedError } from '@/lib/authn/login';
import { authOptions } from '@/lib/authn/options';
import { accessForSessionClaims } from '@/lib/authn/session-claims';
import { safeCallbackPath } from '@/lib/auth/callback-url';
import { authSecret } from '@/lib/auth/secret';
import { authenticate, type Accepts } from '@/lib/authn';
import { HOME_ORG_ID } from '@/lib/domain/organizations';
import { signOutEverywhere, updateUser } from '@/lib/services/users';
import { auditCsv, listAudit } from '@/lib/db/queries/audit';
const auditRoute = apiRoutes('/api/v1/audit');

beforeAll(async () => {
  await seed();
  process.env.TRUST_PROXY = 'true';
});

beforeEach(async () => {
  await db().loginThrottle.deleteMany();
});

const attempt = async (email: string, password: string, ip = '10.0.0.1') => {
  try {
    return { user: await authorizeCredentials({ email, password }, { 'x-forwarded-for': `${ip}, 127.0.0.1` }) };
  } catch (e) {
    if (e instanceof LoginLockedError) return { locked: e.until };
    throw e;
  }
};

describe('item 6: brute-force protection', () => {
  it('locks the account after repeated failures, so even the right password is refused until the lock ends', async () => {
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await attempt('viewer@example.com', `wrong-${i}`, `10.1.0.${i}`));
    expect(results.slice(0, 4).every((r) => r.user === null)).toBe(true);
    expect(results[4].locked).toBeInstanceOf(Date);
    expect(results[4].locked!.getTime()).toBeGreaterThan(Date.now() + 20_000);
    const right = await attempt('viewer@example.com', DEMO_PASSWORD, '10.2.0.1');
    expect(right.user).toBeUndefined();
    expect(right.locked).toBeInstanceOf(Date);
    // The next failure doubles the lock.
    await db().loginThrottle.update({ where: { key: 'account:viewer@example.com' }, data: { lockedUntil: new Date(Date.now() - 1) } });
    const sixth = await attempt('viewer@example.com', 'wrong-again', '10.1.0.9');
    expect(sixth.locked!.getTime() - Date.now()).toBeGreaterThan(50_000);
    // Stored in the database (shared by instances) and audited for admins.
    const row = await db().loginThrottle.findUniqueOrThrow({ where: { key: 'account:viewer@example.com' } });
    expect(row.failures).toBe(6);
    expect(await db().auditEvent.count({ where: { action: 'login.lockout', target: 'account:viewer@example.com' } })).toBe(2);
    // When the lock is over, the right password works and clears the count.
    await db().loginThrottle.update({ where: { key: 'account:viewer@example.com' }, data: { lockedUntil: new Date(Date.now() - 1) } });
    expect((await attempt('viewer@example.com', DEMO_PASSWORD, '10.3.0.1')).user).toMatchObject({ email: 'viewer@example.com' });
    expect(await db().loginThrottle.findUnique({ where: { key: 'account:viewer@example.com' } })).toBeNull();
  });

  it('limits one client address across accounts', async () => {
    process.env.LOGIN_MAX_FAILURES_IP = '3';
    try {
      const emails = ['a@example.com', 'b@example.com', 'c@example.com'];
      const r = [];
      for (const e of emails) r.push(await attempt(e, 'x', '192.0.2.7'));
      expect(r[2].locked).toBeInstanceOf(Date);
      const other = await attempt('dev@example.com', DEMO_PASSWORD, '192.0.2.7');
      expect(other.locked).toBeInstanceOf(Date);
      expect((await attempt('dev@example.com', DEMO_PASSWORD, '192.0.2.8')).user).toMatchObject({ email: 'dev@example.com' });
      // Without a declared proxy, forwarding headers are not believed: no address bucket anyone could fill for everybody.
      delete process.env.TRUST_PROXY;
      for (const e of emails) await attempt(e, 'x', '192.0.2.9');
      expect(await db().loginThrottle.count({ where: { key: 'ip:192.0.2.9' } })).toBe(0);
    } finally {
      process.env.TRUST_PROXY = 'true';
      delete process.env.LOGIN_MAX_FAILURES_IP;
    }
  });
});

/** Signs in as next-auth does: authorize → jwt callback → session callback → the claims pages and routes check. */
async function signIn(email: string) {
  const user = (await authorizeCredentials({ email, password: DEMO_PASSWORD }, {}))!;
  const token = (await authOptions.callbacks!.jwt!({ token: { sub: undefined } as JWT, user: user as unknown as User, account: null, trigger: 'signIn' } as never)) as JWT;
  const session = (await authOptions.callbacks!.session!({ session: { user: { email }, expires: '' } as Session, token, user: user as never, newSession: undefined, trigger: 'update' } as never)) as Session & { sv?: unknown };
  const claims = () => ({ id: (session.user as { id?: string }).id, sid: (session as { sid?: unknown }).sid, sv: session.sv });
  return { token, claims };
}

describe('issue 16: a deactivated account is told so', () => {
  it('with the right password only; a wrong one learns nothing', async () => {
    await db().user.update({ where: { email: 'ops@example.com' }, data: { active: false } });
    try {
      await expect(authorizeCredentials({ email: 'ops@example.com', password: DEMO_PASSWORD }, {})).rejects.toThrow(DEACTIVATED);
      expect(await authorizeCredentials({ email: 'ops@example.com', password: 'wrong-password' }, {})).toBeNull();
    } finally {
      await db().user.update({ where: { email: 'ops@example.com' }, data: { active: true } });
    }
  });
});

describe('item 7: sessions end at sign-out and password changes', () => {
  it('sign-out voids that session at once (a copy of the cookie stops working); the user\'s other sessions go on', async () => {
    const s = await signIn('dev@example.com');
    const elsewhere = await signIn('dev@example.com');
    expect(await accessForSessionClaims(s.claims())).toMatchObject({ email: 'dev@example.com' });
    await authOptions.events!.signOut!({ token: s.token, session: null as never });
    expect(await accessForSessionClaims(s.claims())).toBeNull();
    expect(await accessForSessionClaims(elsewhere.claims())).not.toBeNull();
    const again = await signIn('dev@example.com');
    expect(await accessForSessionClaims(again.claims())).not.toBeNull();
  });

  it('a password reset, a deactivation, and "sign out everywhere" end existing sessions', async () => {
    const admin = await accessFor('admin@example.com');
    const s1 = await signIn('ops@example.com');
    await updateUser(admin, { email: 'ops@example.com', password: DEMO_PASSWORD });
    expect(await accessForSessionClaims(s1.claims())).toBeNull();
    const s2 = await signIn('ops@example.com');
    await signOutEverywhere(admin, { email: 'ops@example.com' });
    expect(await accessForSessionClaims(s2.claims())).toBeNull();
    const s3 = await signIn('ops@example.com');
    // Anyone may end their own sessions; only admins someone else's.
    const ops = await accessFor('ops@example.com');
    await expect(signOutEverywhere(ops, { email: 'dev@example.com' })).rejects.toMatchObject({ status: 403 });
    await signOutEverywhere(ops, { email: 'ops@example.com' });
    expect(await accessForSessionClaims(s3.claims())).toBeNull();
  });

  it('a token without a session id or version (issued before they existed) is void', async () => {
    const u = await db().user.findUniqueOrThrow({ where: { email: 'dev@example.com' } });
    expect(await accessForSessionClaims({ id: u.id })).toBeNull();
    expect(await accessForSessionClaims({ id: u.id, sv: u.sessionVersion })).toBeNull();
  });
});

describe('item 14: sign-in redirects stay on this console', () => {
  it('accepts same-origin paths only', () => {
    expect(safeCallbackPath('/history?policy=webapp')).toBe('/history?policy=webapp');
    for (const bad of ['/\\evil.example/path', '//evil.example', '/\\/evil.example', 'https://evil.example', '/\t/evil.example', 'javascript:alert(1)', '', undefined]) {
      expect(safeCallbackPath(bad), String(bad)).toBe('/');
    }
  });
});

describe('item 18: audit events without a stage are for admins', () => {
  it('user administration, tokens and lockouts are hidden from other users; policy events stay visible', async () => {
    const viewer = await accessFor('viewer@example.com');
    const { events } = await listAudit(viewer, { limit: 5000 });
    const actions = new Set(events.map((e) => e.action));
    for (const a of ['user.reset-password', 'user.sign-out-everywhere', 'login.lockout', 'token.create']) expect(actions.has(a), a).toBe(false);
    expect(events.every((e) => e.stage !== null || e.targetType === 'policy' || e.targetType === 'revision')).toBe(true);
    const admin = await listAudit(await accessFor('admin@example.com'), { limit: 5000 });
    expect(admin.events.some((e) => e.action === 'user.reset-password')).toBe(true);
    const viaApi = await call(auditRoute.GET, 'GET', { token: await tokenFor('viewer@example.com'), query: 'action=user' });
    expect(viaApi.status).toBe(200);
    expect(viaApi.json.events ?? viaApi.json).toHaveLength(0);
  });
});

describe('item 22: CSV formula guard', () => {
  it('also neutralises cells starting with a tab or a carriage return', () => {
    const csv = auditCsv([{ id: '1', at: 'x', actor: '\t=cmd', action: '\r=cmd', targetType: 't', target: '=x', stage: null, policy: null, before: null, after: null, reason: '+1', requestId: null }]);
    expect(csv).toContain(`"'\t=cmd"`);
    expect(csv).toContain(`"'\r=cmd"`);
    expect(csv).toContain(`"'=x"`);
  });
});

/** Issue 44 (docs/architecture.md 6.1): one `authenticate` for every door, the session read from the Cookie header without Next. */
describe('lib/authn: one authenticate(request, org, accepts)', () => {
  const ask = (headers: Record<string, string>, accepts: Accepts) =>
    authenticate({ method: 'GET', path: '/api/v1/board', header: (h) => headers[h.toLowerCase()] ?? null, body: new Uint8Array() }, { id: HOME_ORG_ID }, accepts);
  const cookieOf = async (token: JWT) => `theme=dark; next-auth.session-token=${await encode({ token, secret: authSecret() })}`;

  it('reads the next-auth session cookie (whole or in chunks) and stops at sign-out, as pages do', async () => {
    const s = await signIn('dev@example.com');
    const cookie = await cookieOf(s.token);
    expect(await ask({ cookie }, ['session'])).toMatchObject({ ok: true, protocol: 'session', actor: { kind: 'user', email: 'dev@example.com', via: 'session' } });
    // next-auth splits a large token into <name>.0, <name>.1, …
    const jwt = cookie.split('next-auth.session-token=')[1];
    const chunked = `next-auth.session-token.1=${jwt.slice(100)}; next-auth.session-token.0=${jwt.slice(0, 100)}`;
    expect(await ask({ cookie: chunked }, ['session'])).toMatchObject({ ok: true, actor: { email: 'dev@example.com' } });
    // A token that does not decode, or was not signed with the console's secret, is no session.
    expect(await ask({ cookie: 'next-auth.session-token=abc' }, ['session'])).toEqual({ ok: false, status: 0 });
    const forged = `next-auth.session-token=${await encode({ token: s.token, secret: 'not-the-secret' })}`;
    expect(await ask({ cookie: forged }, ['session'])).toEqual({ ok: false, status: 0 });
    await authOptions.events!.signOut!({ token: s.token, session: null as never });
    expect(await ask({ cookie }, ['session'])).toEqual({ ok: false, status: 0 });
  });

  it('takes only what the door accepts, and a credential presented decides (no falling back to the next one)', async () => {
    const s = await signIn('viewer@example.com');
    const cookie = await cookieOf(s.token);
    // The Chef door takes signatures and tokens, never a browser session.
    expect(await ask({ cookie }, ['signature', 'bearer'])).toEqual({ ok: false, status: 0 });
    // A wrong token beside a good session is refused, not retried as the session.
    expect(await ask({ cookie, authorization: 'Bearer nope' }, ['signature', 'bearer', 'session'])).toMatchObject({ ok: false, status: 401 });
    // A good token wins over the session; a bad signature is refused, not retried as the token.
    const token = await tokenFor('release@example.com');
    expect(await ask({ cookie, authorization: `Bearer ${token}` }, ['signature', 'bearer', 'session'])).toMatchObject({ ok: true, protocol: 'bearer', actor: { email: 'release@example.com', via: 'token' } });
    const badSignature = { 'x-ops-userid': 'release', 'x-ops-sign': 'algorithm=sha1;version=1.0', 'x-ops-timestamp': new Date().toISOString(), 'x-ops-content-hash': 'x', 'x-ops-authorization-1': 'x' };
    expect(await ask({ ...badSignature, authorization: `Bearer ${token}` }, ['signature', 'bearer', 'session'])).toMatchObject({ ok: false, status: 401 });
    expect(await ask({ ...badSignature, authorization: `Bearer ${token}` }, ['bearer'])).toMatchObject({ ok: true, protocol: 'bearer' });
  });
});
