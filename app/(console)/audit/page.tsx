import type { Metadata } from 'next';
import Link from 'next/link';
import { requireAccess } from '@/lib/authn/session';
import { listAudit, parseAuditFilter } from '@/lib/db/queries/audit';
import { isAppError } from '@/lib/errors';
import { EmptyState, PageHeader } from '@/components/page-header';
import { DataTable } from '@/components/data-table';
import { dateTime, shortId } from '@/lib/format';

export const metadata: Metadata = { title: 'Audit log' };
export const dynamic = 'force-dynamic';

const FIELDS = ['actor', 'stage', 'policy', 'action', 'since', 'until'] as const;

/** The actions the console records, offered by the action filter (prefixes such as `pointer.` also work). */
const ACTIONS = [
  'pointer.promote', 'pointer.promote-cookbook', 'pointer.rollback', 'pointer.set', 'pointer.remove', 'pointer.seed',
  'revision.upload', 'revision.derive', 'revision.compose', 'revision.delete', 'revision.cleanup-orphans',
  'policy.create', 'policy.delete', 'stage.create', 'stage.update', 'stage.move', 'stage.delete', 'permission.set',
  'team.create', 'team.add-member', 'team.remove-member', 'user.create', 'user.update', 'user.reset-password',
  'token.create', 'token.revoke', 'node.register', 'node.move', 'scenario.update', 'scenario.delete', 'seed.demo',
];

/** Database ids mean nothing to a reader (and are not for display): they are left out of before/after. */
const INTERNAL = /^(id|[a-z][A-Za-z]*Id)$/;
function readable(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(readable);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([k]) => !INTERNAL.test(k) || /Revision/.test(k)).map(([k, x]) => [k, readable(x)]));
  return v;
}

function summarize(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object' && v && 'revision_id' in v) return shortId(String((v as { revision_id: unknown }).revision_id ?? '—'));
  const r = readable(v);
  if (r && typeof r === 'object' && !Array.isArray(r) && Object.keys(r).length === 0) return '';
  const s = JSON.stringify(r);
  return s.length > 60 ? s.slice(0, 57) + '…' : s;
}

export default async function AuditPage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const access = await requireAccess();
  const sp = await searchParams;
  const q = new URLSearchParams(Object.entries(sp).filter(([, v]) => v) as [string, string][]);
  let page: Awaited<ReturnType<typeof listAudit>> | null = null;
  let problem: string | null = null;
  const inverted = !!sp.since && !!sp.until && sp.since > sp.until;
  if (inverted) problem = `The date range is inverted: "since" (${sp.since}) is after "until" (${sp.until}). Swap them to see events.`;
  else try {
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
              list={f === 'action' ? 'audit-actions' : undefined}
              type={f === 'since' || f === 'until' ? 'date' : 'text'}
              placeholder={f === 'action' ? 'pointer.promote' : f === 'actor' ? 'email' : ''}
            />
          </label>
        ))}
        <datalist id="audit-actions">
          {ACTIONS.map((a) => (
            <option key={a} value={a} />
          ))}
        </datalist>
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
        <DataTable
          testId="audit-table"
          region="Audit events"
          columns={['Time', 'Actor', 'Action', 'Target', 'Reason', 'Before', 'After']}
          rows={page.events}
          after={
            page.nextCursor && (
              <div className="p-3 text-right">
                <Link className="btn" href={`/audit?${next}`}>
                  Older events →
                </Link>
              </div>
            )
          }
        >
          {(e) => (
            <tr key={e.id} id={`event-${e.id}`} className={sp.focus === e.id ? 'bg-amber-50' : ''} data-action={e.action}>
              <td className="whitespace-nowrap text-slate-600">{dateTime(e.at)}</td>
              <td>{e.actor}</td>
              <td>
                <span className="badge bg-slate-100 text-slate-700">{e.action}</span>
              </td>
              <td className="mono max-w-[18rem] break-all">{e.target}</td>
              <td className="min-w-[12rem] text-slate-700">{e.reason}</td>
              <td className="mono max-w-[14rem] break-all text-slate-600" title={JSON.stringify(readable(e.before))}>
                {summarize(e.before)}
              </td>
              <td className="mono max-w-[14rem] break-all" title={JSON.stringify(readable(e.after))}>
                {summarize(e.after)}
              </td>
            </tr>
          )}
        </DataTable>
      )}
    </>
  );
}
