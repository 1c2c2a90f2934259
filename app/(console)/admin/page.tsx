import type { Metadata } from 'next';
import { requireAccess } from '@/lib/authn/session';
import { permissionsMatrix } from '@/lib/services/stages';
import { EmptyState, PageHeader } from '@/components/page-header';
import { PermissionsMatrix } from '@/components/permissions-matrix';

export const metadata: Metadata = { title: 'Permissions' };
export const dynamic = 'force-dynamic';

export default async function PermissionsPage() {
  const access = await requireAccess();
  const data = await permissionsMatrix(access);
  if (!data.stages.length) return <EmptyState title="Admins and stage managers only">The permissions matrix shows the stages you manage; ask an admin who may do what.</EmptyState>;
  return (
    <>
      <PageHeader
        title="Permissions"
        description="Who may do what in each stage: view < promote < manage. Grants to a team apply to its members; admins may do everything. Only those who manage a stage (or admins) can edit its column."
      />
      <PermissionsMatrix {...data} />
    </>
  );
}
