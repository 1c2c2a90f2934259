import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { requireAccess } from '@/lib/authn/session';
import { nodePage } from '@/lib/services/nodes';
import { shortId } from '@/lib/format';
import { isAppError } from '@/lib/errors';
import { PageHeader } from '@/components/page-header';
import { NodeRunHistory } from '@/components/node-run-history';
import { RunStatus } from '@/components/run-status';
import { Time } from '@/components/time';
import { missingAfterMs, nodeRunHistory } from '@/lib/services/runs';
import { nodeRunStatus } from '@/lib/services/search';
import { moveTargets } from '@/lib/services/stages';
import { NodeMove } from '@/components/node-move';

export const dynamic = 'force-dynamic';

export async function generateMetadata({ params }: { params: Promise<{ name: string }> }): Promise<Metadata> {
  return { title: `Node ${decodeURIComponent((await params).name)}` };
}

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="grid grid-cols-3 gap-2 border-b border-slate-100 py-2 last:border-0">
      <dt className="text-slate-600">{label}</dt>
      <dd className="col-span-2">{children}</dd>
    </div>
  );
}

/** A node as its last chef-client run saved it: policy, stage, the revision applied against the one the stage runs, platform, time. */
export default async function NodePage({ params }: { params: Promise<{ name: string }> }) {
  const access = await requireAccess();
  const name = decodeURIComponent((await params).name);
  const n = await nodePage(access, name);
  if (!n) notFound();
  const [runs, run] = await Promise.all([
    nodeRunHistory(access, name).catch((e: unknown) => {
      if (isAppError(e)) return []; // a node saved but never reported: no run history yet
      throw e;
    }),
    // Issue 43: the standing the board counts it under, so the header never says converged over a failed run.
    nodeRunStatus(access, name),
  ]);
  // Missing (issue 26): no run report and no save for NODE_MISSING_AFTER_MINUTES.
  const now = Date.now();
  const lastSeen = [n.lastCheckIn, runs[0]?.end_time ?? runs[0]?.start_time ?? null].filter((t): t is string => !!t).sort().at(-1) ?? null;
  const missing = !lastSeen || now - Date.parse(lastSeen) > missingAfterMs();
  const targets = await moveTargets(access, n.name, n.stage);
  const onStageRevision = n.revisionApplied && n.activeRevisionId ? n.revisionApplied === n.activeRevisionId : null;
  return (
    <>
      <PageHeader title={n.name} description={n.saved ? 'As its last chef-client run saved it.' : 'Reported through the console API; chef-client has not saved this node yet.'} />
      <dl className="card max-w-3xl p-4 text-sm">
        <Row label="Run status">
          <RunStatus run={run} />
        </Row>
        <Row label="Policy group (stage)">
          {n.stage ?? <span className="text-amber-800">{n.reportedGroup ? `${n.reportedGroup} (not a stage this console knows)` : 'none'}</span>}
        </Row>
        <Row label="Policy">
          {n.policy ? <Link href={`/policies/${encodeURIComponent(n.policy)}`} className="text-indigo-800 underline">{n.policy}</Link> : <span className="text-amber-800">{n.reportedPolicy ? `${n.reportedPolicy} (unknown policy)` : 'none'}</span>}
        </Row>
        <Row label="Revision applied">
          {n.revisionApplied && n.policy ? (
            <Link href={`/policies/${encodeURIComponent(n.policy)}/revisions/${n.revisionApplied}`} className="mono text-indigo-800 underline">{shortId(n.revisionApplied)}</Link>
          ) : (
            <span className="mono">{shortId(n.revisionApplied)}</span>
          )}
          {onStageRevision === true &&
            (run.standing === 'converged' ? (
              <span className="badge ml-2 bg-emerald-100 text-emerald-900" data-testid="revision-standing">
                converged to the stage&apos;s revision
              </span>
            ) : run.standing === 'failed' ? (
              <span className="badge ml-2 bg-red-100 text-red-900" data-testid="revision-standing">
                the stage&apos;s revision, but its last run of it failed
              </span>
            ) : (
              <span className="badge ml-2 bg-slate-100 text-slate-800" data-testid="revision-standing">
                the stage&apos;s revision
              </span>
            ))}
          {onStageRevision === false && (
            <span className="badge ml-2 bg-amber-100 text-amber-900" data-testid="revision-standing">
              behind: the stage runs {shortId(n.activeRevisionId)}
            </span>
          )}
        </Row>
        <Row label="Platform">{[n.platform, n.platformVersion].filter(Boolean).join(' ') || '—'}</Row>
        <Row label="Last saved by chef-client">{n.lastCheckIn ? <Time iso={n.lastCheckIn} /> : '—'}</Row>
        {n.chefVersion && <Row label="Chef Infra Client">{n.chefVersion}</Row>}
        {n.fqdn && <Row label="FQDN">{n.fqdn}</Row>}
        {n.ipaddress && <Row label="IP address">{n.ipaddress}</Row>}
        {n.runList.length > 0 && <Row label="Node run list">{n.runList.join(', ')}</Row>}
      </dl>
      <NodeMove name={n.name} current={n.stage} targets={targets} />
      <NodeRunHistory runs={runs} missing={missing} missingAfterMinutes={Math.round(missingAfterMs() / 60_000)} lastSeen={lastSeen} now={now} />
    </>
  );
}
