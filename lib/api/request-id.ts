/**
 * X-Request-Id for the console API: the caller's, kept to safe characters and 100 of them (what audit
 * events store), or a fresh one. Never a reason to refuse (issue 17, item 23). Pure (Web Crypto), so
 * proxy.ts, the node:http guard and route handlers share it.
 */
export function requestIdFromHeader(given: string | null | undefined): string {
  const clean = (given ?? '').replace(/[^\w.:@/+=-]/g, '').slice(0, 100);
  return clean || globalThis.crypto.randomUUID();
}
