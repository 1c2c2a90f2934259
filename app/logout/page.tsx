import type { Metadata } from 'next';
import { LogoutButton } from '@/components/logout-button';

export const metadata: Metadata = { title: 'Sign out' };

export default function LogoutPage() {
  return (
    <main className="flex min-h-screen items-center justify-center p-6">
      <div className="card w-full max-w-sm space-y-4 p-6">
        <h1 className="text-lg font-semibold">Sign out of Policy Console?</h1>
        <LogoutButton />
      </div>
    </main>
  );
}
