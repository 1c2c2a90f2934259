import type { NextAuthOptions } from 'next-auth';
import CredentialsProvider from 'next-auth/providers/credentials';
import { z } from 'zod';
import { authSecret } from './secret';
import { verifyPassword } from './password';
import { findUserForLogin } from '@/lib/db/queries/users';

// A self-hosted console is reached under whatever host it is deployed at;
// without NEXTAUTH_URL, trust the request's host for callback URLs.
if (!process.env.NEXTAUTH_URL && !process.env.AUTH_TRUST_HOST) process.env.AUTH_TRUST_HOST = 'true';

const ZCredentials = z.object({ email: z.string().trim().toLowerCase().email(), password: z.string().min(1).max(1024) });

export const authOptions: NextAuthOptions = {
  secret: authSecret(),
  session: { strategy: 'jwt', maxAge: 12 * 60 * 60 },
  pages: { signIn: '/login' },
  providers: [
    CredentialsProvider({
      name: 'Email and password',
      credentials: { email: { label: 'Email', type: 'email' }, password: { label: 'Password', type: 'password' } },
      async authorize(raw) {
        const parsed = ZCredentials.safeParse(raw);
        if (!parsed.success) return null;
        const user = await findUserForLogin(parsed.data.email);
        // Verify even for unknown users so timing does not reveal which emails exist.
        const ok = await verifyPassword(user?.passwordHash ?? DUMMY_HASH, parsed.data.password);
        if (!user || !user.active || !ok) return null;
        return { id: user.id, email: user.email, name: user.name };
      },
    }),
  ],
  callbacks: {
    // The token carries identity only; roles and grants are read from the database per request.
    jwt({ token, user }) {
      if (user) token.sub = user.id;
      return token;
    },
    session({ session, token }) {
      if (session.user && token.sub) (session.user as { id?: string }).id = token.sub;
      return session;
    },
  },
};

const DUMMY_HASH = '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$0s4N9o6hXEjW4kGVF0tBYaVgDmk1d2kH1y3c4M3xQ0Q';
