import Link from 'next/link';
import type { ReactNode } from 'react';
import { requireAccess } from '@/lib/auth/session';

export default async function AdminLayout({ children }: { children: ReactNode }) {
  await requireAccess();
  const tabs = [
    ['/admin', 'Permissions'],
    ['/admin/users', 'Users'],
    ['/admin/teams', 'Teams'],
    ['/admin/tokens', 'API tokens'],
  ];
  return (
    <div>
      <nav aria-label="Admin" className="mb-5 flex gap-1 border-b border-slate-200">
        {tabs.map(([href, label]) => (
          <Link key={href} href={href} className="-mb-px border-b-2 border-transparent px-3 py-2 text-sm font-medium text-slate-600 hover:border-slate-300 hover:text-slate-900">
            {label}
          </Link>
        ))}
      </nav>
      {children}
    </div>
  );
}
