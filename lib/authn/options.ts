import type { NextAuthOptions } from 'next-auth';
import CredentialsProvider from 'next-auth/providers/credentials';
import { authSecret } from '@/lib/auth/secret';
import { authorizeCredentials } from './login';
import { randomUUID } from 'node:crypto';
import { revokeSession } from '@/lib/db/queries/users';

// A self-hosted console is reached under whatever host it is deployed at;
// without NEXTAUTH_URL, trust the request's host for callback URLs.
if (!process.env.NEXTAUTH_URL && !process.env.AUTH_TRUST_HOST) process.env.AUTH_TRUST_HOST = 'true';

/** How long a browser session lasts at most; sign-out and password changes end it sooner (see `sv`). */
export const SESSION_MAX_AGE_S = 12 * 60 * 60;

export const authOptions: NextAuthOptions = {
  secret: authSecret(),
  session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_S },
  pages: { signIn: '/login' },
  providers: [
    CredentialsProvider({
      name: 'Email and password',
      credentials: { email: { label: 'Email', type: 'email' }, password: { label: 'Password', type: 'password' } },
      // Rate-limited; a locked account or address throws, and the form shows when to retry.
      authorize: (raw, req) => authorizeCredentials(raw, req?.headers),
    }),
  ],
  callbacks: {
    // The token carries identity, its own session id and the user's session
    // version only; roles and grants are read from the database per request,
    // and a signed-out session or an outdated version is void
    // (lib/authn/session-claims.ts).
    jwt({ token, user }) {
      if (user) {
        token.sub = user.id;
        token.sid = randomUUID();
        token.sv = (user as { sessionVersion?: number }).sessionVersion ?? 0;
      }
      return token;
    },
    session({ session, token }) {
      if (session.user && token.sub) (session.user as { id?: string }).id = token.sub;
      Object.assign(session, { sid: token.sid, sv: token.sv });
      return session;
    },
  },
  events: {
    // Signing out ends this session on the server too, not just its cookie: a copied token stops working.
    async signOut({ token }) {
      if (token?.sub && typeof token.sid === 'string') {
        const exp = typeof token.exp === 'number' ? new Date(token.exp * 1000) : new Date(Date.now() + SESSION_MAX_AGE_S * 1000);
        await revokeSession(token.sid, token.sub, exp);
      }
    },
  },
};
