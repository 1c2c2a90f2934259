'use client';

import * as Menu from '@radix-ui/react-dropdown-menu';
import Link from 'next/link';

/** The account menu on Radix Dropdown Menu: arrow keys, typeahead, Escape and focus return come with it. */
export function UserMenu({ name, email, isAdmin }: { name: string; email: string; isAdmin: boolean }) {
  return (
    <Menu.Root modal={false}>
      <Menu.Trigger asChild>
        <button type="button" className="flex items-center gap-2 rounded-md px-2 py-1 text-sm text-slate-200 hover:bg-slate-800" data-testid="user-menu">
          <span aria-hidden className="flex h-6 w-6 items-center justify-center rounded-full bg-indigo-600 text-xs font-semibold text-white">
            {name.slice(0, 1).toUpperCase()}
          </span>
          <span className="hidden xl:inline">{email}</span>
          <span className="sr-only xl:hidden">{email}</span>
          {isAdmin && <span className="badge bg-amber-400/20 text-amber-200">admin</span>}
        </button>
      </Menu.Trigger>
      <Menu.Portal>
        <Menu.Content align="end" sideOffset={4} className="z-50 w-56 rounded-md border border-slate-200 bg-white py-1 text-slate-800 shadow-lg">
          <Menu.Label className="border-b border-slate-100 px-3 py-2">
            <span className="block font-medium">{name}</span>
            <span className="block text-xs text-slate-600">{email}</span>
          </Menu.Label>
          <Menu.Item asChild>
            <Link href="/account" className="block px-3 py-1.5 outline-none data-[highlighted]:bg-slate-100">
              Your account
            </Link>
          </Menu.Item>
          <Menu.Item asChild>
            <Link href="/admin/tokens" className="block px-3 py-1.5 outline-none data-[highlighted]:bg-slate-100">
              API tokens
            </Link>
          </Menu.Item>
          <Menu.Item asChild>
            <Link href="/logout" className="block px-3 py-1.5 outline-none data-[highlighted]:bg-slate-100">
              Sign out
            </Link>
          </Menu.Item>
        </Menu.Content>
      </Menu.Portal>
    </Menu.Root>
  );
}
