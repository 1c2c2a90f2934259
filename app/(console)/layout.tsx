import Link from 'next/link';
import type { ReactNode } from 'react';
import { requireAccess } from '@/lib/auth/session';
import { NavLinks } from '@/components/nav-links';
import { UserMenu } from '@/components/user-menu';

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const access = await requireAccess();
  return (
    <div className="min-h-screen">
      <header className="sticky top-0 z-10 bg-slate-900 text-white shadow">
        <div className="mx-auto flex max-w-[1600px] items-center gap-4 px-4 py-2">
          <Link href="/" className="flex items-center gap-2 font-semibold">
            <span aria-hidden className="flex h-7 w-7 items-center justify-center rounded bg-indigo-500 text-xs font-bold">
              PC
            </span>
            <span className="hidden md:inline">Policy Console</span>
          </Link>
          <NavLinks />
          <div className="ml-auto">
            <UserMenu name={access.name} email={access.email} isAdmin={access.isAdmin} />
          </div>
        </div>
      </header>
      <main className="mx-auto max-w-[1600px] px-4 py-6">{children}</main>
    </div>
  );
}
