import type { Metadata } from 'next';
import { requireAccess } from '@/lib/authn/session';
import { can } from '@/lib/auth/permissions';
import { usersForAdmin } from '@/lib/services/users';
import { AdminUsers } from '@/components/admin-users';
import { EmptyState, PageHeader } from '@/components/page-header';
import { chefOrg } from '@/lib/config';
import { oidcConfig } from '@/lib/authn/oidc-config';
import { linkedIdentities } from '@/lib/db/queries/users';
import { IdentityLinks } from '@/components/admin-sso';

export const metadata: Metadata = { title: 'Users' };
export const dynamic = 'force-dynamic';

export default async function UsersPage() {
  const access = await requireAccess();
  if (!can(access, 'admin.users')) return <EmptyState title="Admins only">Ask an admin to add or change users.</EmptyState>;
  const users = await usersForAdmin();
  const sso = oidcConfig();
  return (
    <>
      <PageHeader title="Users" description={`Invite, deactivate, reset passwords, grant the admin flag, and add people to or remove them from organization ${chefOrg()}.`} />
      <AdminUsers users={users} me={access.email} org={chefOrg()} />
      {sso && <IdentityLinks provider={sso.name} linked={await linkedIdentities()} emails={users.filter((u) => u.active).map((u) => u.email)} />}
    </>
  );
}
