import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { Suspense } from 'react';
import { requireAccess } from '@/lib/authn/session';
import { compare } from '@/lib/db/queries/compare';
import { requestDetailForPage } from '@/lib/services/promotion';
import { CompareView } from '@/components/compare-view';
import { EmptyState, PageHeader } from '@/components/page-header';
import { RequestActions } from '@/components/request-actions';
import { RequestSummary } from '@/components/request-summary';

export const metadata: Metadata = { title: 'Promotion request' };
export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ id: string }> };

export default async function RequestPage({ params }: Props) {
  const access = await requireAccess();
  const { id } = await params;
  const loaded = await requestDetailForPage(access, decodeURIComponent(id));
  if (!loaded) notFound();
  const { request: r, can } = loaded;
  // The diff as it was asked for: what the stage ran then → what it would run.
  const comparison = r.fromRevisionId && r.toRevisionId && r.fromRevisionId !== r.toRevisionId ? await compare(access, r.policy, `rev:${r.toRevisionId}`, `rev:${r.fromRevisionId}`) : null;
  return (
    <>
      <PageHeader
        title={
          r.kind === 'ring' ? (
            <>
              Request: a ringed rollout of {r.policy} in {r.stage}
            </>
          ) : (
            <>
              Request: {r.policy} → {r.stage}
            </>
          )
        }
        description={
          <>
            <Link className="text-indigo-700 underline" href="/requests">
              All requests
            </Link>{' '}
            {r.kind === 'ring'
              ? ` · approval starts a ring: part of ${r.stage} gets the new revision first; ${r.stage}'s revision moves only at the ring's last step.`
              : ' · the pointer moves only when the required approvals are in, through the normal promotion (audited).'}
          </>
        }
        actions={
          <RequestActions
            id={r.id}
            policy={r.policy}
            stage={r.stage}
            toRevisionId={r.toRevisionId}
            currentRevisionId={r.currentRevisionId}
            canManage={can.manage}
            canApprove={can.approve}
            canReject={can.reject}
            canWithdraw={can.withdraw}
            canRerequest={can.rerequest}
            approveHint={can.approveHint}
            kind={r.kind}
            origin={r.origin}
            approvals={r.approvalCount}
            approvalsRequired={r.approvalsRequired}
            effect={r.effect}
            freeze={r.freeze}
          />
        }
      />
      <div className="space-y-4">
        <RequestSummary r={r} />
        <section aria-labelledby="req-diff" className="space-y-2">
          <h2 id="req-diff" className="text-lg font-semibold">
            What changes in {r.stage}
          </h2>
          {comparison ? (
            <Suspense>
              <CompareView c={comparison} changeHeader={{ before: `${r.stage} when asked`, after: `requested${r.origin.from_stage ? ` (from ${r.origin.from_stage})` : ''}` }} />
            </Suspense>
          ) : (
            <EmptyState title={r.fromRevisionId ? 'No difference' : `New in ${r.stage}`}>
              {r.fromRevisionId ? 'The stage already ran this revision when the request was made.' : `${r.policy} did not run in ${r.stage} when this was asked: everything in the revision is new there.`}
            </EmptyState>
          )}
        </section>
      </div>
    </>
  );
}
