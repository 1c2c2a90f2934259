import type { Metadata } from 'next';
import { requireAccess } from '@/lib/authn/session';
import { can } from '@/lib/auth/permissions';
import { usersForAdmin } from '@/lib/db/queries/admin';
import { AdminUsers } from '@/components/admin-users';
import { EmptyState, PageHeader } from '@/components/page-header';
import { chefOrg } from '@/lib/chef/context';

export const metadata: Metadata = { title: 'Users' };
export const dynamic = 'force-dynamic';

export default async function UsersPage() {
  const access = await requireAccess();
  if (!can(access, 'admin.users')) return <EmptyState title="Admins only">Ask an admin to add or change users.</EmptyState>;
  return (
    <>
      <PageHeader title="Users" description={`Invite, deactivate, reset passwords, grant the admin flag, and add people to or remove them from organization ${chefOrg()}.`} />
      <AdminUsers users={await usersForAdmin()} me={access.email} org={chefOrg()} />
    </>
  );
}
