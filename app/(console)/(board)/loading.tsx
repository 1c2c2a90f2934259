/**
 * The board's skeleton. It lives here, not at the console root: a loading boundary
 * above every page starts streaming before a page can call notFound(), and
 * then a missing policy, revision or URL would answer HTTP 200 instead of 404.
 */
export default function Loading() {
  return (
    <div role="status" aria-live="polite" className="space-y-3">
      <span className="sr-only">Loading…</span>
      <div className="h-7 w-48 animate-pulse rounded bg-slate-200" />
      <div className="h-4 w-96 animate-pulse rounded bg-slate-100" />
      <div className="card h-64 animate-pulse bg-slate-100/60" />
    </div>
  );
}
