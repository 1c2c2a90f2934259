/**
 * The browser's side of /api/v1: JSON requests that throw an `ApiError`
 * carrying the status and the API's error body (`error`, `errors` with JSON
 * pointers, any details such as compose conflicts). Pass React Query's
 * `signal` so a query made outdated by newer input is cancelled.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly errors: { path: string; message: string }[];
  readonly body: Record<string, unknown>;
  constructor(status: number, body: Record<string, unknown> | null) {
    const messages = Array.isArray(body?.error) ? (body.error as string[]) : [];
    super(messages[0] ?? `Request failed (${status})`);
    this.name = 'ApiError';
    this.status = status;
    this.errors = Array.isArray(body?.errors) ? (body.errors as { path: string; message: string }[]) : [];
    this.body = body ?? {};
  }
}

export async function fetchJson<T>(url: string, init: { method?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    cache: 'no-store',
    signal: init.signal,
    ...(init.body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(init.body) } : {}),
  });
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(res.status, body);
  return body as T;
}
