import type { Metadata } from 'next';
import { requireAccess } from '@/lib/authn/session';
import { listPoliciesForPage } from '@/lib/services/policies';
import { PageHeader } from '@/components/page-header';
import { PoliciesTable } from '@/components/policies-table';
import { UploadLock } from '@/components/upload-lock';

export const metadata: Metadata = { title: 'Policies' };
export const dynamic = 'force-dynamic';

export default async function PoliciesPage() {
  const access = await requireAccess();
  const rows = await listPoliciesForPage(access);
  return (
    <>
      <PageHeader title="Policies" description="Every policy, who owns it, and where it runs." actions={<UploadLock />} />
      <PoliciesTable rows={rows} />
    </>
  );
}
