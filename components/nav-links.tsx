'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';

const LINKS = [
  { href: '/', label: 'Stages' },
  { href: '/policies', label: 'Policies' },
  { href: '/nodes', label: 'Nodes' },
  { href: '/compare', label: 'Compare' },
  { href: '/requests', label: 'Requests' },
  { href: '/compose', label: 'Compose' },
  { href: '/rings', label: 'Rings' },
  { href: '/data-bags', label: 'Data bags' },
  { href: '/ordering', label: 'Ordering' },
  { href: '/resource-map', label: 'Resource map' },
  { href: '/audit', label: 'Audit' },
  { href: '/connect', label: 'Chef tools' },
  { href: '/admin', label: 'Admin' },
];

/**
 * `pendingApprovals`: issue 29's badge on Requests, counted on the server (requests this user may approve now).
 * `adminHref`: issue 43, the Admin tab only for those who may use an Admin page, leading to the first of them
 * (lib/services/organizations/admin-areas.ts); null: no Admin tab.
 */
export function NavLinks({ pendingApprovals = 0, adminHref = null }: { pendingApprovals?: number; adminHref?: string | null }) {
  const pathname = usePathname();
  return (
    <nav aria-label="Main" className="flex min-w-0 flex-1 flex-wrap items-center gap-0.5 xl:gap-1">
      {LINKS.filter((l) => adminHref || l.href !== '/admin').map((l) => {
        const active = l.href === '/' ? pathname === '/' : pathname === l.href || pathname.startsWith(l.href + '/');
        return (
          <Link
            key={l.href}
            href={l.href === '/admin' && adminHref ? adminHref : l.href}
            aria-current={active ? 'page' : undefined}
            className={`whitespace-nowrap rounded-md px-2 py-1.5 text-sm font-medium xl:px-2.5 ${active ? 'bg-slate-800 text-white' : 'text-slate-300 hover:bg-slate-800 hover:text-white'}`}
          >
            {l.label}
            {l.href === '/requests' && pendingApprovals > 0 && ' '}
            {l.href === '/requests' && pendingApprovals > 0 && (
              <span data-testid="nav-requests-badge" className="ml-0.5 inline-block min-w-[1.25rem] rounded-full bg-amber-300 px-1.5 text-center text-xs font-semibold text-slate-950">
                {pendingApprovals}
                <span className="sr-only"> awaiting your approval</span>
              </span>
            )}
          </Link>
        );
      })}
    </nav>
  );
}
