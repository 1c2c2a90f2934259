'use client';

import Link from 'next/link';
import { useEffect, useRef, useState } from 'react';

export function UserMenu({ name, email, isAdmin }: { name: string; email: string; isAdmin: boolean }) {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const onDoc = (e: MouseEvent) => ref.current && !ref.current.contains(e.target as Node) && setOpen(false);
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false);
    document.addEventListener('mousedown', onDoc);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('mousedown', onDoc);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);
  return (
    <div className="relative" ref={ref}>
      <button
        type="button"
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
        className="flex items-center gap-2 rounded-md px-2 py-1 text-sm text-slate-200 hover:bg-slate-800"
        data-testid="user-menu"
      >
        <span className="flex h-6 w-6 items-center justify-center rounded-full bg-indigo-500 text-xs font-semibold text-white">
          {name.slice(0, 1).toUpperCase()}
        </span>
        <span className="hidden sm:inline">{email}</span>
        {isAdmin && <span className="badge bg-amber-400/20 text-amber-200">admin</span>}
      </button>
      {open && (
        <div role="menu" className="absolute right-0 z-20 mt-1 w-56 rounded-md border border-slate-200 bg-white py-1 text-slate-800 shadow-lg">
          <div className="border-b border-slate-100 px-3 py-2">
            <div className="font-medium">{name}</div>
            <div className="text-xs text-slate-500">{email}</div>
          </div>
          <Link role="menuitem" href="/admin/tokens" className="block px-3 py-1.5 hover:bg-slate-50">
            API tokens
          </Link>
          <Link role="menuitem" href="/logout" className="block px-3 py-1.5 hover:bg-slate-50">
            Sign out
          </Link>
        </div>
      )}
    </div>
  );
}
