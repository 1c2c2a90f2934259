import Link from 'next/link';
import type { ReactNode } from 'react';
import { requireAccess } from '@/lib/authn/session';
import { NavLinks } from '@/components/nav-links';
import { UserMenu } from '@/components/user-menu';
import { pendingApprovalCount } from '@/lib/services/requests-badge';

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const access = await requireAccess();
  // Issue 29: the pending-count badge on Requests (server-computed; refreshed with every navigation and router.refresh()).
  const pendingApprovals = await pendingApprovalCount(access);
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
          <NavLinks pendingApprovals={pendingApprovals} />
          <div className="ml-auto">
            <UserMenu name={access.name} email={access.email} isAdmin={access.isAdmin} />
          </div>
        </div>
      </header>
      <main id="main" tabIndex={-1} className="mx-auto max-w-[1600px] px-4 py-6 focus:outline-none">
        {children}
      </main>
    </div>
  );
}
