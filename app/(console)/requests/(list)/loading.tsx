/** The Requests list's skeleton (not above /requests/[id], so an unknown request still answers 404). */
export default function Loading() {
  return (
    <div role="status" aria-live="polite" className="space-y-3">
      <span className="sr-only">Loading requests…</span>
      <div className="h-7 w-48 animate-pulse rounded bg-slate-200" />
      <div className="h-9 w-96 animate-pulse rounded bg-slate-100" />
      <div className="card h-64 animate-pulse bg-slate-100/60" />
    </div>
  );
}
