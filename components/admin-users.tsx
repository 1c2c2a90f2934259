'use client';

import { useState, type FormEvent } from 'react';
import { runAction } from '@/lib/actions/client';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { createUserAction, signOutEverywhereAction, updateUserAction } from '@/lib/actions/admin/users-actions';
import { associateUserAction } from '@/lib/actions/admin/associate-user';
import { setOrgAdminAction } from '@/lib/actions/admin/set-org-admin';
import { dissociateUserAction } from '@/lib/actions/admin/dissociate-user';
import { Field, FormAlert } from './form-field';
import { useOptimisticToggle } from './use-optimistic-toggle';
import { ConfirmDialog, Modal } from './modal';
import { ACTIONS, DataTable, RowButton } from '@/components/data-table';

type User = { id: string; email: string; name: string; isAdmin: boolean; active: boolean; member: boolean; orgAdmin: boolean; teams: string[] };

export function AdminUsers({ users, me, org }: { users: User[]; me: string; org: string }) {
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
  // Issue 23: membership of the organization (removal asks first).
  const [removing, setRemoving] = useState<User | null>(null);
  const associate = useActionMutation((input: { userId: string }) => runAction(associateUserAction, input), { success: (u) => `Added ${u.email} to ${org}` });
  // Issue 43: the box answers at once; a refusal puts it back.
  const orgAdmin = useOptimisticToggle((v: { key: string; on: boolean }) => runAction(setOrgAdminAction, { userId: v.key, orgAdmin: v.on }), {
    scope: `org-admin:${org}`,
    success: (u) => (u.orgAdmin ? `${u.email} is now a Chef organization admin of ${org}` : `${u.email} is no longer a Chef organization admin of ${org}`),
  });
  const dissociate = useActionMutation((input: { userId: string }) => runAction(dissociateUserAction, input), {
    success: (u) => `Removed ${u.email} from ${org}`,
    then: () => setRemoving(null),
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
      <DataTable testId="users-table" columns={['User', 'Teams', 'Organization', 'Status', 'Admin', ACTIONS]} rows={users}>
        {(u) => (
          <tr key={u.email} data-user={u.email}>
            <td>
              <div className="font-medium">{u.name}</div>
              <div className="text-xs text-slate-600">{u.email}</div>
            </td>
            <td>{u.teams.join(', ') || <span className="text-slate-600">none</span>}</td>
            <td className="whitespace-nowrap">
              {u.member ? (
                <>
                  <span className="badge bg-emerald-50 text-emerald-700">member</span>{' '}
                  <RowButton aria-label={`Remove ${u.email} from organization ${org}`} disabled={dissociate.isPending} onClick={() => setRemoving(u)}>
                    Remove
                  </RowButton>
                  <label className="ml-2 inline-flex items-center gap-1 text-xs" title="Chef organization admin: the organization's admins group (manages clients and their keys, groups). Not a console administrator.">
                    <input
                      type="checkbox"
                      aria-label={`${u.email} is a Chef organization admin`}
                      checked={orgAdmin.value(u.id, u.orgAdmin)}
                      aria-busy={orgAdmin.saving(u.id, u.orgAdmin) || undefined}
                      onChange={(e) => orgAdmin.toggle({ key: u.id, on: e.target.checked })}
                    />
                    Chef organization admin
                  </label>
                </>
              ) : (
                <>
                  <span className="badge bg-amber-50 text-amber-800">{u.isAdmin ? 'not a member (admin: full access)' : 'not a member'}</span>{' '}
                  <RowButton aria-label={`Add ${u.email} to organization ${org}`} disabled={associate.isPending} onClick={() => associate.mutate({ userId: u.id })}>
                    Add
                  </RowButton>
                </>
              )}
            </td>
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
              <RowButton onClick={() => setResetFor(u.email)}>
                Reset password
              </RowButton>{' '}
              <RowButton disabled={signOutAll.isPending} onClick={() => signOutAll.mutate({ email: u.email })}>
                Sign out everywhere
              </RowButton>{' '}
              {u.email !== me && (
                <RowButton onClick={() => setConfirm({ email: u.email, active: !u.active })}>
                  {u.active ? 'Deactivate' : 'Reactivate'}
                </RowButton>
              )}
            </td>
          </tr>
        )}
      </DataTable>
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
      {removing && (
        <ConfirmDialog
          title={`Remove ${removing.email} from organization ${org}?`}
          confirmLabel="Remove"
          danger
          pending={dissociate.isPending}
          onConfirm={() => dissociate.mutate({ userId: removing.id })}
          onClose={() => setRemoving(null)}
        >
          {removing.isAdmin
            ? 'They stay an administrator, and administrators reach everything without being members.'
            : 'They keep their account and their own keys, but no longer see or change anything in the organization, in the console, the API or with Chef’s tools, until added again.'}
        </ConfirmDialog>
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
