'use client';

import Link from 'next/link';
import { useRef, useState } from 'react';
import { runAction } from '@/lib/actions/client';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { createTeamAction, setTeamMembershipAction } from '@/lib/actions/admin/users-actions';
import { Field, InlineForm } from './form-field';
import { ConfirmDialog } from './modal';
import { TeamIdpGroups } from './admin-sso';

type Team = { name: string; description: string; members: string[]; policies: string[]; idpGroups: string[] };

export function AdminTeams({ teams, emails }: { teams: Team[]; emails: string[] }) {
  const [removing, setRemoving] = useState<{ team: string; email: string } | null>(null);
  const membership = useActionMutation((v: { team: string; email: string; member: boolean }) => runAction(setTeamMembershipAction, v), {
    success: (_r, v) => (v.member ? `Added ${v.email} to ${v.team}` : `Removed ${v.email} from ${v.team}`),
  });
  const form = useRef<HTMLFormElement>(null);
  const create = useActionMutation((v: { name: string; description: string }) => runAction(createTeamAction, v), {
    success: (t) => `Created team ${t.name}`,
    then: () => form.current?.reset(),
    errors: 'inline',
  });
  return (
    <div className="space-y-4">
      <InlineForm
        label="Create a team"
        formRef={form}
        submit="Create team"
        pending={create.isPending}
        errors={create.formErrors}
        fields={['name', 'description']}
        onData={(f) => create.mutate({ name: String(f.get('name')), description: String(f.get('description') ?? '') })}
      >
        <Field label="New team" name="name" errors={create.formErrors}>
          {(c) => <input {...c} required className="input mt-1 w-48" />}
        </Field>
        <Field label="Description" name="description" errors={create.formErrors} className="flex-1">
          {(c) => <input {...c} className="input mt-1" />}
        </Field>
      </InlineForm>
      <div className="grid gap-4 md:grid-cols-2">
        {teams.map((t) => (
          <section key={t.name} className="card p-4" data-team={t.name}>
            <h2 className="font-semibold">{t.name}</h2>
            <p className="mb-2 text-slate-600">{t.description || 'No description.'}</p>
            <TeamIdpGroups team={t.name} groups={t.idpGroups} />
            <p className="mb-2 text-xs text-slate-600">
              Owns:{' '}
              {t.policies.length
                ? t.policies.map((p, i) => (
                    <span key={p}>
                      {i > 0 && ', '}
                      <Link className="text-indigo-700 underline" href={`/policies/${encodeURIComponent(p)}`}>
                        {p}
                      </Link>
                    </span>
                  ))
                : 'no policies'}
            </p>
            <ul className="mb-2 space-y-1">
              {t.members.map((m) => (
                <li key={m} className="flex items-center justify-between">
                  <span>{m}</span>
                  <button type="button" className="text-xs text-red-700 hover:underline" onClick={() => setRemoving({ team: t.name, email: m })}>
                    Remove<span className="sr-only"> {m} from {t.name}</span>
                  </button>
                </li>
              ))}
              {t.members.length === 0 && <li className="text-slate-600">No members.</li>}
            </ul>
            <select
              aria-label={`Add a member to ${t.name}`}
              className="input"
              value=""
              onChange={(e) => e.target.value && membership.mutate({ team: t.name, email: e.target.value, member: true })}
            >
              <option value="">Add a member…</option>
              {emails
                .filter((e) => !t.members.includes(e))
                .map((e) => (
                  <option key={e}>{e}</option>
                ))}
            </select>
          </section>
        ))}
      </div>
      {removing && (
        <ConfirmDialog
          title={`Remove ${removing.email} from ${removing.team}?`}
          confirmLabel="Remove from team"
          danger
          typeToConfirm={removing.email}
          pending={membership.isPending}
          onConfirm={() => membership.mutate({ team: removing.team, email: removing.email, member: false }, { onSettled: () => setRemoving(null) })}
          onClose={() => setRemoving(null)}
        >
          They lose every grant the team {removing.team} has, on every stage, and can no longer upload the team&apos;s policies.
        </ConfirmDialog>
      )}
    </div>
  );
}
