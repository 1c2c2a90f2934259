'use client';

import { signOut } from 'next-auth/react';
import { useRouter } from 'next/navigation';

/** Sign out, or go back where you came from (the board when there is no history). */
export function LogoutButton() {
  const router = useRouter();
  return (
    <div className="flex gap-2">
      <button
        type="button"
        className="btn flex-1 justify-center"
        onClick={() => (window.history.length > 1 ? router.back() : router.push('/'))}
      >
        Cancel
      </button>
      <button type="button" className="btn btn-primary flex-1 justify-center" onClick={() => signOut({ callbackUrl: '/login' })}>
        Sign out
      </button>
    </div>
  );
}
