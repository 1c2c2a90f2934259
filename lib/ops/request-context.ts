/**
 * What the request log and the metrics learn about a request while it is
 * served: its id, the route pattern that matched, and who is asking. The
 * server (scripts/serve.ts) opens one context per request; authentication and
 * the Chef router fill it in from wherever they run. Like the metrics, the
 * store is process state (lib/process-state.ts) so the Next bundle and the server share it.
 * Outside a request (tests, scripts) every note is a no-op.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { processState } from '../process-state';

export interface RequestInfo {
  id: string;
  /** The route pattern that served the request (`/api/v1/policy_groups/[group]`, `/organizations/:org/nodes/:name`). */
  route?: string;
  /** The user or Chef client acting. */
  actorId?: string;
  /** How it authenticated: session, token, chef-key:<name>/<key>. */
  via?: string;
}

export function requestStore(): AsyncLocalStorage<RequestInfo> {
  return processState('request-context.store', () => new AsyncLocalStorage<RequestInfo>());
}

/**
 * The header the server puts on every request it hands on (overwriting any
 * value a client sent): a key into the requests in flight. Next does not keep
 * the server's async context into route handlers and pages, so code there
 * finds its request's context through this header.
 */
export const CONTEXT_HEADER = 'x-policy-console-context';

/** Requests in flight by context key (the server adds and removes them). */
export function requestsInFlight(): Map<string, RequestInfo> {
  return processState('request-context.in-flight', () => new Map<string, RequestInfo>());
}

type HeaderGetter = ((name: string) => string | null | undefined) | { get(name: string): string | null };

/** The current request's context: from the async context, else from the context header of the request at hand. */
export function currentRequest(headers?: HeaderGetter): RequestInfo | undefined {
  const fromStore = requestStore().getStore();
  if (fromStore || !headers) return fromStore;
  const key = typeof headers === 'function' ? headers(CONTEXT_HEADER) : headers.get(CONTEXT_HEADER);
  return key ? requestsInFlight().get(key) : undefined;
}

/** Records who is acting (the first identity established wins: it is the one that authenticated). `headers`: the request's, where the async context may be lost (Next). */
export function noteActor(actorId: string, via?: string, headers?: HeaderGetter): void {
  const r = currentRequest(headers);
  if (!r) return;
  if (!r.actorId) r.actorId = actorId;
  if (via && !r.via) r.via = via;
}

/** Records the route pattern that served the request. */
export function noteRoute(route: string): void {
  const r = currentRequest();
  if (r) r.route = route;
}
