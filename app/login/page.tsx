import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { currentAccess } from '@/lib/authn/session';
import { LoginForm } from '@/components/login-form';
import { safeCallbackPath } from '@/lib/auth/callback-url';
import { demoLogins } from '@/lib/services/organizations';
import { describeDemoUser, demoUserOrder } from '@/lib/seed/demo-logins';
import { DEMO_PASSWORD } from '@/lib/seed/demo-data';
import { signInOptions } from '@/lib/authn/oidc-config';
import { SsoButton } from '@/components/sso-button';

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
        <SignInChoices callbackUrl={next} demo={demo.length ? { password: DEMO_PASSWORD, users: demo } : null} />
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

/** Issue 45: the identity provider's button and, as LOCAL_LOGIN says, the password form. */
function SignInChoices({ callbackUrl, demo }: { callbackUrl: string; demo: Parameters<typeof LoginForm>[0]['demo'] }) {
  const { sso, ssoProblem, localLogin, localLoginProblem } = signInOptions();
  const problems = [ssoProblem && `Single sign-on is misconfigured: ${ssoProblem}.`, localLoginProblem && `${localLoginProblem}; password sign-in is off until it is fixed.`].filter(Boolean);
  return (
    <div className="space-y-4">
      {problems.map((p) => (
        <p key={p} role="alert" className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-800">
          {p} Ask the console&apos;s operator.
        </p>
      ))}
      {sso && <SsoButton name={sso.name} callbackUrl={callbackUrl} primary={localLogin === 'false'} />}
      {sso && localLogin !== 'false' && (
        <p className="text-center text-xs text-slate-500" aria-hidden>
          or
        </p>
      )}
      {localLogin === 'admins' && <p className="text-xs text-slate-600">Password sign-in is kept for the break-glass administrator only.</p>}
      {localLogin !== 'false' ? (
        <LoginForm callbackUrl={callbackUrl} demo={demo} />
      ) : (
        !sso && <p className="text-sm text-slate-700">Password sign-in is turned off on this console (LOCAL_LOGIN=false) and no identity provider is configured, so nobody can sign in. Ask the console&apos;s operator.</p>
      )}
    </div>
  );
}
