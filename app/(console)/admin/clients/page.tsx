import type { Metadata } from 'next';
import { requireAccess } from '@/lib/authn/session';
import { can } from '@/lib/auth/permissions';
import { chefOrg } from '@/lib/config';
import { clientsPage } from '@/lib/services/clients';
import { orgSettings, validatorName } from '@/lib/services/organizations';
import { ChefClients } from '@/components/chef-clients';
import { EmptyState, PageHeader } from '@/components/page-header';
import { OrgSettings } from '@/components/org-settings';

export const metadata: Metadata = { title: 'Chef clients' };
export const dynamic = 'force-dynamic';

export default async function ClientsPage() {
  const access = await requireAccess();
  if (!can(access, 'admin.users')) {
    return (
      <>
        <PageHeader title="Chef clients" />
        <EmptyState title="Administrators only">Chef clients are the machine identities of nodes; only administrators see and manage them.</EmptyState>
      </>
    );
  }
  return (
    <>
      <PageHeader title="Chef clients" description="Machine identities: one per node, registered by chef-client through the validator, plus the validator itself." />
      <div className="space-y-4">
        <OrgSettings settings={await orgSettings()} canEdit={can(access, 'org.settings')} />
        <ChefClients clients={await clientsPage()} validatorName={validatorName(chefOrg())} />
      </div>
    </>
  );
}
