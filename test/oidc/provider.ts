/**
 * A real OpenID provider for the tests (issue 45): `oidc-provider` (the certified Node implementation) on a port of
 * its own, with its own signing key and its own people (login, password, e-mail, groups), its own login and consent
 * pages (plain HTML served by the provider, no outside resources), and a few test controls:
 *
 * - `people`: change a person's groups, or remove them (the provider then refuses their refresh token);
 * - `tamper`: rewrite the ID token of the next token responses (another audience, issuer, key, an expired token),
 *   re-signed with the provider's own key (or another), to see the console refuse each;
 * - `stop()` / `start()`: the provider down and back on the same port.
 *
 * Used in-process by the integration tests and as its own process by the e2e suite (test/oidc/serve-provider.ts).
 */
import http from 'node:http';
import { createPrivateKey, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface Person {
  password: string;
  email: string;
  emailVerified?: boolean;
  name: string;
  /** Absent: the groups claim is not sent at all. */
  groups?: unknown;
}

export interface TestProviderOptions {
  /** The console's callback URLs (…/api/auth/callback/oidc). */
  redirectUris: string[];
  clientId?: string;
  clientSecret?: string;
  port?: number;
  people?: Record<string, Person>;
  /** Seconds an ID token is valid (default 3600). */
  idTokenTtl?: number;
  /**
   * The e2e suite's controls over HTTP (the provider runs in its own process there): POST /_test/people/<login>
   * with a Person body sets a person, DELETE removes them, POST /_test/down makes every answer a 503 until
   * POST /_test/up.
   */
  httpControls?: boolean;
}

export interface TestProvider {
  issuer: string;
  port: number;
  clientId: string;
  clientSecret: string;
  people: Map<string, Person>;
  /** Rewrites the claims (and optionally the key) of the ID tokens the token endpoint returns, until cleared. */
  tamper: ((claims: Record<string, unknown>) => { claims: Record<string, unknown>; key?: 'own' | 'other' }) | null;
  stop(): Promise<void>;
  start(): Promise<void>;
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title></head><body><main><h1>${esc(title)}</h1>${body}</main></body></html>`;
}

async function formBody(req: http.IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

function signJwt(header: Record<string, unknown>, claims: Record<string, unknown>, key: KeyObject): string {
  const input = `${b64(header)}.${b64(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
}

export async function startTestProvider(opts: TestProviderOptions): Promise<TestProvider> {
  const clientId = opts.clientId ?? 'policy-console';
  const clientSecret = opts.clientSecret ?? `secret-${randomUUID()}`;
  const people = new Map(Object.entries(opts.people ?? {}));
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...(privateKey.export({ format: 'jwk' }) as Record<string, unknown>), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const ownKey = createPrivateKey({ key: jwk as never, format: 'jwk' });
  const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;

  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;

  const provider = new Provider(issuer, {
    clients: [
      { client_id: clientId, client_secret: clientSecret, redirect_uris: opts.redirectUris, grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic' },
    ],
    jwks: { keys: [jwk as never] },
    claims: { openid: ['sub', 'groups'], email: ['email', 'email_verified'], profile: ['name'] },
    // Scope claims in the ID token (the console reads groups from it).
    conformIdTokenClaims: false,
    // Refresh tokens for the console (without prompt=consent's offline_access dance), living past the provider session.
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(t: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: async () => false,
    ttl: { IdToken: opts.idTokenTtl ?? 3600 },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: [randomUUID()] },
    async findAccount(_ctx: unknown, id: string) {
      const p = people.get(id);
      if (!p) return undefined;
      return {
        accountId: id,
        async claims() {
          const current = people.get(id) ?? p;
          return { sub: id, email: current.email, email_verified: current.emailVerified ?? true, name: current.name, ...('groups' in current ? { groups: current.groups } : {}) };
        },
      };
    },
  });
  // The provider's own answers only: no noise from its development warnings in test output.
  provider.on('server_error', (_ctx: unknown, err: Error) => console.error(`[test provider] ${err.message}`));

  const state: TestProvider = {
    issuer,
    port,
    clientId,
    clientSecret,
    people,
    tamper: null,
    async stop() {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
    async start() {
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
  };

  // The token endpoint's answers, rewritten while a test asks for it.
  provider.use(async (ctx: { path: string; body: unknown }, next: () => Promise<void>) => {
    await next();
    const body = ctx.body as { id_token?: string } | undefined;
    if (state.tamper && ctx.path === '/token' && body?.id_token) {
      const claims = JSON.parse(Buffer.from(body.id_token.split('.')[1], 'base64url').toString('utf8')) as Record<string, unknown>;
      const t = state.tamper(claims);
      ctx.body = { ...body, id_token: signJwt({ alg: 'RS256', typ: 'JWT', kid: t.key === 'other' ? 'other-key' : 'test-key' }, t.claims, t.key === 'other' ? otherKey : ownKey) };
    }
  });

  const callback = provider.callback();
  let down = false;
  server.on('request', (req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', issuer);
      if (opts.httpControls && url.pathname.startsWith('/_test/')) {
        const who = /^\/_test\/people\/([^/]+)$/.exec(url.pathname);
        if (url.pathname === '/_test/down') down = true;
        else if (url.pathname === '/_test/up') down = false;
        else if (who && req.method === 'DELETE') people.delete(decodeURIComponent(who[1]));
        else if (who) {
          const chunks: Buffer[] = [];
          for await (const c of req) chunks.push(c as Buffer);
          people.set(decodeURIComponent(who[1]), JSON.parse(Buffer.concat(chunks).toString('utf8')) as Person);
        } else {
          res.writeHead(404).end();
          return;
        }
        res.writeHead(204).end();
        return;
      }
      if (down) {
        res.writeHead(503, { 'content-type': 'text/plain' }).end('down for the test');
        return;
      }
      const m = /^\/interaction\/([^/]+)(?:\/(login|confirm|abort))?$/.exec(url.pathname);
      if (!m) return callback(req, res);
      const send = (status: number, html: string) => {
        res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        res.end(html);
      };
      try {
        const details = await provider.interactionDetails(req, res);
        const uid = details.uid;
        const cancel = `<form method="post" action="/interaction/${uid}/abort"><button type="submit">Cancel</button></form>`;
        if (!m[2] && req.method === 'GET') {
          if (details.prompt.name === 'login') {
            return send(200, page('Sign in to the test provider', `<form method="post" action="/interaction/${uid}/login"><label>Username <input name="login" autocomplete="username"></label><label>Password <input name="password" type="password"></label><button type="submit">Sign in</button></form>${cancel}`));
          }
          const scopes = String(details.params.scope ?? '').split(' ').filter(Boolean);
          return send(200, page('Allow access', `<p>${esc(String(details.params.client_id))} asks for: ${scopes.map((s) => `<code>${esc(s)}</code>`).join(' ')}</p><form method="post" action="/interaction/${uid}/confirm"><button type="submit">Allow</button></form><form method="post" action="/interaction/${uid}/abort"><button type="submit">Deny</button></form>`));
        }
        if (req.method !== 'POST') return send(405, page('Method not allowed', ''));
        if (m[2] === 'abort') {
          return provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'End-User aborted interaction' }, { mergeWithLastSubmission: false });
        }
        if (m[2] === 'login') {
          const form = await formBody(req);
          const login = form.get('login') ?? '';
          const person = people.get(login);
          if (!person || person.password !== form.get('password')) {
            return send(200, page('Sign in to the test provider', `<p role="alert">Wrong username or password.</p><form method="post" action="/interaction/${uid}/login"><label>Username <input name="login" value="${esc(login)}"></label><label>Password <input name="password" type="password"></label><button type="submit">Sign in</button></form>${cancel}`));
          }
          return provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
        }
        // confirm: grant what was asked
        const { prompt, params, session, grantId } = details;
        const grant = grantId ? await provider.Grant.find(grantId) : new provider.Grant({ accountId: session!.accountId, clientId: String(params.client_id) });
        if (!grant) return send(400, page('No such grant', ''));
        const d = prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
        if (d.missingOIDCScope) grant.addOIDCScope(d.missingOIDCScope.join(' '));
        if (d.missingOIDCClaims) grant.addOIDCClaims(d.missingOIDCClaims);
        for (const [indicator, scope] of Object.entries(d.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scope.join(' '));
        const saved = await grant.save();
        return provider.interactionFinished(req, res, { consent: grantId ? {} : { grantId: saved } }, { mergeWithLastSubmission: true });
      } catch (e) {
        send(400, page('Sign-in error', `<p>${esc((e as Error).message)}</p>`));
      }
    })();
  });
  return state;
}
