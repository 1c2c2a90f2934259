import Link from 'next/link';
import type { ReactNode } from 'react';
import { requireAccess } from '@/lib/authn/session';
import { can } from '@/lib/auth/permissions';
import { NavLinks } from '@/components/nav-links';
import { UserMenu } from '@/components/user-menu';
import { pendingApprovalCount } from '@/lib/services/promotion';
import { chefOrg } from '@/lib/config';
import { requestAdminAreas, listMyInvitations } from '@/lib/services/organizations';
import { adminHref } from '@/components/admin-tab-list';
import { MyInvitations } from '@/components/my-invitations';

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const access = await requireAccess();
  // Issue 23: a signed-in user who may not use the organization (`org.access`: its members, and administrators as
  // Chef's superuser) sees why instead of a console every page of which would refuse them.
  const outside = !can(access, 'org.access');
  // Issue 29: the pending-count badge on Requests (server-computed; refreshed with every navigation and router.refresh()).
  const [pendingApprovals, areas, invitations] = await Promise.all([
    outside ? 0 : pendingApprovalCount(access),
    outside ? [] : requestAdminAreas(access),
    // Issue 43: the user's own pending invitations to Chef organizations, on every page until answered.
    listMyInvitations(access),
  ]);
  return (
    <div className="min-h-screen">
      <a href="#main" className="sr-only focus:not-sr-only focus:fixed focus:left-2 focus:top-2 focus:z-50 focus:rounded-md focus:bg-white focus:px-3 focus:py-2 focus:font-medium focus:text-indigo-800 focus:shadow-lg">
        Skip to main content
      </a>
      <header className="sticky top-0 z-10 bg-slate-900 text-white shadow">
        <div className="mx-auto flex max-w-[1600px] items-center gap-4 px-4 py-2">
          <Link href="/" className="flex items-center gap-2 font-semibold">
            <span aria-hidden className="flex h-7 w-7 items-center justify-center rounded bg-indigo-500 text-xs font-bold">
              PC
            </span>
            <span className="hidden 2xl:inline">Policy Console</span>
            <span className="sr-only 2xl:hidden">Policy Console</span>
          </Link>
          {outside ? null : <NavLinks pendingApprovals={pendingApprovals} adminHref={adminHref(areas)} />}
          <div className="ml-auto">
            <UserMenu name={access.name} email={access.email} isAdmin={access.isAdmin} />
          </div>
        </div>
      </header>
      <main id="main" tabIndex={-1} className="mx-auto max-w-[1600px] px-4 py-6 focus:outline-none">
        {invitations.length ? <MyInvitations invitations={invitations} home={chefOrg()} /> : null}
        {outside ? <NotAMember org={chefOrg()} email={access.email} invited={invitations.some((i) => i.organization === chefOrg() && i.valid)} /> : children}
      </main>
    </div>
  );
}

/** What a signed-in user outside the organization sees on every console page (issue 23). */
function NotAMember({ org, email, invited }: { org: string; email: string; invited: boolean }) {
  return (
    <section aria-labelledby="not-a-member" className="mx-auto mt-12 max-w-xl rounded-lg border border-amber-300 bg-amber-50 p-6 text-slate-800">
      <h1 id="not-a-member" className="text-lg font-semibold">
        You are not a member of organization &lsquo;{org}&rsquo;
      </h1>
      <p className="mt-2">
        You are signed in as {email}, but this account is not a member of the organization this console serves, so its
        stages, policies, nodes and cookbooks are not shown to you. Chef&rsquo;s tools signing as you get the same answer.
      </p>
      <p className="mt-2">
        {invited
          ? 'You are invited to it: accept the invitation above to become a member.'
          : "Ask an administrator or one of the organization's admins to invite you (Admin → Organizations); the invitation then appears on this page."}
      </p>
      <p className="mt-4">
        <Link href="/logout" className="font-medium text-indigo-700 underline hover:text-indigo-900">
          Sign out
        </Link>
      </p>
    </section>
  );
}
