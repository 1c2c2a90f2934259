/**
 * Requests refused before routing, with the API's Chef-style body instead of
 * a framework error page (issue 17, item 16): methods no route implements
 * (TRACE, TRACK, CONNECT, anything unknown) and paths with a malformed
 * %-escape, which the framework would fail to decode with a plain-text 500.
 * Called once by the node:http front for every request (scripts/serve.ts), and
 * from proxy.ts for /api/ paths. Moved from lib/api (docs/architecture.md 7.4).
 */
import { requestIdFrom } from './request-id';
import { ALLOWED_METHODS } from './http-methods';


export interface EarlyRefusal {
  status: 400 | 405;
  body: { error: string[]; errors: { path: string; message: string }[] };
  headers: Record<string, string>;
}

/** `requestId`: the request's X-Request-Id (the front's), or a fresh one by the same rule: refusals carry one too. */
export function earlyRefusal(method: string, pathname: string, requestId?: string | null): EarlyRefusal | null {
  if (!(ALLOWED_METHODS as readonly string[]).includes(method.toUpperCase())) {
    const message = `Method ${method.slice(0, 20).replace(/[^A-Za-z-]/g, '')} is not allowed`;
    return { status: 405, body: { error: [message], errors: [] }, headers: { allow: ALLOWED_METHODS.join(', '), 'x-request-id': requestIdFrom(requestId) } };
  }
  for (const segment of pathname.split('/')) {
    try {
      decodeURIComponent(segment);
    } catch {
      const message = 'The request path has a malformed %-escape (write % as %25)';
      return { status: 400, body: { error: [message], errors: [{ path: '', message }] }, headers: { 'x-request-id': requestIdFrom(requestId) } };
    }
  }
  return null;
}

/**
 * For a node:http server in front of Next: answers a refused request and
 * returns true, or returns false to let it through. TRACE must be refused
 * here: Next builds a WHATWG Request for every request, which throws on
 * TRACE/TRACK/CONNECT, so they never reach proxy.ts and end as a 500.
 */
export function respondEarly(req: { method?: string; url?: string; headers?: Record<string, string | string[] | undefined> }, res: { statusCode: number; setHeader(k: string, v: string): unknown; end(body: string): unknown }): boolean {
  const pathname = (req.url ?? '/').split('?')[0];
  const given = req.headers?.['x-request-id'];
  const refusal = earlyRefusal(req.method ?? 'GET', pathname, Array.isArray(given) ? given[0] : given);
  if (!refusal) return false;
  res.statusCode = refusal.status;
  res.setHeader('content-type', 'application/json');
  for (const [k, v] of Object.entries(refusal.headers)) res.setHeader(k, v);
  res.end(JSON.stringify(refusal.body));
  return true;
}
