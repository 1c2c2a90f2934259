'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';

const TABS = [
  ['/admin', 'Permissions'],
  ['/admin/stages', 'Stages'],
  ['/admin/users', 'Users'],
  ['/admin/organizations', 'Organizations'],
  ['/admin/teams', 'Teams'],
  ['/admin/tokens', 'API tokens'],
  ['/admin/clients', 'Chef clients'],
  ['/admin/git', 'Git repositories'],
  ['/admin/webhooks', 'Webhooks'],
  ['/admin/import', 'Import'],
] as const;

export function AdminTabs() {
  const pathname = usePathname();
  return (
    <nav aria-label="Admin" className="mb-5 flex gap-1 border-b border-slate-200">
      {TABS.map(([href, label]) => {
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
