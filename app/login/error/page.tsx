import type { Metadata } from 'next';
import Link from 'next/link';
import { localLogin, oidcConfig } from '@/lib/authn/oidc-config';

export const metadata: Metadata = { title: 'Sign-in failed' };
export const dynamic = 'force-dynamic';

type Params = { error?: string; reason?: string; subject?: string; claim?: string };

/**
 * Issue 45: where a failed sign-in ends (next-auth's error page, lib/authn/oidc.ts sends it here with the reason):
 * what happened, in words, and what to do. Never a stack trace: only the codes below are read, and the subject is
 * shown as text.
 */
export default async function SignInErrorPage({ searchParams }: { searchParams: Promise<Params> }) {
  const p = await searchParams;
  const provider = oidcConfig()?.name ?? 'the identity provider';
  const passwords = localLogin() !== 'false';
  const { title, body } = explain(p, provider, passwords);
  return (
    <main className="flex min-h-screen items-center justify-center p-6">
      <div className="card w-full max-w-md space-y-4 p-6" data-testid="sign-in-error" data-reason={p.reason ?? p.error ?? ''}>
        <h1 className="text-lg font-semibold">{title}</h1>
        <div className="space-y-2 text-sm text-slate-700">{body}</div>
        <Link href="/login" className="btn btn-primary inline-flex">
          Back to sign-in
        </Link>
      </div>
    </main>
  );
}

function explain(p: Params, provider: string, passwords: boolean): { title: string; body: React.ReactNode } {
  const retry = <p>Start again from the sign-in page.</p>;
  const trust = (what: string) => ({
    title: 'The identity provider’s answer was not accepted',
    body: (
      <>
        <p>{what} The console refused it and stored nothing.</p>
        <p>If this keeps happening, ask the console’s operator to check OIDC_ISSUER and OIDC_CLIENT_ID against the provider’s settings.</p>
      </>
    ),
  });
  switch (p.reason ?? p.error) {
    case 'denied':
      return { title: 'Sign-in was cancelled', body: <><p>You declined at {provider}, so the console did not receive your identity. Nothing was changed.</p>{retry}</> };
    case 'provider-error':
      return { title: `${provider} refused the sign-in`, body: <><p>{provider} answered with an error instead of your identity. Nothing was changed.</p>{retry}</> };
    case 'audience':
      return trust('The ID token was issued for another application (its audience is not this console’s client id).');
    case 'issuer':
      return trust('The ID token came from another issuer than the one the console trusts.');
    case 'signature':
      return trust('The ID token’s signature did not match the provider’s published keys.');
    case 'expired-token':
      return trust('The ID token had expired (or was dated in the future).');
    case 'nonce':
      return trust('The ID token did not belong to this sign-in (its nonce did not match).');
    case 'expired-state':
      return { title: 'This sign-in expired', body: <><p>The sign-in took too long, or was started in another browser, so the console cannot match the provider’s answer to it. Nothing was changed.</p>{retry}</> };
    case 'state-mismatch':
    case 'code-rejected':
      return { title: 'This sign-in answer was refused', body: <><p>The answer did not belong to a sign-in started here, or it was already used. Nothing was changed.</p>{retry}</> };
    case 'provider-down':
      return {
        title: `${provider} could not be reached`,
        body: passwords ? (
          <p>The console could not reach the identity provider. You can still sign in with your e-mail and password, or try single sign-on again later.</p>
        ) : (
          <p>The console could not reach the identity provider, and password sign-in is turned off on this console. Try again later; if it lasts, tell the console’s operator.</p>
        ),
      };
    case 'no-groups':
      return { title: 'No access for your groups', body: <p>You signed in at {provider}, but you are in none of the groups that give access to this console. Ask an administrator to add you to a group mapped to a team.</p> };
    case 'missing-groups':
      return { title: 'Your groups were not sent', body: <p>{provider} did not send the “{p.claim ?? 'groups'}” claim, so the console cannot tell what you may do. Nothing was changed. Ask the console’s operator to configure the provider to send it (OIDC_GROUPS_CLAIM names the claim).</p> };
    case 'email-taken':
      return {
        title: 'An account with your e-mail already exists',
        body: (
          <>
            <p>The console has an account with the e-mail address {provider} gave, and it is not linked to your identity there. An administrator can link it in Admin → Users with this identity:</p>
            <p className="break-all rounded bg-slate-100 px-2 py-1 font-mono text-xs" data-testid="identity-subject">{p.subject ?? '(unknown)'}</p>
          </>
        ),
      };
    case 'no-email':
      return { title: 'No e-mail address', body: <p>{provider} did not send an e-mail address, which the console needs for a new account. Ask the console’s operator to request the “email” scope.</p> };
    case 'deactivated':
      return { title: 'Your account is deactivated', body: <p>Ask an administrator to reactivate it.</p> };
    case 'Configuration':
      return { title: 'Sign-in is not configured', body: <p>The console’s sign-in configuration is incomplete. Tell the console’s operator.</p> };
    case 'AccessDenied':
      return { title: 'Access denied', body: <p>You may not sign in to this console.</p> };
    default:
      return { title: 'Sign-in failed', body: <><p>The sign-in did not complete. Nothing was changed.</p>{retry}</> };
  }
}
