import type { Metadata } from 'next';
import Link from 'next/link';
import { requireAccess } from '@/lib/authn/session';
import { shortId } from '@/lib/format';
import { listRingRollouts } from '@/lib/services/rings';
import { EmptyState, PageHeader } from '@/components/page-header';

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
          <Link href="/rings/new" className="text-indigo-700 hover:underline">Start one</Link>, or through the API (POST /api/v1/rings with stage, policy, revision_id and steps).
        </EmptyState>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Policy</th>
              <th scope="col">Stage</th>
              <th scope="col">Revision</th>
              <th scope="col">Ring</th>
              <th scope="col">Status</th>
              <th scope="col">Health</th>
              <th scope="col">Started</th>
            </tr>
          </thead>
          <tbody>
            {rings.map((r) => (
              <tr key={r.id} data-testid="ring-row">
                <td>
                  <Link href={r.url} className="font-medium text-indigo-700 hover:underline">
                    {r.policy}
                  </Link>
                </td>
                <td>{r.stage}</td>
                <td className="mono">
                  {shortId(r.from_revision_id)} → {shortId(r.to_revision_id)}
                </td>
                <td>{r.step < 0 ? '—' : `${r.percent}% (step ${r.step + 1} of ${r.steps.length})`}</td>
                <td>{r.status.replace('_', ' ')}</td>
                <td className="text-sm">
                  {r.health.ring_nodes} in ring · {r.health.converged} converged{r.health.failed ? ` · ${r.health.failed} failed` : ''}
                </td>
                <td className="text-sm">
                  {r.created_at.slice(0, 16).replace('T', ' ')} by {r.created_by}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
