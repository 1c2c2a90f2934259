import type { Metadata } from 'next';
import { requireAccess, currentSignInMethod } from '@/lib/authn/session';
import { oidcConfig } from '@/lib/authn/oidc-config';
import { accountTeams, linkedIdentity } from '@/lib/db/queries/users';
import { PageHeader } from '@/components/page-header';

export const metadata: Metadata = { title: 'Your account' };
export const dynamic = 'force-dynamic';

/** Issue 45: who you are here, how you signed in, and the identity-provider identity linked to your account. */
export default async function AccountPage() {
  const access = await requireAccess();
  const [identity, teams, method] = await Promise.all([linkedIdentity(access.userId), accountTeams(access.userId), currentSignInMethod()]);
  const config = oidcConfig();
  const groups = identity ? (JSON.parse(identity.groups) as string[]) : [];
  return (
    <>
      <PageHeader title="Your account" description="Who you are in the console, how you signed in, and where your rights come from." />
      <div className="grid gap-4 md:grid-cols-2">
        <section className="card p-4" aria-labelledby="account-you">
          <h2 id="account-you" className="mb-2 font-semibold">
            You
          </h2>
          <dl className="grid grid-cols-[10rem_1fr] gap-y-1 text-sm">
            <dt className="text-slate-600">Name</dt>
            <dd>{access.name}</dd>
            <dt className="text-slate-600">E-mail</dt>
            <dd>{access.email}</dd>
            <dt className="text-slate-600">Administrator</dt>
            <dd>{access.isAdmin ? 'yes' : 'no'}</dd>
            <dt className="text-slate-600">This session</dt>
            <dd data-testid="sign-in-method">{method === 'oidc' ? `signed in through ${config?.name ?? 'the identity provider'}` : 'signed in with e-mail and password'}</dd>
            <dt className="text-slate-600">Teams</dt>
            <dd>
              {teams.length
                ? teams.map((t) => (
                    <span key={t.name} className="mr-2 inline-block">
                      {t.name}
                      {t.groups.length > 0 && <span className="text-xs text-slate-600"> (from groups {t.groups.join(', ')})</span>}
                    </span>
                  ))
                : 'none'}
            </dd>
          </dl>
        </section>
        <section className="card p-4" aria-labelledby="account-identity" data-testid="linked-identity">
          <h2 id="account-identity" className="mb-2 font-semibold">
            Linked identity
          </h2>
          {identity ? (
            <dl className="grid grid-cols-[10rem_1fr] gap-y-1 text-sm">
              <dt className="text-slate-600">Provider</dt>
              <dd className="break-all">{config?.name ? `${config.name} (${identity.issuer})` : identity.issuer}</dd>
              <dt className="text-slate-600">Subject</dt>
              <dd className="break-all font-mono text-xs">{identity.subject}</dd>
              <dt className="text-slate-600">E-mail there</dt>
              <dd>{identity.email ?? '—'}</dd>
              <dt className="text-slate-600">Linked</dt>
              <dd>{identity.linkedBy === 'jit' ? 'account made at your first sign-in' : identity.linkedBy === 'admin' ? 'by an administrator' : 'by your verified e-mail'}</dd>
              <dt className="text-slate-600">Groups that count</dt>
              <dd>{groups.length ? groups.map((g) => <code key={g} className="mr-1 rounded bg-slate-100 px-1">{g}</code>) : 'none'}</dd>
              <dt className="text-slate-600">Last confirmed</dt>
              <dd>
                {identity.lastSignInAt ? identity.syncedAt.toLocaleString() : 'not yet (sign in through the provider once)'}
                {config && identity.lastSignInAt && <span className="text-xs text-slate-600"> · confirmed again every {Math.round(config.refreshSeconds / 60) || 1} min while you use the console</span>}
              </dd>
            </dl>
          ) : (
            <p className="text-sm text-slate-600">{config ? `Your account is not linked to ${config.name}. An administrator can link it.` : 'Single sign-on is not configured on this console.'}</p>
          )}
        </section>
      </div>
    </>
  );
}
