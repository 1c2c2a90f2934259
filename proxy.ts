import { NextResponse, type NextRequest } from 'next/server';

/**
 * A convenience redirect for visitors without a session cookie. It is not the
 * access check: every page, action and route verifies the session and loads
 * permissions from the database itself. /api/v1 never reaches Next (the
 * node:http front serves it, lib/api/http.ts, after the early guard of
 * unknown methods and malformed %-escapes); the other API paths are not
 * matched.
 */
export function proxy(req: NextRequest) {
  const hasSession = req.cookies.has('next-auth.session-token') || req.cookies.has('__Secure-next-auth.session-token');
  if (hasSession) return NextResponse.next();
  const url = req.nextUrl.clone();
  url.pathname = '/login';
  url.search = '';
  const target = req.nextUrl.pathname + req.nextUrl.search;
  if (target !== '/') url.searchParams.set('callbackUrl', target);
  return NextResponse.redirect(url);
}

export const config = {
  matcher: ['/((?!api/|login|logout|setup|_next/|favicon.ico|.*\\.(?:png|svg|ico|jpg|css|js)$).*)'],
};
