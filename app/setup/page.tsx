import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { firstRunOpen } from '@/lib/services/users';
import { SetupForm } from '@/components/setup-form';

export const metadata: Metadata = { title: 'First run' };
export const dynamic = 'force-dynamic';

/**
 * Issue 42: the first-run page. It exists only while the console has no active administrator (a 404 after);
 * creating one needs the one-time setup code the server printed in its log. `npm run admin:create` does the same
 * from a shell on the host.
 */
export default async function SetupPage() {
  if (!(await firstRunOpen())) notFound();
  return (
    <main className="flex min-h-screen items-center justify-center p-6">
      <div className="card w-full max-w-sm p-6">
        <h1 className="mb-2 text-lg font-semibold">Policy Console: first run</h1>
        <p className="mb-5 text-sm text-slate-600">
          This console has no administrator yet. Create the first one with the setup code from the server log, or run <code className="mono">npm run admin:create</code> on the server.
        </p>
        <SetupForm />
      </div>
    </main>
  );
}
