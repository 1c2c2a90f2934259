import type { Metadata } from 'next';
import { requireAccess } from '@/lib/authn/session';
import { policyNames } from '@/lib/db/queries/policies';
import { requestsForPage, type RequestsFilter, type RequestsView } from '@/lib/services/requests-page';
import { PageHeader } from '@/components/page-header';
import { RequestsFilters } from '@/components/requests-filters';
import { RequestsTable } from '@/components/requests-table';

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
  const [{ rows, counts, stages }, policies] = await Promise.all([requestsForPage(access, filter), policyNames()]);
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
    </>
  );
}
