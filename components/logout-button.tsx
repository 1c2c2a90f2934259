'use client';

import { signOut } from 'next-auth/react';

export function LogoutButton() {
  return (
    <button type="button" className="btn btn-primary w-full justify-center" onClick={() => signOut({ callbackUrl: '/login' })}>
      Sign out
    </button>
  );
}
