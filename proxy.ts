import { NextResponse, type NextRequest } from 'next/server';
import { earlyRefusal } from '@/lib/ops/early-guard';
import { requestIdFrom } from '@/lib/ops/request-id';

/**
 * A convenience redirect for visitors without a session cookie. It is not the
 * access check: every page, action and route verifies the session and loads
 * permissions from the database itself. API paths only pass the early guard
 * (unknown methods, malformed %-escapes: a Chef-style 4xx, not a 500).
 */
export function proxy(req: NextRequest) {
  if (req.nextUrl.pathname.startsWith('/api/')) {
    // One request id for the whole answer: the route handler reads it from the request, and answers
    // no route gives (a 404 of an unknown /api/v1 path) carry it from here.
    const requestId = requestIdFrom(req.headers.get('x-request-id'));
    const refusal = earlyRefusal(req.method, req.nextUrl.pathname, requestId);
    if (refusal) return NextResponse.json(refusal.body, { status: refusal.status, headers: refusal.headers });
    const headers = new Headers(req.headers);
    headers.set('x-request-id', requestId);
    const res = NextResponse.next({ request: { headers } });
    res.headers.set('x-request-id', requestId);
    return res;
  }
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
  matcher: ['/api/v1/:path*', '/((?!api/|login|logout|setup|_next/|favicon.ico|.*\\.(?:png|svg|ico|jpg|css|js)$).*)'],
};
