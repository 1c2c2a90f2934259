import { dateTime } from '@/lib/format';

/**
 * The one way the console writes a moment: "2026-11-30 10:00 UTC" (lib/format `dateTime`, the form server-built
 * messages use too), in a <time> element carrying the exact instant. No hooks: it renders the same on the server
 * and in the browser (no hydration mismatch), in server and client components alike. For "5m ago" use RelativeTime.
 */
export function Time({ iso, className }: { iso: string | Date; className?: string }) {
  const d = typeof iso === 'string' ? new Date(iso) : iso;
  if (Number.isNaN(d.getTime())) return <span className={className}>{String(iso)}</span>;
  return (
    <time dateTime={d.toISOString()} className={className}>
      {dateTime(d)}
    </time>
  );
}
