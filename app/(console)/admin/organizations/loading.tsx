/** Admin → Organizations while the list and the selected organization's members load. */
export default function Loading() {
  return (
    <div role="status" aria-live="polite" className="space-y-3">
      <span className="sr-only">Loading organizations…</span>
      <div className="h-7 w-48 animate-pulse rounded bg-slate-200" />
      <div className="h-4 w-96 animate-pulse rounded bg-slate-100" />
      <div className="card h-48 animate-pulse bg-slate-100/60" />
    </div>
  );
}
