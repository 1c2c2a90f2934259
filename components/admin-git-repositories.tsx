'use client';

import { useRef } from 'react';
import { runAction } from '@/lib/actions/client';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { deleteGitRepositoryAction, registerGitRepositoryAction } from '@/lib/actions/admin/git-repository-actions';
import { Field, InlineForm } from './form-field';
import { Time } from './time';
import { ACTIONS, DataTable, RowButton } from '@/components/data-table';

type Repo = { name: string; url: string; username: string | null; hasSecret: boolean; createdAt: string; createdBy: string | null };

/** Admin: the git repositories compose may read includes from. Secrets are write-only. */
export function AdminGitRepositories({ repositories, localRoot }: { repositories: Repo[]; localRoot: boolean }) {
  const form = useRef<HTMLFormElement>(null);
  const register = useActionMutation((v: { name: string; url: string; username?: string; secret?: string }) => runAction(registerGitRepositoryAction, v), {
    success: (r) => (r.created ? `Registered ${r.name}` : `Updated ${r.name}`),
    then: () => form.current?.reset(),
    errors: 'inline',
  });
  const remove = useActionMutation((v: { name: string }) => runAction(deleteGitRepositoryAction, v), { success: (r) => `Removed ${r.name}` });
  return (
    <div className="space-y-4">
      <InlineForm
        label="Register a git repository"
        formRef={form}
        submit="Register"
        pending={register.isPending}
        errors={register.formErrors}
        fields={['name', 'url', 'username', 'secret']}
        onData={(f) => {
          const username = String(f.get('username') ?? '');
          const secret = String(f.get('secret') ?? '');
          register.mutate({ name: String(f.get('name')), url: String(f.get('url')), ...(username ? { username } : {}), ...(secret ? { secret } : {}) });
        }}
      >
        <Field label="Name (what compose uses)" name="name" errors={register.formErrors}>
          {(c) => <input {...c} required className="input mt-1 w-48" />}
        </Field>
        <Field label={localRoot ? 'https URL, or a path below GIT_LOCAL_ROOT' : 'https URL'} name="url" errors={register.formErrors} className="flex-1">
          {(c) => <input {...c} required className="input mt-1" placeholder="https://git.example.com/chef/policies.git" />}
        </Field>
        <Field label="Username (optional)" name="username" errors={register.formErrors}>
          {(c) => <input {...c} className="input mt-1 w-36" autoComplete="off" />}
        </Field>
        <Field label="Password or token (optional, stored encrypted)" name="secret" errors={register.formErrors}>
          {(c) => <input {...c} type="password" className="input mt-1 w-48" autoComplete="new-password" />}
        </Field>
      </InlineForm>
      <DataTable columns={['Name', 'Location', 'Credentials', 'Registered', ACTIONS]} rows={repositories} empty="No repositories registered: compose cannot read git includes until an admin registers one.">
        {(r) => (
          <tr key={r.name}>
            <td className="font-mono">{r.name}</td>
            <td className="break-all font-mono text-xs">{r.url}</td>
            <td>{r.hasSecret ? `${r.username ?? 'git'} / ••••••` : 'none'}</td>
            <td className="text-xs text-slate-500">
              <Time iso={r.createdAt} />
              {r.createdBy ? ` by ${r.createdBy}` : ''}
            </td>
            <td className="text-right">
              <RowButton disabled={remove.isPending} onClick={() => remove.mutate({ name: r.name })}>
                Remove
              </RowButton>
            </td>
          </tr>
        )}
      </DataTable>
    </div>
  );
}
