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

/** What the check reads of a request: its method, its headers, and the origin it was addressed to (scheme://host). */
export interface CsrfRequest {
  method: string;
  header(name: string): string | null | undefined;
  origin: string;
}

/** Credentials a browser never adds on its own: Authorization, or a Chef request signature. */
function hasExplicitCredentials(req: CsrfRequest): boolean {
  return req.header('authorization') != null || req.header('x-ops-authorization-1') != null || req.header('x-ops-sign') != null;
}

/** The origins this console is served under: NEXTAUTH_URL, and the Host the browser addressed. */
function ownOrigins(req: CsrfRequest): Set<string> {
  const origins = new Set<string>();
  const configured = process.env.NEXTAUTH_URL;
  if (configured) {
    try {
      origins.add(new URL(configured).origin);
    } catch {
      /* ignored: a malformed NEXTAUTH_URL adds nothing */
    }
  }
  origins.add(req.origin.toLowerCase());
  const host = req.header('x-forwarded-host')?.split(',')[0].trim() || req.header('host');
  if (host) {
    const proto = req.header('x-forwarded-proto')?.split(',')[0].trim() || req.origin.slice(0, req.origin.indexOf(':'));
    origins.add(`${proto}://${host}`.toLowerCase());
  }
  return origins;
}

/** Null when the request may proceed; otherwise why it is refused (answered as 403). */
export function crossSiteRefusal(req: CsrfRequest): string | null {
  if (SAFE.has(req.method.toUpperCase())) return null;
  if (hasExplicitCredentials(req)) return null;
  // No cookie, no session to abuse: authentication answers 401 as before.
  if (!req.header('cookie')) return null;
  const fetchSite = req.header('sec-fetch-site');
  if (fetchSite && fetchSite !== 'same-origin') return `Cross-site request refused (Sec-Fetch-Site: ${fetchSite.slice(0, 20)}): writes with the session cookie must come from the console itself.`;
  const origin = req.header('origin');
  if (!origin) {
    if (!fetchSite) return 'Request refused: a write with the session cookie must carry an Origin header (use an API token for scripts).';
  } else if (!ownOrigins(req).has(origin.toLowerCase())) {
    return 'Cross-origin request refused: writes with the session cookie must come from the console itself.';
  }
  if (req.method.toUpperCase() !== 'DELETE') {
    const type = (req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/json' && !/^application\/[\w.+-]+\+json$/.test(type)) return 'Request refused: writes with the session cookie must send Content-Type: application/json.';
  }
  return null;
}
