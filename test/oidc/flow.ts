/**
 * Drives a sign-in through the provider as a browser would, without one: next-auth's own handler (AuthHandler, what
 * app/api/auth/[...nextauth] runs, with the same error rewrite) for the console's side, plain HTTP with a cookie jar
 * through the test provider's login and consent pages for the provider's side.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type { AuthOptions } from 'next-auth';
import { decode } from 'next-auth/jwt';
import { withProviderErrors } from '@/lib/authn/oidc';

type Jar = Map<string, string>;

interface InternalResponse {
  status?: number;
  body?: unknown;
  redirect?: string;
  cookies?: { name: string; value: string; options?: { maxAge?: number; expires?: Date | string } }[];
}
/** next-auth's request handler (what its Next route runs); not in the package's exports, so loaded by its file. */
const { AuthHandler } = createRequire(import.meta.url)(path.resolve('node_modules/next-auth/core/index.js')) as {
  AuthHandler: (p: { req: Record<string, unknown>; options: AuthOptions }) => Promise<InternalResponse>;
};

export interface AuthAnswer {
  status: number;
  location: string | null;
  body: unknown;
}

/** One next-auth request through the route's error rewrite; cookies it sets go into `jar`. */
export async function authRequest(options: AuthOptions, jar: Jar, req: { action: string; providerId?: string; method: string; query?: Record<string, string>; body?: Record<string, string> }): Promise<AuthAnswer> {
  const res = await withProviderErrors(async () => {
    const r = await AuthHandler({ req: { action: req.action, providerId: req.providerId, method: req.method, cookies: Object.fromEntries(jar), headers: {}, query: req.query ?? {}, body: req.body ?? {}, error: req.query?.error }, options });
    for (const c of r.cookies ?? []) {
      if (c.options?.maxAge === 0 || (c.options?.expires && new Date(c.options.expires).getTime() <= Date.now())) jar.delete(c.name);
      else jar.set(c.name, c.value);
    }
    const headers = new Headers();
    if (r.redirect) headers.set('location', r.redirect);
    if (r.body !== undefined && typeof r.body !== 'string') headers.set('content-type', 'application/json');
    return new Response(r.redirect ? null : typeof r.body === 'string' ? r.body : JSON.stringify(r.body ?? null), { status: r.redirect ? 302 : (r.status ?? 200), headers });
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* HTML or empty */
  }
  return { status: res.status, location: res.headers.get('location'), body };
}

/** Starts a sign-in: the URL of the provider's authorization endpoint (or the error page when the provider is down). */
export async function startSignIn(options: AuthOptions, jar: Jar): Promise<AuthAnswer> {
  const csrf = await authRequest(options, jar, { action: 'csrf', method: 'GET' });
  const csrfToken = (csrf.body as { csrfToken: string }).csrfToken;
  return authRequest(options, jar, { action: 'signin', providerId: 'oidc', method: 'POST', body: { csrfToken, callbackUrl: `${process.env.NEXTAUTH_URL}/` } });
}

/**
 * Follows the provider from its authorization URL through its login page (as `login`/`password`) and consent page
 * (Allow, or Deny with `deny`) until it redirects to the console's callback: the callback's query.
 */
export async function atProvider(authUrl: string, login: string, password: string, opts: { deny?: boolean } = {}): Promise<Record<string, string>> {
  const jar: Jar = new Map();
  let url = authUrl;
  let method = 'GET';
  let body: string | undefined;
  for (let step = 0; step < 20; step++) {
    const res = await fetch(url, { method, body, redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) } });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair.indexOf('=');
      jar.set(pair.slice(0, i), pair.slice(i + 1));
    }
    const location = res.headers.get('location');
    if (location) {
      const next = new URL(location, url);
      if (next.href.startsWith(`${process.env.NEXTAUTH_URL}/api/auth/callback/oidc`)) return Object.fromEntries(next.searchParams);
      url = next.href;
      method = 'GET';
      body = undefined;
      continue;
    }
    const html = await res.text();
    const action = (name: string) => {
      const m = new RegExp(`action="([^"]*/${name})"`).exec(html);
      if (!m) throw new Error(`no ${name} form at ${url}: ${html.slice(0, 300)}`);
      return new URL(m[1], url).href;
    };
    if (html.includes('name="login"')) {
      if (html.includes('Wrong username or password')) throw new Error(`the provider refused ${login}'s password`);
      url = action('login');
      body = new URLSearchParams({ login, password }).toString();
    } else {
      url = action(opts.deny ? 'abort' : 'confirm');
      body = '';
    }
    method = 'POST';
  }
  throw new Error('the provider never sent the browser back');
}

/** The whole sign-in: the final answer of the console's callback (a redirect home, or to /login/error?...). */
export async function signInThroughProvider(options: AuthOptions, login: string, password: string, opts: { deny?: boolean } = {}): Promise<{ answer: AuthAnswer; jar: Jar; query: Record<string, string> }> {
  const jar: Jar = new Map();
  const start = await startSignIn(options, jar);
  if (!start.location || start.location.includes('/login/error')) return { answer: start, jar, query: {} };
  const query = await atProvider(start.location, login, password, opts);
  const answer = await callback(options, jar, query);
  return { answer, jar, query };
}

export function callback(options: AuthOptions, jar: Jar, query: Record<string, string>): Promise<AuthAnswer> {
  return authRequest(options, jar, { action: 'callback', providerId: 'oidc', method: 'GET', query });
}

/** The session cookie's claims as the console reads them (lib/authn/session-claims.ts). */
export async function sessionClaims(jar: Jar): Promise<{ id?: string; sid?: unknown; sv?: unknown; am?: unknown } | null> {
  const token = jar.get('next-auth.session-token');
  if (!token) return null;
  const t = await decode({ token, secret: process.env.NEXTAUTH_SECRET! });
  return t ? { id: t.sub, sid: t.sid, sv: t.sv, am: t.am } : null;
}

/** The error page's reason (or error) of an answer that ended on /login/error; null otherwise. */
export function errorReason(a: AuthAnswer): string | null {
  if (!a.location?.includes('/login/error')) return null;
  const q = new URL(a.location, 'http://x').searchParams;
  return q.get('reason') ?? q.get('error');
}
