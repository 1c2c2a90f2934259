import type { Metadata } from 'next';
import Link from 'next/link';
import { requireAccess } from '@/lib/auth/session';
import { can } from '@/lib/auth/permissions';
import { pointerHistory } from '@/lib/db/queries/history';
import { activeRevisionId } from '@/lib/db/queries/policies';
import { HistoryTimeline } from '@/components/history-timeline';
import { EmptyState, PageHeader } from '@/components/page-header';

export const metadata: Metadata = { title: 'History' };
export const dynamic = 'force-dynamic';

export default async function HistoryPage({ searchParams }: { searchParams: Promise<{ policy?: string; stage?: string }> }) {
  const access = await requireAccess();
  const { policy, stage } = await searchParams;
  if (!policy || !stage) {
    return (
      <>
        <PageHeader title="History" />
        <EmptyState title="Pick a policy and a stage">Open a history from a stage board cell (the “history” link) or a policy page.</EmptyState>
      </>
    );
  }
  if (!can(access, 'stage.view', { stage })) {
    return (
      <>
        <PageHeader title="History" />
        <EmptyState title="Not visible">You may not view stage {stage}.</EmptyState>
      </>
    );
  }
  const [entries, current] = await Promise.all([pointerHistory(stage, policy), activeRevisionId(stage, policy)]);
  return (
    <>
      <PageHeader
        title={
          <>
            History of{' '}
            <Link className="text-indigo-700 hover:underline" href={`/policies/${encodeURIComponent(policy)}`}>
              {policy}
            </Link>{' '}
            in {stage}
          </>
        }
        description="Every change of the revision this stage runs: who, when, from, to and why."
      />
      <HistoryTimeline policy={policy} stage={stage} entries={entries} current={current} canRollback={can(access, 'stage.promote', { stage })} />
    </>
  );
}
