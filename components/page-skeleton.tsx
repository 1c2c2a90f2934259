/**
 * A page's loading skeleton (a `loading.tsx`): a polite status named `label` for screen readers, and grey blocks
 * where the title, the line under it (`line`: its height class) and the body (`body`: its height class) will be.
 */
export function PageSkeleton({ label, line = 'h-4', body = 'h-64' }: { label: string; line?: string; body?: string }) {
  return (
    <div role="status" aria-live="polite" className="space-y-3">
      <span className="sr-only">{label}</span>
      <div className="h-7 w-48 animate-pulse rounded bg-slate-200" />
      <div className={`${line} w-96 animate-pulse rounded bg-slate-100`} />
      <div className={`card ${body} animate-pulse bg-slate-100/60`} />
    </div>
  );
}
