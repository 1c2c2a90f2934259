/**
 * What the request log and the metrics learn about a request while it is
 * served: its id, the route pattern that matched, and who is asking. The
 * server (scripts/serve.ts) opens one context per request; authentication and
 * the Chef router fill it in from wherever they run. Like the metrics, the
 * store lives on globalThis so the Next bundle and the server share it.
 * Outside a request (tests, scripts) every note is a no-op.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestInfo {
  id: string;
  /** The route pattern that served the request (`/api/v1/policy_groups/[group]`, `/organizations/:org/nodes/:name`). */
  route?: string;
  /** The user or Chef client acting. */
  actorId?: string;
  /** How it authenticated: session, token, chef-key:<name>/<key>. */
  via?: string;
}

const g = globalThis as unknown as { __policyConsoleRequestStore?: AsyncLocalStorage<RequestInfo> };

export function requestStore(): AsyncLocalStorage<RequestInfo> {
  return (g.__policyConsoleRequestStore ??= new AsyncLocalStorage<RequestInfo>());
}

export function currentRequest(): RequestInfo | undefined {
  return g.__policyConsoleRequestStore?.getStore();
}

/** Records who is acting (the first identity established wins: it is the one that authenticated). */
export function noteActor(actorId: string, via?: string): void {
  const r = currentRequest();
  if (!r) return;
  if (!r.actorId) r.actorId = actorId;
  if (via && !r.via) r.via = via;
}

/** Records the route pattern that served the request. */
export function noteRoute(route: string): void {
  const r = currentRequest();
  if (r) r.route = route;
}

/** A caller's X-Request-Id is kept when it is 1–100 safe characters (the same rule the API and audit use); otherwise null. */
export function acceptableRequestId(v: string | string[] | undefined): string | null {
  if (typeof v !== 'string') return null;
  const t = v.trim();
  return /^[\w.:@/+=-]{1,100}$/.test(t) ? t : null;
}
