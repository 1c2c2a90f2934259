import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { currentAccess } from '@/lib/authn/session';
import { LoginForm } from '@/components/login-form';
import { safeCallbackPath } from '@/lib/auth/callback-url';
import { signInOptions } from '@/lib/authn/oidc-config';
import { SsoButton } from '@/components/sso-button';

export const metadata: Metadata = { title: 'Sign in' };

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ callbackUrl?: string }> }) {
  const { callbackUrl } = await searchParams;
  const next = safeCallbackPath(callbackUrl);
  if (await currentAccess()) redirect(next);
  return (
    <main className="flex min-h-screen items-center justify-center p-6">
      <div className="card w-full max-w-sm p-6">
        <div className="mb-5 flex items-center gap-2">
          <Logo />
          <h1 className="text-lg font-semibold">Policy Console</h1>
        </div>
        <SignInChoices callbackUrl={next} />
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
function SignInChoices({ callbackUrl }: { callbackUrl: string }) {
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
        <LoginForm callbackUrl={callbackUrl} />
      ) : (
        !sso && <p className="text-sm text-slate-700">Password sign-in is turned off on this console (LOCAL_LOGIN=false) and no identity provider is configured, so nobody can sign in. Ask the console&apos;s operator.</p>
      )}
    </div>
  );
}
