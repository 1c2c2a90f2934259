import type { Metadata } from 'next';
import { headers } from 'next/headers';
import { requireAccess } from '@/lib/authn/session';
import { can } from '@/lib/auth/permissions';
import { chefOrg } from '@/lib/config';
import { orgAdminUserIds, orgScope, administeredOrganizations, listOrgMembers, listOrgInvitations } from '@/lib/services/organizations';
import { usersForAdmin } from '@/lib/services/users';
import { AdminOrganizations } from '@/components/admin-organizations';
import { EmptyState, PageHeader } from '@/components/page-header';

export const metadata: Metadata = { title: 'Organizations' };
export const dynamic = 'force-dynamic';

/**
 * Issue 23 (step 4): Admin → Organizations. Every organization (the home one holds the Chef objects; the others hold
 * clients, members and groups), create one (its validator's key shown once), delete one (not home), and the members
 * of the one `?org=<name>` selects, with its pending invitations (Chef's association requests).
 * Issue 43: an organization's admins (its `admins` group) see the organizations they administer, and there list
 * members and invitations, invite users, set org admins and remove members; creating and deleting organizations
 * and adding users directly stay the administrators'.
 */
export default async function OrganizationsPage({ searchParams }: { searchParams: Promise<{ org?: string | string[] }> }) {
  const access = await requireAccess();
  const home = chefOrg();
  const superuser = can(access, 'org.list');
  const orgs = await administeredOrganizations(access);
  if (!orgs.length) {
    return (
      <>
        <PageHeader title="Organizations" />
        <EmptyState title="Administrators and organization admins only">
          Organizations are Chef&rsquo;s tenants: administrators (Chef&rsquo;s superuser) list, create and delete them, and an organization&rsquo;s admins invite its members.
        </EmptyState>
      </>
    );
  }
  const wanted = (await searchParams).org;
  const selectedName = typeof wanted === 'string' && wanted ? wanted : null;
  const selected = selectedName ? (orgs.find((o) => o.name === selectedName) ?? null) : null;
  // Its members' rights are about the organization selected (membership of that one).
  const scoped = selected ? await orgScope(access, selected.name) : null;
  const [members, users, orgAdmins, invitations] = scoped
    ? await Promise.all([listOrgMembers(scoped.actor, scoped.org), superuser ? usersForAdmin() : null, orgAdminUserIds(scoped.org.orgId), listOrgInvitations(scoped.actor, scoped.org)])
    : [null, null, null, null];
  const admins = new Set(orgAdmins ?? []);
  const h = await headers();
  const serverUrl = process.env.PUBLIC_URL?.replace(/\/+$/, '') ?? `${h.get('x-forwarded-proto') ?? 'http'}://${h.get('host') ?? 'localhost:3000'}`;
  return (
    <>
      <PageHeader
        title="Organizations"
        description={
          superuser
            ? `Chef organizations on this server. ${home} is the home organization: it holds the policies, nodes, cookbooks, data bags and search. Other organizations hold their own clients, members and groups only.`
            : `The Chef organizations you administer (their admins group): invite users, choose their admins, remove members. Administrators create and delete organizations.`
        }
      />
      <AdminOrganizations
        superuser={superuser}
        serverUrl={serverUrl}
        organizations={orgs.map((o) => ({ name: o.name, fullName: o.fullName, home: o.home, createdAt: o.createdAt.toISOString(), members: o.members, clients: o.clients }))}
        selectedName={selectedName}
        members={members?.map((m) => ({ userId: m.userId, username: m.username, email: m.email, displayName: m.displayName, isAdmin: m.isAdmin, orgAdmin: admins.has(m.userId) })) ?? null}
        users={users?.filter((u) => u.active).map((u) => ({ id: u.id, email: u.email, name: u.name })) ?? null}
        invitations={invitations}
      />
    </>
  );
}
