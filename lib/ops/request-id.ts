/**
 * The one X-Request-Id rule (docs/architecture.md 7.2): a caller's id is kept when it is 1–100 safe characters
 * (what audit events store), else replaced by a fresh one; never a reason to refuse (issue 17, item 23). The
 * node:http front applies it once per request and writes the id over the request's header, so every door, the
 * log line and the audit event read the same id; a door called on its own (tests) applies the same rule. Pure
 * (Web Crypto), so proxy.ts can use it too.
 */

/** The caller's id when acceptable, else null. */
function acceptableRequestId(v: string | string[] | null | undefined): string | null {
  if (typeof v !== 'string') return null;
  const t = v.trim();
  return /^[\w.:@/+=-]{1,100}$/.test(t) ? t : null;
}

/** The request's id: the caller's when acceptable (the front's, behind the front), else a fresh one. */
export function requestIdFrom(given: string | string[] | null | undefined): string {
  return acceptableRequestId(given) ?? globalThis.crypto.randomUUID();
}
