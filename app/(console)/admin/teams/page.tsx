import type { Metadata } from 'next';
import { requireAccess } from '@/lib/authn/session';
import { can } from '@/lib/auth/permissions';
import { teamsForAdmin } from '@/lib/services/users';
import { AdminTeams } from '@/components/admin-teams';
import { EmptyState, PageHeader } from '@/components/page-header';

export const metadata: Metadata = { title: 'Teams' };
export const dynamic = 'force-dynamic';

export default async function TeamsPage() {
  const access = await requireAccess();
  if (!can(access, 'admin.users')) return <EmptyState title="Admins only">Ask an admin to change teams.</EmptyState>;
  const data = await teamsForAdmin();
  return (
    <>
      <PageHeader title="Teams" description="Teams own policies (their members upload and compose them) and receive stage grants." />
      <AdminTeams {...data} />
    </>
  );
}
