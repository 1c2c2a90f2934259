import type { Metadata } from 'next';
import Link from 'next/link';
import { requireAccess } from '@/lib/auth/session';
import { listAudit, parseAuditFilter } from '@/lib/db/queries/audit';
import { isAppError } from '@/lib/errors';
import { EmptyState, PageHeader } from '@/components/page-header';
import { dateTime, shortId } from '@/lib/format';

export const metadata: Metadata = { title: 'Audit log' };
export const dynamic = 'force-dynamic';

const FIELDS = ['actor', 'stage', 'policy', 'action', 'since', 'until'] as const;

function summarize(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object' && v && 'revision_id' in v) return shortId(String((v as { revision_id: unknown }).revision_id ?? '—'));
  const s = JSON.stringify(v);
  return s.length > 80 ? s.slice(0, 77) + '…' : s;
}

export default async function AuditPage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const access = await requireAccess();
  const sp = await searchParams;
  const q = new URLSearchParams(Object.entries(sp).filter(([, v]) => v) as [string, string][]);
  let page: Awaited<ReturnType<typeof listAudit>> | null = null;
  let problem: string | null = null;
  try {
    page = await listAudit(access, parseAuditFilter(q));
  } catch (e) {
    if (!isAppError(e)) throw e;
    problem = e.message;
  }
  const exportQuery = new URLSearchParams(q);
  exportQuery.delete('cursor');
  exportQuery.delete('focus');
  exportQuery.set('limit', '5000');
  const next = new URLSearchParams(q);
  if (page?.nextCursor) next.set('cursor', page.nextCursor);
  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every change, with who made it, when, before and after, and why. Append-only."
        actions={
          <>
            <a className="btn" href={`/api/v1/audit?${exportQuery}&format=csv`} download="audit.csv">
              Export CSV
            </a>
            <a className="btn" href={`/api/v1/audit?${exportQuery}`} download="audit.json">
              Export JSON
            </a>
          </>
        }
      />
      <form method="get" className="card mb-4 flex flex-wrap items-end gap-3 p-4" aria-label="Filter the audit log">
        {FIELDS.map((f) => (
          <label key={f} className="flex flex-col gap-1 text-xs font-medium capitalize text-slate-600">
            {f}
            <input
              name={f}
              defaultValue={sp[f] ?? ''}
              className="input w-40"
              type={f === 'since' || f === 'until' ? 'date' : 'text'}
              placeholder={f === 'action' ? 'pointer.promote' : f === 'actor' ? 'email' : ''}
            />
          </label>
        ))}
        <button type="submit" className="btn btn-primary">
          Filter
        </button>
        <Link href="/audit" className="btn">
          Clear
        </Link>
      </form>
      {problem && <EmptyState title="Check the filters">{problem}</EmptyState>}
      {page && page.events.length === 0 && <EmptyState title="No events match these filters" />}
      {page && page.events.length > 0 && (
        <div className="card overflow-x-auto">
          <table className="table" data-testid="audit-table">
            <thead>
              <tr>
                <th>Time</th>
                <th>Actor</th>
                <th>Action</th>
                <th>Target</th>
                <th>Before</th>
                <th>After</th>
                <th>Reason</th>
              </tr>
            </thead>
            <tbody>
              {page.events.map((e) => (
                <tr key={e.id} id={`event-${e.id}`} className={sp.focus === e.id ? 'bg-amber-50' : ''} data-action={e.action}>
                  <td className="whitespace-nowrap text-slate-600">{dateTime(e.at)}</td>
                  <td>{e.actor}</td>
                  <td>
                    <span className="badge bg-slate-100 text-slate-700">{e.action}</span>
                  </td>
                  <td className="mono">{e.target}</td>
                  <td className="mono text-slate-600" title={JSON.stringify(e.before)}>
                    {summarize(e.before)}
                  </td>
                  <td className="mono" title={JSON.stringify(e.after)}>
                    {summarize(e.after)}
                  </td>
                  <td className="text-slate-600">{e.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {page.nextCursor && (
            <div className="p-3 text-right">
              <Link className="btn" href={`/audit?${next}`}>
                Older events →
              </Link>
            </div>
          )}
        </div>
      )}
    </>
  );
}
