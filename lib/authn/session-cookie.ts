/**
 * The browser session from a request's `Cookie` header, framework-free (docs/architecture.md 6.1): the next-auth
 * session cookie (JWT strategy, lib/authn/options.ts) decoded with `next-auth/jwt`, its claims checked by
 * `accessForSessionClaims` as every session is (sign-out, session version, the identity provider). What a door
 * served on the node:http front reads; pages and server actions read theirs through Next (lib/authn/session.ts).
 */
import { decode } from 'next-auth/jwt';
import type { Access } from '@/lib/auth/permissions';
import { authSecret } from '@/lib/auth/secret';
import { accessForSessionClaims } from './session-claims';

/** next-auth's session cookie: `__Secure-` prefixed when served over HTTPS. Large tokens are split into `<name>.0`, `<name>.1`, … */
const SESSION_COOKIES = ['__Secure-next-auth.session-token', 'next-auth.session-token'];

function parseCookies(header: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    try {
      value = decodeURIComponent(value);
    } catch {
      /* kept as sent */
    }
    if (name && !out.has(name)) out.set(name, value);
  }
  return out;
}

/** The session token a `Cookie` header carries (whole or in chunks, as next-auth writes it), or null. */
export function sessionToken(cookieHeader: string | null | undefined): string | null {
  if (!cookieHeader) return null;
  const cookies = parseCookies(cookieHeader);
  for (const name of SESSION_COOKIES) {
    const whole = cookies.get(name);
    if (whole) return whole;
    const chunks = [...cookies].filter(([n]) => n.startsWith(name + '.') && /^\d+$/.test(n.slice(name.length + 1))).sort(([a], [b]) => Number(a.slice(name.length + 1)) - Number(b.slice(name.length + 1)));
    if (chunks.length) return chunks.map(([, v]) => v).join('');
  }
  return null;
}

/** The signed-in user's access from the request's cookies; null without a valid session (fails closed: a token that does not decode is no session). */
export async function sessionAccess(cookieHeader: string | null | undefined): Promise<Access | null> {
  const token = sessionToken(cookieHeader);
  if (!token) return null;
  let claims: { id?: string; sid?: unknown; sv?: unknown; am?: unknown } | null = null;
  try {
    const jwt = await decode({ token, secret: authSecret() });
    if (jwt) claims = { id: typeof jwt.sub === 'string' ? jwt.sub : undefined, sid: jwt.sid, sv: jwt.sv, am: jwt.am };
  } catch {
    claims = null;
  }
  const access = await accessForSessionClaims(claims);
  return access && { ...access, via: 'session' };
}
