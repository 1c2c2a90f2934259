/**
 * Cross-site request refusal for cookie-authenticated API writes (issue 17, item 4).
 *
 * A browser attaches the session cookie to requests that another site (or
 * another port of the same host: same-site, not same-origin) makes it send.
 * Such a write is accepted only when it demonstrably comes from the console's
 * own origin and carries a JSON content type, which a cross-origin form or a
 * "simple" fetch cannot send without a CORS preflight (which we never grant).
 * Requests that carry their own credentials (bearer token, Chef signature)
 * cannot be forged by a third-party page and are not affected.
 */

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Credentials a browser never adds on its own: Authorization, or a Chef request signature. */
export function hasExplicitCredentials(req: Request): boolean {
  return req.headers.has('authorization') || req.headers.has('x-ops-authorization-1') || req.headers.has('x-ops-sign');
}

/** The origins this console is served under: NEXTAUTH_URL, and the Host the browser addressed. */
function ownOrigins(req: Request): Set<string> {
  const origins = new Set<string>();
  const configured = process.env.NEXTAUTH_URL;
  if (configured) {
    try {
      origins.add(new URL(configured).origin);
    } catch {
      /* ignored: a malformed NEXTAUTH_URL adds nothing */
    }
  }
  const url = new URL(req.url);
  origins.add(url.origin);
  const host = req.headers.get('x-forwarded-host')?.split(',')[0].trim() || req.headers.get('host');
  if (host) {
    const proto = req.headers.get('x-forwarded-proto')?.split(',')[0].trim() || url.protocol.replace(/:$/, '');
    origins.add(`${proto}://${host}`.toLowerCase());
  }
  return origins;
}

/** Null when the request may proceed; otherwise why it is refused (answered as 403). */
export function crossSiteRefusal(req: Request): string | null {
  if (SAFE.has(req.method.toUpperCase())) return null;
  if (hasExplicitCredentials(req)) return null;
  // No cookie, no session to abuse: authentication answers 401 as before.
  if (!req.headers.get('cookie')) return null;
  const fetchSite = req.headers.get('sec-fetch-site');
  if (fetchSite && fetchSite !== 'same-origin') return `Cross-site request refused (Sec-Fetch-Site: ${fetchSite.slice(0, 20)}): writes with the session cookie must come from the console itself.`;
  const origin = req.headers.get('origin');
  if (!origin) {
    if (!fetchSite) return 'Request refused: a write with the session cookie must carry an Origin header (use an API token for scripts).';
  } else if (!ownOrigins(req).has(origin.toLowerCase())) {
    return 'Cross-origin request refused: writes with the session cookie must come from the console itself.';
  }
  if (req.method.toUpperCase() !== 'DELETE') {
    const type = (req.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/json' && !/^application\/[\w.+-]+\+json$/.test(type)) return 'Request refused: writes with the session cookie must send Content-Type: application/json.';
  }
  return null;
}
