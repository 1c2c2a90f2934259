import type { NextAuthOptions } from 'next-auth';
import CredentialsProvider from 'next-auth/providers/credentials';
import { authSecret } from './secret';
import { authorizeCredentials } from './login';
import { bumpSessionVersion } from '@/lib/db/queries/users';

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
    // The token carries identity and the session version only; roles and grants
    // are read from the database per request, and a token whose version is no
    // longer the user's is void (lib/auth/session-claims.ts).
    jwt({ token, user }) {
      if (user) {
        token.sub = user.id;
        token.sv = (user as { sessionVersion?: number }).sessionVersion ?? 0;
      }
      return token;
    },
    session({ session, token }) {
      if (session.user && token.sub) (session.user as { id?: string }).id = token.sub;
      (session as { sv?: unknown }).sv = token.sv;
      return session;
    },
  },
  events: {
    // Signing out ends this user's sessions everywhere, not just this cookie: a copied token stops working too.
    async signOut({ token }) {
      if (token?.sub) await bumpSessionVersion(token.sub, typeof token.sv === 'number' ? token.sv : undefined);
    },
  },
};
