'use client';

import { useState, type FormEvent } from 'react';
import { runAction } from '@/lib/actions/client';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { createUserAction, signOutEverywhereAction, updateUserAction } from '@/lib/actions/admin/users-actions';
import { Field, FormAlert } from './form-field';
import { ConfirmDialog, Modal } from './modal';

type User = { email: string; name: string; isAdmin: boolean; active: boolean; teams: string[] };

export function AdminUsers({ users, me }: { users: User[]; me: string }) {
  const [creating, setCreating] = useState(false);
  const [resetFor, setResetFor] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<{ email: string; active: boolean } | null>(null);
  const update = useActionMutation((input: { email: string; active?: boolean; isAdmin?: boolean }) => runAction(updateUserAction, input), {
    success: () => 'Saved',
    then: () => setConfirm(null),
  });
  const resetPassword = useActionMutation((input: { email: string; password: string }) => runAction(updateUserAction, input), {
    success: () => 'Password set',
    then: () => setResetFor(null),
    errors: 'inline',
  });
  const signOutAll = useActionMutation((input: { email: string }) => runAction(signOutEverywhereAction, input), { success: (u) => `Signed ${u.email} out everywhere` });
  const create = useActionMutation((input: { email: string; name: string; password: string; isAdmin: boolean }) => runAction(createUserAction, input), {
    success: (u) => `Created ${u.email}`,
    then: () => setCreating(false),
    errors: 'inline',
  });
  function onCreate(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    create.mutate({ email: String(f.get('email')), name: String(f.get('name')), password: String(f.get('password')), isAdmin: f.get('isAdmin') === 'on' });
  }
  return (
    <div className="space-y-3">
      <div className="flex justify-end">
        <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
          Add user
        </button>
      </div>
      <div className="card overflow-x-auto">
        <table className="table" data-testid="users-table">
          <thead>
            <tr>
              <th>User</th>
              <th>Teams</th>
              <th>Status</th>
              <th>Admin</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {users.map((u) => (
              <tr key={u.email} data-user={u.email}>
                <td>
                  <div className="font-medium">{u.name}</div>
                  <div className="text-xs text-slate-600">{u.email}</div>
                </td>
                <td>{u.teams.join(', ') || <span className="text-slate-600">none</span>}</td>
                <td>{u.active ? <span className="badge bg-emerald-50 text-emerald-700">active</span> : <span className="badge bg-slate-100 text-slate-600">deactivated</span>}</td>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`${u.email} is admin`}
                    checked={u.isAdmin}
                    disabled={u.email === me || update.isPending}
                    onChange={(e) => update.mutate({ email: u.email, isAdmin: e.target.checked })}
                  />
                </td>
                <td className="whitespace-nowrap text-right">
                  <button type="button" className="btn py-0.5 text-xs" onClick={() => setResetFor(u.email)}>
                    Reset password
                  </button>{' '}
                  <button type="button" className="btn py-0.5 text-xs" disabled={signOutAll.isPending} onClick={() => signOutAll.mutate({ email: u.email })}>
                    Sign out everywhere
                  </button>{' '}
                  {u.email !== me && (
                    <button type="button" className="btn py-0.5 text-xs" onClick={() => setConfirm({ email: u.email, active: !u.active })}>
                      {u.active ? 'Deactivate' : 'Reactivate'}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {creating && (
        <Modal title="Add a user" onClose={() => setCreating(false)}>
          <form onSubmit={onCreate} className="space-y-3" noValidate>
            <Field label="Email" name="email" errors={create.formErrors}>
              {(c) => <input {...c} type="email" required className="input mt-1" autoFocus />}
            </Field>
            <Field label="Name" name="name" errors={create.formErrors}>
              {(c) => <input {...c} required className="input mt-1" />}
            </Field>
            <Field label="Initial password (share it privately)" name="password" errors={create.formErrors}>
              {(c) => <input {...c} type="password" required className="input mt-1" autoComplete="new-password" />}
            </Field>
            <label className="flex items-center gap-2 text-sm">
              <input name="isAdmin" type="checkbox" /> Admin
            </label>
            <FormAlert errors={create.formErrors} fields={['email', 'name', 'password']} />
            <div className="flex justify-end gap-2">
              <button type="button" className="btn" onClick={() => setCreating(false)}>
                Cancel
              </button>
              <button type="submit" className="btn btn-primary" disabled={create.isPending}>
                Create
              </button>
            </div>
          </form>
        </Modal>
      )}
      {resetFor && (
        <Modal title={`Reset the password of ${resetFor}`} onClose={() => setResetFor(null)}>
          <form
            className="space-y-3"
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              resetPassword.mutate({ email: resetFor, password: String(new FormData(e.currentTarget).get('password')) });
            }}
          >
            <Field label="New password" name="password" errors={resetPassword.formErrors}>
              {(c) => <input {...c} type="password" required className="input mt-1" autoFocus autoComplete="new-password" />}
            </Field>
            <FormAlert errors={resetPassword.formErrors} fields={['password']} />
            <div className="flex justify-end gap-2">
              <button type="button" className="btn" onClick={() => setResetFor(null)}>
                Cancel
              </button>
              <button type="submit" className="btn btn-primary" disabled={resetPassword.isPending}>
                Set password
              </button>
            </div>
          </form>
        </Modal>
      )}
      {confirm && (
        <ConfirmDialog
          title={`${confirm.active ? 'Reactivate' : 'Deactivate'} ${confirm.email}?`}
          confirmLabel={confirm.active ? 'Reactivate' : 'Deactivate'}
          danger={!confirm.active}
          pending={update.isPending}
          onConfirm={() => update.mutate({ email: confirm.email, active: confirm.active })}
          onClose={() => setConfirm(null)}
        >
          {confirm.active ? 'They can sign in again.' : 'They can no longer sign in, and their API tokens are revoked.'}
        </ConfirmDialog>
      )}
    </div>
  );
}
