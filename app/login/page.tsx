import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { currentAccess } from '@/lib/authn/session';
import { LoginForm } from '@/components/login-form';
import { safeCallbackPath } from '@/lib/auth/callback-url';
import { demoLogins } from '@/lib/db/queries/org-settings';
import { describeDemoUser, demoUserOrder } from '@/lib/seed/demo-logins';
import { DEMO_PASSWORD } from '@/lib/seed/demo-data';

export const metadata: Metadata = { title: 'Sign in' };

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ callbackUrl?: string }> }) {
  const { callbackUrl } = await searchParams;
  const next = safeCallbackPath(callbackUrl);
  if (await currentAccess()) redirect(next);
  // Issue 43: a newcomer to a seeded demo learns its users; a database without the demo shows nothing.
  const demo = (await demoLogins((email) => describeDemoUser(email) ?? ''))
    .filter((d) => demoUserOrder(d.email) >= 0)
    .sort((a, b) => demoUserOrder(a.email) - demoUserOrder(b.email));
  return (
    <main className="flex min-h-screen items-center justify-center p-6">
      <div className="card w-full max-w-sm p-6">
        <div className="mb-5 flex items-center gap-2">
          <Logo />
          <h1 className="text-lg font-semibold">Policy Console</h1>
        </div>
        <LoginForm callbackUrl={next} demo={demo.length ? { password: DEMO_PASSWORD, users: demo } : null} />
      </div>
    </main>
  );
}

function Logo() {
  return (
    <span aria-hidden className="flex h-7 w-7 items-center justify-center rounded bg-indigo-600 text-xs font-bold text-white">
      PC
    </span>
  );
}
