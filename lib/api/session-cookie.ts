/**
 * The browser session on the node:http front: the next-auth session cookie, read from the Cookie header and
 * decoded with `next-auth/jwt` (no Next request scope needed), then checked as the pages check it
 * (lib/authn/session-claims.ts: not signed out, the user's session version unchanged, an OIDC session
 * still confirmed). Null without a valid session: fail closed.
 */
import { getToken } from 'next-auth/jwt';
import { authSecret } from '@/lib/auth/secret';
import type { Access } from '@/lib/auth/permissions';
import { accessForSessionClaims } from '@/lib/authn/session-claims';

const SECURE = '__Secure-next-auth.session-token';

export async function sessionAccess(cookie: string | undefined): Promise<Access | null> {
  if (!cookie || !cookie.includes('next-auth.session-token')) return null;
  let claims = null;
  try {
    // The secure name when the browser sent it (HTTPS deployments), else the plain one; chunked cookies are joined.
    const token = await getToken({ req: { cookies: parseCookies(cookie), headers: {} } as never, secret: authSecret(), secureCookie: cookie.includes(SECURE) });
    if (token) claims = { id: token.sub, sid: token.sid, sv: token.sv, am: token.am };
  } catch {
    claims = null;
  }
  const loaded = await accessForSessionClaims(claims);
  return loaded && { ...loaded, via: 'session' };
}

/** The Cookie header as name → value (the first of a repeated name, as browsers order the most specific first). */
function parseCookies(header: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (!name || name in out) continue;
    const value = part.slice(eq + 1).trim();
    try {
      out[name] = decodeURIComponent(value);
    } catch {
      out[name] = value;
    }
  }
  return out;
}
