import NextAuth from 'next-auth';
import { authOptions } from '@/lib/authn/options';
import { withProviderErrors } from '@/lib/authn/oidc';

const handler = NextAuth(authOptions);

/** next-auth, with failures from the identity provider sent to /login/error saying what happened (lib/authn/oidc.ts). */
const handle = (req: Request, ctx: { params: Promise<{ nextauth: string[] }> }) => withProviderErrors(() => handler(req, ctx));
export { handle as GET, handle as POST };
