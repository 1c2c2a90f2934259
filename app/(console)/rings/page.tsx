import type { Metadata } from 'next';
import Link from 'next/link';
import { requireAccess } from '@/lib/authn/session';
import { dateTime, shortId } from '@/lib/format';
import { listRingRollouts } from '@/lib/services/rings';
import { EmptyState, PageHeader } from '@/components/page-header';
import { DataTable } from '@/components/data-table';

const startLink = (
  <Link href="/rings/new" className="btn btn-primary">
    Start a ringed rollout
  </Link>
);

export const metadata: Metadata = { title: 'Ringed rollouts' };
export const dynamic = 'force-dynamic';

/** Issue 30: every ringed rollout the viewer may see, newest first. */
export default async function RingsPage() {
  const access = await requireAccess();
  const rings = await listRingRollouts(access);
  return (
    <>
      <PageHeader
        title="Ringed rollouts"
        description="A new revision reaches part of a stage first (a stable share of its nodes, plus named ones), then widens step by step; the last step makes it the stage's revision. Start one here or with POST /api/v1/rings."
        actions={startLink}
      />
      {rings.length === 0 ? (
        <EmptyState title="No ringed rollout yet">
          <Link href="/rings/new" className="text-indigo-700 underline">Start one</Link>, or through the API (POST /api/v1/rings with stage, policy, revision_id and steps).
        </EmptyState>
      ) : (
        <DataTable frame={null} columns={['Policy', 'Stage', 'Revision', 'Ring', 'Status', 'Health', 'Started']} rows={rings}>
          {(r) => (
            <tr key={r.id} data-testid="ring-row">
              <td>
                <Link href={r.url} className="font-medium text-indigo-700 underline underline-offset-2">
                  {r.policy}
                </Link>
              </td>
              <td>{r.stage}</td>
              <td className="mono">
                {shortId(r.from_revision_id)} → {shortId(r.to_revision_id)}
              </td>
              <td>{r.step < 0 ? '—' : `${r.percent}% (step ${r.step + 1} of ${r.steps.length})`}</td>
              <td data-testid="ring-row-status">
                {r.status.replace('_', ' ')}
                {r.status === 'rolled_back' && (
                  <span className="block text-xs text-slate-700">{r.end_reason?.startsWith('automatic') ? 'automatically, on a failure' : `by hand${r.end_reason && r.end_reason !== 'rolled back' ? `: “${r.end_reason}”` : ''}`}</span>
                )}
                {r.verdict && (
                  <span className="mt-0.5 block text-xs font-medium text-red-800" data-testid="ring-row-verdict">
                    ✗ {r.verdict.failed_nodes} of {r.verdict.nodes} ring node{r.verdict.nodes === 1 ? '' : 's'} failed{r.verdict.failed_resource ? ` at ${r.verdict.failed_resource}` : ''}
                    {r.verdict.overridden ? ' (overridden since)' : ''}
                  </span>
                )}
              </td>
              <td className="text-sm" data-testid="ring-row-health">
                {r.ended_facts ? 'at its end: ' : ''}
                {r.health.ring_nodes} in ring · {r.health.converged} converged{r.health.failed ? ` · ${r.health.failed} failed` : ''}
                {r.status === 'pending_approval' ? ` · approving starts ${r.plan.first_nodes} of ${r.plan.stage_nodes} node${r.plan.stage_nodes === 1 ? '' : 's'}` : ''}
              </td>
              <td className="text-sm">
                {dateTime(r.created_at)} by {r.created_by}
                {r.ended_at ? <span className="block text-xs text-slate-600">ended {dateTime(r.ended_at)}</span> : null}
              </td>
            </tr>
          )}
        </DataTable>
      )}
    </>
  );
}
