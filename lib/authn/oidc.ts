/**
 * Issue 45: sign-in through an OpenID Connect provider with next-auth. The provider is found by discovery from
 * OIDC_ISSUER; the authorization code flow runs with PKCE, `state` and `nonce`; next-auth's openid-client verifies
 * the ID token (signature against the provider's published keys, issuer, audience, expiry, nonce) before any of the
 * console's code sees a claim. Then lib/services/users/sso.ts links or creates the account and syncs its groups.
 *
 * Errors: next-auth ends every failed provider answer on `/api/auth/error?error=OAuthCallback` and says why only in
 * its log. The route (app/api/auth/[...nextauth]/route.ts) runs each request with a small store that the logger
 * fills with the reason (denied consent, another audience, an expired state, the provider down...), and sends the
 * browser to /login/error with it, which says what happened in words.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Account, Profile, User } from 'next-auth';
import type { OAuthConfig } from 'next-auth/providers/oauth';
import { processState } from '@/lib/process-state';
import { readGroupsClaim } from '@/lib/domain/sso';
import { oidcSignIn } from '@/lib/services/users';
import { discoveryUrl, OIDC_PROVIDER_ID, oidcConfig, type OidcConfig } from './oidc-config';

/** How the person signed in, carried in the session token (`am`): sessions through the provider are refreshed. */
export type AuthMethod = 'password' | 'oidc';

/** The next-auth provider for the configuration. */
export function oidcProvider(config: OidcConfig): OAuthConfig<Record<string, unknown>> {
  return {
    id: OIDC_PROVIDER_ID,
    name: config.name,
    type: 'oauth',
    wellKnown: discoveryUrl(config.issuer),
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    authorization: { params: { scope: config.scopes } },
    idToken: true,
    checks: ['pkce', 'state', 'nonce'],
    client: { token_endpoint_auth_method: 'client_secret_basic' },
    // A provider that does not answer is "down" after this long, not a hung sign-in.
    httpOptions: { timeout: 5000 },
    profile(claims) {
      return { id: String(claims.sub), email: typeof claims.email === 'string' ? claims.email : null, name: typeof claims.name === 'string' ? claims.name : null };
    },
  };
}

/** The error page for a refusal of ours (the codes of SsoRefusal, 'Configuration'). */
export function errorPage(error: string, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams({ error, ...extra });
  return `/login/error?${q}`;
}

/**
 * next-auth's signIn callback for the provider: the verified claims become a console account (or a refusal page).
 * The account's id and session version go onto `user`, which next-auth hands to the jwt callback next.
 */
export async function oidcSignInCallback({ user, account, profile }: { user: User; account: Account | null; profile?: Profile }): Promise<true | string> {
  const config = oidcConfig();
  if (!config || !account || !profile) return errorPage('Configuration');
  const claims = profile as Record<string, unknown>;
  const outcome = await oidcSignIn(
    { issuer: config.issuer, adminGroups: config.adminGroups, linkVerifiedEmail: config.linkVerifiedEmail },
    {
      subject: String(claims.sub),
      email: typeof claims.email === 'string' ? claims.email : null,
      emailVerified: claims.email_verified === true,
      name: typeof claims.name === 'string' ? claims.name : null,
      groups: readGroupsClaim(claims, config.groupsClaim),
      refreshToken: typeof account.refresh_token === 'string' ? account.refresh_token : null,
    },
  );
  if (!outcome.ok) {
    const extra: Record<string, string> = {};
    if (outcome.code === 'email-taken') extra.subject = outcome.subject;
    if (outcome.code === 'missing-groups') extra.claim = config.groupsClaim;
    return errorPage(outcome.code, extra);
  }
  Object.assign(user, { id: outcome.userId, email: outcome.email, name: outcome.name, sessionVersion: outcome.sessionVersion, authMethod: 'oidc' satisfies AuthMethod });
  return true;
}

// ---- errors from the provider, in words ----

/** What went wrong with the provider, as the error page names it. */
export type ProviderProblem = 'denied' | 'provider-error' | 'audience' | 'issuer' | 'signature' | 'expired-token' | 'nonce' | 'expired-state' | 'state-mismatch' | 'code-rejected' | 'provider-down' | 'callback';

interface ErrorStore {
  problem?: ProviderProblem;
  detail?: string;
}

const errorStore = processState('sso.error-store', () => new AsyncLocalStorage<ErrorStore>());

const messageOf = (e: unknown): string => {
  if (!e) return '';
  if (e instanceof Error) return `${e.message} ${messageOf((e as { cause?: unknown }).cause)} ${(e as { code?: string }).code ?? ''}`;
  if (typeof e === 'object') {
    const o = e as { error?: unknown; message?: unknown; error_description?: unknown };
    return `${messageOf(o.error)} ${typeof o.message === 'string' ? o.message : ''} ${typeof o.error_description === 'string' ? o.error_description : ''}`;
  }
  return String(e);
};

/** Names a next-auth / openid-client failure (by its code and message; none of this decides a right). */
export function classifyProviderError(code: string, metadata: unknown): ProviderProblem {
  const m = messageOf(metadata);
  if (code === 'OAUTH_CALLBACK_HANDLER_ERROR') return /\baccess_denied\b/.test(m) ? 'denied' : 'provider-error';
  if (/ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|EHOSTUNREACH|timed out|socket hang up|fetch failed|expected 200 OK, got: 5\d\d/i.test(m)) return 'provider-down';
  if (/aud mismatch|azp (mismatch|must be)|audience/i.test(m)) return 'audience';
  if (/unexpected iss|iss mismatch/i.test(m)) return 'issuer';
  if (/JWT expired|exp claim|\biat\b|issued in the future|auth_time/i.test(m)) return 'expired-token';
  if (/signature|no valid key|JWKS|jwks/i.test(m)) return 'signature';
  if (/nonce mismatch|nonce/i.test(m) && !/cookie/i.test(m)) return 'nonce';
  if (/cookie was missing|could not be parsed|code_verifier/i.test(m)) return 'expired-state';
  if (/state mismatch|different provider/i.test(m)) return 'state-mismatch';
  if (/invalid_grant|invalid_client|invalid_request/i.test(m)) return 'code-rejected';
  if (code === 'SIGNIN_OAUTH_ERROR') return 'provider-down';
  return 'callback';
}

/** next-auth's logger: the reason into the request's store, a one-line log without the stack (never to the browser). */
export const authLogger = {
  error(code: string, metadata: unknown) {
    const store = errorStore.getStore();
    if (store && !store.problem && /OAUTH|SIGNIN/.test(code)) {
      store.problem = classifyProviderError(code, metadata);
      store.detail = messageOf(metadata).replace(/\s+/g, ' ').trim().slice(0, 300);
    }
    console.error(`[next-auth] ${code}: ${messageOf(metadata).replace(/\s+/g, ' ').trim().slice(0, 500)}`);
  },
  warn(code: string) {
    if (code !== 'DEBUG_ENABLED') console.warn(`[next-auth] ${code}`);
  },
  debug() {},
};

/**
 * Runs one next-auth request and sends an error answer to /login/error with what happened: the Location of a
 * redirect and the `url` of the JSON answers next-auth gives its client-side signIn().
 */
export async function withProviderErrors(run: () => Promise<Response>): Promise<Response> {
  const store: ErrorStore = {};
  const res = await errorStore.run(store, run);
  const rewrite = (target: string): string | null => {
    let url: URL;
    try {
      url = new URL(target, 'http://console.invalid');
    } catch {
      return null;
    }
    if (url.pathname !== '/api/auth/error' && url.pathname !== '/login/error') return null;
    const q = new URLSearchParams({ error: url.searchParams.get('error') ?? 'Default' });
    for (const k of ['subject', 'claim']) if (url.searchParams.get(k)) q.set(k, url.searchParams.get(k)!);
    if (store.problem) q.set('reason', store.problem);
    const path = `/login/error?${q}`;
    return url.origin === 'http://console.invalid' ? path : `${url.origin}${path}`;
  };
  const location = res.headers.get('location');
  if (location) {
    const to = rewrite(location);
    if (to) res.headers.set('location', to);
    return res;
  }
  if (store.problem && (res.headers.get('content-type') ?? '').includes('application/json')) {
    const body = (await res.clone().json().catch(() => null)) as { url?: unknown } | null;
    const to = body && typeof body.url === 'string' ? rewrite(body.url) : null;
    if (to) {
      const headers = new Headers(res.headers);
      headers.delete('content-length');
      return new Response(JSON.stringify({ ...body, url: to }), { status: res.status, headers });
    }
  }
  return res;
}
