import type { Metadata } from 'next';
import { requireAccess } from '@/lib/authn/session';
import { policyNames } from '@/lib/db/queries/policies';
import { requestsForPage, type RequestsFilter, type RequestsView, listScheduledPromotions } from '@/lib/services/promotion';
import { PageHeader } from '@/components/page-header';
import { RequestsFilters } from '@/components/requests-filters';
import { RequestsTable } from '@/components/requests-table';
import { ScheduledPromotions } from '@/components/scheduled-promotions';

export const metadata: Metadata = { title: 'Requests' };
export const dynamic = 'force-dynamic';

type Props = { searchParams: Promise<Record<string, string | undefined>> };

const VIEWS: RequestsView[] = ['to-approve', 'mine', 'all'];

export default async function RequestsPage({ searchParams }: Props) {
  const access = await requireAccess();
  const sp = await searchParams;
  const filter: RequestsFilter = {
    view: VIEWS.includes(sp.view as RequestsView) ? (sp.view as RequestsView) : 'to-approve',
    stage: sp.stage || undefined,
    status: sp.status || undefined,
    policy: sp.policy || undefined,
  };
  // Issue 28: the stage filter lists only the stages the viewer may see (requestsForPage's `stages`).
  // Issue 29: scheduled promotions (pending, and those decided in the last 7 days) of the stages the viewer may see, under the same stage and policy filters.
  const scope = { stage: filter.stage, policy: filter.policy };
  const [{ rows, counts, stages }, policies, scheduled, decided] = await Promise.all([
    requestsForPage(access, filter),
    policyNames(),
    listScheduledPromotions(access, { ...scope, status: 'pending' }),
    listScheduledPromotions(access, { ...scope, decidedSince: new Date(Date.now() - 7 * 24 * 3600_000) }),
  ]);
  const empty =
    filter.view === 'to-approve'
      ? 'Nothing is waiting for your approval.'
      : filter.view === 'mine'
        ? 'You have not asked for any promotion into a protected stage that matches these filters.'
        : 'No promotion request matches these filters.';
  return (
    <>
      <PageHeader
        title="Requests"
        description="Promotions into protected stages wait here for their approvals. How many approvals a request needs follows from what it changes."
      />
      <RequestsFilters filter={filter} stages={stages} policies={policies} counts={counts} />
      <RequestsTable rows={rows} empty={empty} />
      <ScheduledPromotions pending={scheduled} recent={decided.slice(0, 20)} />
    </>
  );
}
