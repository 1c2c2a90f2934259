import type { NextAuthOptions } from 'next-auth';
import CredentialsProvider from 'next-auth/providers/credentials';
import { authSecret } from '@/lib/auth/secret';
import { authorizeCredentials } from './login';
import { randomUUID } from 'node:crypto';
import { revokeSession } from '@/lib/db/queries/users';
import { recordPasswordSignIn } from '@/lib/services/users';
import { oidcConfig } from './oidc-config';
import { authLogger, oidcProvider, oidcSignInCallback, type AuthMethod } from './oidc';

// A self-hosted console is reached under whatever host it is deployed at;
// without NEXTAUTH_URL, trust the request's host for callback URLs.
if (!process.env.NEXTAUTH_URL && !process.env.AUTH_TRUST_HOST) process.env.AUTH_TRUST_HOST = 'true';

/** How long a browser session lasts at most; sign-out and password changes end it sooner (see `sv`). */
export const SESSION_MAX_AGE_S = 12 * 60 * 60;

const ssoConfig = oidcConfig();
// Issue 45: the provider's callback URL is <PUBLIC_URL>/api/auth/callback/oidc when NEXTAUTH_URL is not set.
if (ssoConfig && !process.env.NEXTAUTH_URL && process.env.PUBLIC_URL) process.env.NEXTAUTH_URL = process.env.PUBLIC_URL.replace(/\/+$/, '');

export const authOptions: NextAuthOptions = {
  secret: authSecret(),
  session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_S },
  pages: { signIn: '/login', error: '/login/error' },
  // Provider failures are logged in one line and named on /login/error (lib/authn/oidc.ts), never a stack trace.
  logger: authLogger,
  providers: [
    CredentialsProvider({
      name: 'Email and password',
      credentials: { email: { label: 'Email', type: 'email' }, password: { label: 'Password', type: 'password' } },
      // Rate-limited; a locked account or address throws, and the form shows when to retry.
      authorize: (raw, req) => authorizeCredentials(raw, req?.headers),
    }),
    // Issue 45: single sign-on through the identity provider, when OIDC_ISSUER is set (provider id `oidc`).
    ...(ssoConfig ? [oidcProvider(ssoConfig)] : []),
  ],
  callbacks: {
    // Through the provider: the verified claims become an account (or a page saying why not); passwords: authorize.
    signIn: (params) => (params.account?.provider === 'oidc' ? oidcSignInCallback(params) : true),
    // The token carries identity, its own session id and the user's session
    // version only; roles and grants are read from the database per request,
    // and a signed-out session or an outdated version is void
    // (lib/authn/session-claims.ts).
    jwt({ token, user }) {
      if (user) {
        token.sub = user.id;
        token.sid = randomUUID();
        token.sv = (user as { sessionVersion?: number }).sessionVersion ?? 0;
        // How they signed in: a session through the provider is confirmed with it again (lib/authn/oidc-refresh.ts).
        token.am = ((user as { authMethod?: AuthMethod }).authMethod ?? 'password') satisfies AuthMethod;
      }
      return token;
    },
    session({ session, token }) {
      if (session.user && token.sub) (session.user as { id?: string }).id = token.sub;
      Object.assign(session, { sid: token.sid, sv: token.sv, am: token.am });
      return session;
    },
  },
  events: {
    // The audit log says how each person signed in (through the provider: lib/services/users/sso.ts, with the group sync).
    async signIn({ user, account }) {
      if (account?.provider === 'credentials' && user.id) await recordPasswordSignIn(user.id);
    },
    // Signing out ends this session on the server too, not just its cookie: a copied token stops working.
    async signOut({ token }) {
      if (token?.sub && typeof token.sid === 'string') {
        const exp = typeof token.exp === 'number' ? new Date(token.exp * 1000) : new Date(Date.now() + SESSION_MAX_AGE_S * 1000);
        await revokeSession(token.sid, token.sub, exp);
      }
    },
  },
};
