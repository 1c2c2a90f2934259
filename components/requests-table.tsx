import Link from 'next/link';
import type { RequestRow } from '@/lib/services/promotion';
import { dateTime, shortId } from '@/lib/format';
import { RequestStatusBadge } from './request-status';
import { DataTable } from '@/components/data-table';

/** Issue 43: what a request moves, in words: the whole policy, one cookbook, a ring, a rollback, a removal. */
function kindLabel(r: RequestRow): string {
  switch (r.kind) {
    case 'promote-cookbook':
      return r.cookbook ? `cookbook ${r.cookbook} only${r.fromStage ? ` (from ${r.fromStage})` : ''}` : 'one cookbook only';
    case 'ring':
      return 'ringed rollout (part of the stage first)';
    case 'rollback':
      return 'rollback, whole policy';
    case 'remove':
      return 'removal of the policy';
    default:
      return `whole policy${r.fromStage ? ` (from ${r.fromStage})` : ''}`;
  }
}

export function RequestsTable({ rows, empty }: { rows: RequestRow[]; empty: React.ReactNode }) {
  if (rows.length === 0) return <div className="card px-6 py-12 text-center text-slate-600" data-testid="requests-empty">{empty}</div>;
  return (
    <DataTable testId="requests-table" columns={['Request', 'What moves', 'Change', 'Status', 'Approvals', 'Why', 'Asked by']} rows={rows}>
      {(r) => (
        <tr key={r.id} data-request={r.id} data-policy={r.policy} data-stage={r.stage}>
          <td>
            <Link href={`/requests/${encodeURIComponent(r.id)}`} className="font-medium text-indigo-700 underline-offset-2 hover:underline">
              {r.policy} → {r.stage}
            </Link>
          </td>
          <td className="text-slate-700" data-testid="request-kind" data-kind={r.kind}>
            {kindLabel(r)}
          </td>
          <td className="mono whitespace-nowrap text-slate-700">
            {shortId(r.fromRevisionId)} → {shortId(r.toRevisionId)}
          </td>
          <td>
            <RequestStatusBadge status={r.status} />
          </td>
          <td className="whitespace-nowrap" data-testid="request-approvals">
            {r.approvalCount} of {r.approvalsRequired}
          </td>
          <td className="max-w-md text-slate-700">{r.reasons.length > 0 ? r.reasons.join('; ') : 'No rule applied'}</td>
          <td className="whitespace-nowrap text-slate-600">
            {r.requestedBy}
            <div className="text-xs">{dateTime(r.createdAt)}</div>
          </td>
        </tr>
      )}
    </DataTable>
  );
}
