'use client';

import { useState } from 'react';
import { runAction } from '@/lib/actions/client';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { linkIdentityAction, setTeamIdpGroupsAction, unlinkIdentityAction } from '@/lib/actions/admin/sso-actions';
import { Field, FormAlert, InlineForm } from './form-field';

/** Issue 45, Admin → Teams: the identity-provider groups whose members are this team's members (one per line). */
export function TeamIdpGroups({ team, groups }: { team: string; groups: string[] }) {
  const [editing, setEditing] = useState(false);
  const save = useActionMutation((v: { team: string; groups: string[] }) => runAction(setTeamIdpGroupsAction, v), {
    success: (r) => `${r.team}: ${r.groups.length} identity-provider group${r.groups.length === 1 ? '' : 's'}`,
    then: () => setEditing(false),
    errors: 'inline',
  });
  return (
    <div className="mb-2 text-xs text-slate-600" data-testid="team-idp-groups">
      {!editing ? (
        <p>
          Identity-provider groups:{' '}
          {groups.length ? groups.map((g) => (
            <code key={g} className="mr-1 rounded bg-slate-100 px-1">
              {g}
            </code>
          )) : 'none'}{' '}
          <button type="button" className="text-indigo-700 hover:underline" onClick={() => setEditing(true)}>
            Edit<span className="sr-only"> the identity-provider groups of {team}</span>
          </button>
        </p>
      ) : (
        <form
          aria-label={`Identity-provider groups of ${team}`}
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            const text = String(new FormData(e.currentTarget).get('groups') ?? '');
            save.mutate({ team, groups: text.split('\n').map((s) => s.trim()).filter(Boolean) });
          }}
        >
          <Field label="Identity-provider groups (one per line; members follow them at each sign-in)" name="groups" errors={save.formErrors}>
            {(c) => <textarea {...c} defaultValue={groups.join('\n')} rows={3} className="input mt-1 font-mono" />}
          </Field>
          <FormAlert errors={save.formErrors} fields={['groups']} />
          <div className="mt-1 flex gap-2">
            <button type="submit" className="btn btn-primary" disabled={save.isPending}>
              Save groups
            </button>
            <button type="button" className="btn" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </div>
  );
}

type Linked = { email: string; subject: string; linkedBy: string; status: string; lastSignInAt: string | null };

/** Issue 45, Admin → Users: accounts linked to the identity provider, and linking one by the identity's subject. */
export function IdentityLinks({ provider, linked, emails }: { provider: string; linked: Linked[]; emails: string[] }) {
  const link = useActionMutation((v: { email: string; subject: string }) => runAction(linkIdentityAction, v), { success: (r) => `Linked ${r.email}`, errors: 'inline' });
  const unlink = useActionMutation((v: { email: string }) => runAction(unlinkIdentityAction, v), { success: (r) => `Unlinked ${r.email}` });
  return (
    <section className="card mt-6 p-4" aria-labelledby="sso-links">
      <h2 id="sso-links" className="font-semibold">
        Single sign-on ({provider})
      </h2>
      <p className="mb-3 text-sm text-slate-600">An existing account is linked to a provider identity only here, or by a verified e-mail when OIDC_LINK_VERIFIED_EMAIL=true. A refused sign-in shows the person the identity to give you.</p>
      <table className="table mb-3">
        <thead>
          <tr>
            <th>Account</th>
            <th>Identity (subject)</th>
            <th>Linked by</th>
            <th>Status</th>
            <th>Last sign-in</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {linked.map((l) => (
            <tr key={l.email} data-linked={l.email}>
              <td>{l.email}</td>
              <td className="break-all font-mono text-xs">{l.subject}</td>
              <td>{l.linkedBy}</td>
              <td>{l.status}</td>
              <td>{l.lastSignInAt ? new Date(l.lastSignInAt).toLocaleString() : 'never'}</td>
              <td className="text-right">
                <button type="button" className="text-xs text-red-700 hover:underline" disabled={unlink.isPending} onClick={() => unlink.mutate({ email: l.email })}>
                  Unlink<span className="sr-only"> {l.email}</span>
                </button>
              </td>
            </tr>
          ))}
          {linked.length === 0 && (
            <tr>
              <td colSpan={6} className="text-slate-600">
                No linked accounts.
              </td>
            </tr>
          )}
        </tbody>
      </table>
      <InlineForm
        label="Link an account to a provider identity"
        className="flex flex-wrap items-start gap-3"
        submit="Link"
        pending={link.isPending}
        errors={link.formErrors}
        fields={['email', 'subject']}
        onData={(f) => link.mutate({ email: String(f.get('email') ?? ''), subject: String(f.get('subject') ?? '') })}
      >
        <Field label="Account" name="email" errors={link.formErrors}>
          {(c) => (
            <select {...c} className="input mt-1 w-56">
              {emails.map((e) => (
                <option key={e}>{e}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Identity (subject)" name="subject" errors={link.formErrors} className="flex-1">
          {(c) => <input {...c} className="input mt-1 font-mono" />}
        </Field>
      </InlineForm>
    </section>
  );
}
