'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import type { AdminArea } from '@/lib/services/organizations';
import { ADMIN_TABS } from './admin-tab-list';

/** The Admin pages' tabs: those of `areas` (the pages this user may use). */
export function AdminTabs({ areas }: { areas: readonly AdminArea[] }) {
  const pathname = usePathname();
  return (
    <nav aria-label="Admin" className="mb-5 flex gap-1 border-b border-slate-200">
      {ADMIN_TABS.filter(([area]) => areas.includes(area)).map(([, href, label]) => {
        const active = pathname === href || (href !== '/admin' && pathname.startsWith(`${href}/`));
        return (
          <Link
            key={href}
            href={href}
            aria-current={active ? 'page' : undefined}
            className={`-mb-px border-b-2 px-3 py-2 text-sm font-medium ${active ? 'border-indigo-600 text-indigo-700' : 'border-transparent text-slate-600 hover:border-slate-300 hover:text-slate-900'}`}
          >
            {label}
          </Link>
        );
      })}
    </nav>
  );
}
