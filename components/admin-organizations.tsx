'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { runAction } from '@/lib/actions/client';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { createOrganizationAction } from '@/lib/actions/admin/create-organization';
import { deleteOrganizationAction } from '@/lib/actions/admin/delete-organization';
import { associateUserAction } from '@/lib/actions/admin/associate-user';
import { dissociateUserAction } from '@/lib/actions/admin/dissociate-user';
import { setOrgAdminAction } from '@/lib/actions/admin/set-org-admin';
import { cancelInvitationAction } from '@/lib/actions/admin/cancel-invitation';
import { inviteUserAction } from '@/lib/actions/admin/invite-user';
import { dateTime } from '@/lib/format';
import { Field, FormAlert, InlineForm } from './form-field';
import { ConfirmDialog, Modal } from './modal';
import { SecretDialog } from './secret-dialog';
import { useOptimisticToggle } from './use-optimistic-toggle';
import { ACTIONS, DataTable, RowButton } from '@/components/data-table';

type Organization = { name: string; fullName: string; home: boolean; createdAt: string; members: number; clients: number };
type Member = { userId: string; username: string | null; email: string; displayName: string; isAdmin: boolean; orgAdmin: boolean };
type User = { id: string; email: string; name: string };
/** A pending invitation (Chef's association request): the user has not accepted it yet. */
type Invitation = { id: string; username: string; email: string; createdAt: string };
type Created = { name: string; validator: { name: string; privateKey: string } };

const PAGE = '/admin/organizations';
const orgHref = (name: string) => `${PAGE}?org=${encodeURIComponent(name)}`;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * Issue 23 (step 4): Admin → Organizations. The list (the selected one is `?org=<name>`, so it can be linked to), a
 * create form whose answer shows the validator's private key once, a delete that names what goes, and the selected
 * organization's members with add and remove (the membership actions of Admin → Users, told the organization).
 */
export function AdminOrganizations({
  superuser = true,
  organizations,
  selectedName,
  members,
  users,
  invitations,
  serverUrl,
}: {
  /** An administrator (Chef's superuser): creates and deletes organizations and adds users directly; an organization's admins invite. */
  superuser?: boolean;
  organizations: Organization[];
  selectedName: string | null;
  members: Member[] | null;
  users: User[] | null;
  /** The selected organization's pending invitations (null: none selected). */
  invitations: Invitation[] | null;
  serverUrl: string;
}) {
  const router = useRouter();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<Created | null>(null);
  const [deleting, setDeleting] = useState<Organization | null>(null);
  const selected = selectedName ? (organizations.find((o) => o.name === selectedName) ?? null) : null;

  const create = useActionMutation((input: { name: string; full_name: string }) => runAction(createOrganizationAction, input), {
    success: (r) => `Created organization ${r.name}`,
    then: (r) => (setCreating(false), setCreated(r)),
    errors: 'inline',
  });
  const remove = useActionMutation((name: string) => runAction(deleteOrganizationAction, { name }), {
    success: (r) => `Deleted organization ${r.name}`,
    then: (r) => {
      setDeleting(null);
      if (selectedName === r.name) router.replace(PAGE);
    },
  });
  function onCreate(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    create.mutate({ name: String(f.get('name') ?? '').trim(), full_name: String(f.get('full_name') ?? '') });
  }

  return (
    <div className="space-y-4">
      {superuser && (
        <div className="flex justify-end">
          <button type="button" className="btn btn-primary" onClick={() => (create.reset(), setCreating(true))}>
            New organization
          </button>
        </div>
      )}
      {selectedName && !selected && (
        <p role="alert" className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          There is no organization &lsquo;{selectedName}&rsquo;. It may have been deleted; choose one below.
        </p>
      )}
      <div className="card overflow-x-auto">
        <table className="table" data-testid="organizations-table">
          <caption className="sr-only">Organizations; choose one to see its members</caption>
          <thead>
            <tr>
              <th scope="col">Organization</th>
              <th scope="col">Full name</th>
              <th scope="col">Members</th>
              <th scope="col">Clients</th>
              <th scope="col">Created</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {organizations.map((o) => (
              <tr key={o.name} data-org={o.name} className={o.name === selectedName ? 'bg-indigo-50/60' : undefined}>
                <td className="whitespace-nowrap font-medium">
                  <Link href={orgHref(o.name)} aria-current={o.name === selectedName ? 'true' : undefined} className="text-indigo-800 underline">
                    {o.name}
                  </Link>
                  {o.home && (
                    <span className="badge ml-2 bg-indigo-50 text-indigo-800" title="This server's home organization (CHEF_ORG): it holds the policies, nodes, cookbooks, data bags and search">
                      home
                    </span>
                  )}
                </td>
                <td>{o.fullName}</td>
                <td>{o.members}</td>
                <td>{o.clients}</td>
                <td className="whitespace-nowrap">{dateTime(o.createdAt)}</td>
                <td className="whitespace-nowrap text-right">
                  {!superuser ? null : o.home ? (
                    <span className="text-xs text-slate-600">home: cannot be deleted</span>
                  ) : (
                    <RowButton aria-label={`Delete organization ${o.name}`} disabled={remove.isPending} onClick={() => setDeleting(o)}>
                      Delete
                    </RowButton>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {superuser && organizations.length <= 1 && (
          <p className="border-t border-slate-100 px-4 py-3 text-sm text-slate-600" data-testid="organizations-empty">
            Only the home organization so far. Create another one for a team or a tool that needs its own Chef clients, members and groups (its validator registers clients there).
          </p>
        )}
      </div>

      {selected ? (
        <>
          <OrganizationMembers key={selected.name} org={selected} members={members ?? []} users={users} />
          <PendingInvitations key={`inv-${selected.name}`} org={selected} invitations={invitations ?? []} />
        </>
      ) : (
        !selectedName && <p className="text-sm text-slate-600">Choose an organization to see and change its members.</p>
      )}

      {creating && (
        <Modal title="New organization" onClose={() => setCreating(false)}>
          <form onSubmit={onCreate} className="space-y-3" noValidate>
            <Field label="Name" name="name" errors={create.formErrors} hint="Lower-case letters, digits, - and _; it is in every Chef URL (/organizations/<name>) and cannot be changed.">
              {(c) => <input {...c} required maxLength={255} className="input mono mt-1" autoComplete="off" autoFocus />}
            </Field>
            <Field label="Full name" name="full_name" errors={create.formErrors}>
              {(c) => <input {...c} required maxLength={1023} className="input mt-1" autoComplete="off" />}
            </Field>
            <FormAlert errors={create.formErrors} fields={['name', 'full_name']} />
            <div className="flex justify-end gap-2">
              <button type="button" className="btn" onClick={() => setCreating(false)}>
                Cancel
              </button>
              <button type="submit" className="btn btn-primary" disabled={create.isPending}>
                {create.isPending ? 'Creating…' : 'Create organization'}
              </button>
            </div>
          </form>
        </Modal>
      )}

      {created && (
        <SecretDialog
          title={`Validator key of organization ${created.name}`}
          secret={created.validator.privateKey}
          filename={`${created.validator.name}.pem`}
          onDone={() => {
            const name = created.name;
            setCreated(null);
            router.push(orgHref(name));
          }}
        >
          <p role="note" className="mt-2 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm font-medium text-amber-900" data-testid="shown-once">
            Shown once: copy or download it now. After you close this dialog or reload the page it cannot be shown again.
          </p>
          <p className="mt-2 text-sm text-slate-600">
            The validator <span className="mono">{created.validator.name}</span> registers clients in {created.name}: <span className="mono">chef_server_url &quot;{serverUrl}/organizations/{created.name}&quot;</span>, <span className="mono">validation_client_name &quot;{created.validator.name}&quot;</span>.
          </p>
        </SecretDialog>
      )}

      {deleting && (
        <ConfirmDialog title={`Delete organization ${deleting.name}?`} confirmLabel="Delete organization" danger typeToConfirm={deleting.name} pending={remove.isPending} onConfirm={() => remove.mutate(deleting.name)} onClose={() => setDeleting(null)}>
          <p>This deletes, and cannot be undone:</p>
          <ul className="mt-1 list-disc pl-5">
            <li>its {plural(deleting.clients, 'client')} and their keys, the validator {deleting.name}-validator included: they can no longer sign in;</li>
            <li>the membership of its {plural(deleting.members, 'member')} (the users keep their accounts and their other organizations);</li>
            <li>its groups (admins, billing-admins, users, clients, public_key_read_access).</li>
          </ul>
          <p className="mt-2">Policies, nodes, cookbooks and data bags are in the home organization and stay.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}

/** The selected organization's members: add (a select of the users who are not members) and remove (asks first). */
function OrganizationMembers({ org, members, users }: { org: Organization; members: Member[]; users: User[] | null }) {
  const [removing, setRemoving] = useState<Member | null>(null);
  const [userId, setUserId] = useState('');
  const memberIds = new Set(members.map((m) => m.userId));
  const candidates = (users ?? []).filter((u) => !memberIds.has(u.id));
  const associate = useActionMutation((input: { userId: string }) => runAction(associateUserAction, { ...input, org: org.name }), {
    success: (u) => `Added ${u.email} to ${org.name}`,
    then: () => setUserId(''),
  });
  const dissociate = useActionMutation((input: { userId: string }) => runAction(dissociateUserAction, { ...input, org: org.name }), {
    success: (u) => `Removed ${u.email} from ${org.name}`,
    then: () => setRemoving(null),
  });
  // Issue 43: the box answers at once; a refusal puts it back.
  const orgAdmin = useOptimisticToggle((v: { key: string; on: boolean }) => runAction(setOrgAdminAction, { userId: v.key, orgAdmin: v.on, org: org.name }), {
    scope: `org-admin:${org.name}`,
    success: (u) => (u.orgAdmin ? `${u.email} is now a Chef organization admin of ${org.name}` : `${u.email} is no longer a Chef organization admin of ${org.name}`),
  });
  const headingId = `members-of-${org.name}`;
  return (
    <section className="card space-y-3 p-4" aria-labelledby={headingId} data-testid="organization-members">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h2 id={headingId} className="font-medium">
            Members of {org.name}
          </h2>
          <p className="text-sm text-slate-600">{org.home ? 'Members use the console, /api/v1 and the Chef routes of this organization.' : 'Members may use this organization’s Chef routes (its clients, users and groups).'} Administrators reach every organization without being members.</p>
        </div>
        {/* Adding a user directly is the administrators' (Chef's superuser); an organization's admins invite below. */}
        {users && (
        <form
          className="flex items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            if (userId) associate.mutate({ userId });
          }}
        >
          <div>
            <label htmlFor={`${headingId}-add`} className="block text-xs font-medium text-slate-600">
              Add a user
            </label>
            <select id={`${headingId}-add`} className="input mt-1" value={userId} onChange={(e) => setUserId(e.target.value)} disabled={!candidates.length}>
              <option value="">{candidates.length ? 'Choose a user…' : 'Every active user is a member'}</option>
              {candidates.map((u) => (
                <option key={u.id} value={u.id}>
                  {u.name} ({u.email})
                </option>
              ))}
            </select>
          </div>
          <button type="submit" className="btn" disabled={!userId || associate.isPending}>
            {associate.isPending ? 'Adding…' : 'Add member'}
          </button>
        </form>
        )}
      </div>
      {members.length === 0 ? (
        <p className="rounded-md bg-slate-50 px-3 py-6 text-center text-sm text-slate-600">No members yet. Add a user above.</p>
      ) : (
        <DataTable frame={null} columns={['Chef name', 'User', 'Chef organization admin', ACTIONS]} rows={members}>
          {(m) => (
            <tr key={m.userId} data-member={m.email}>
              <td className="mono">{m.username ?? <span className="text-slate-600">none</span>}</td>
              <td>
                <div className="font-medium">
                  {m.displayName}
                  {m.isAdmin && <span className="badge ml-2 bg-slate-100">administrator</span>}
                </div>
                <div className="text-xs text-slate-600">{m.email}</div>
              </td>
              <td>
                <input
                  type="checkbox"
                  aria-label={`${m.email} is a Chef organization admin of ${org.name}`}
                  title="The organization's admins group: manages its clients and their keys, its groups, and removes users. Not a console administrator."
                  checked={orgAdmin.value(m.userId, m.orgAdmin)}
                  aria-busy={orgAdmin.saving(m.userId, m.orgAdmin) || undefined}
                  onChange={(e) => orgAdmin.toggle({ key: m.userId, on: e.target.checked })}
                />
              </td>
              <td className="text-right">
                <RowButton aria-label={`Remove ${m.email} from organization ${org.name}`} disabled={dissociate.isPending} onClick={() => setRemoving(m)}>
                  Remove
                </RowButton>
              </td>
            </tr>
          )}
        </DataTable>
      )}
      {removing && (
        <ConfirmDialog
          title={`Remove ${removing.email} from organization ${org.name}?`}
          confirmLabel="Remove"
          danger
          pending={dissociate.isPending}
          onConfirm={() => dissociate.mutate({ userId: removing.userId })}
          onClose={() => setRemoving(null)}
        >
          {removing.orgAdmin
            ? `They are a Chef organization admin of ${org.name}: clear that first (Chef refuses to remove a member of the admins group).`
            : removing.isAdmin
              ? 'They stay an administrator, and administrators reach everything without being members.'
              : `They keep their account and their own keys, and lose their groups in ${org.name}: they can no longer use its Chef routes${org.home ? ', the console or the API' : ''} until added again.`}
        </ConfirmDialog>
      )}
    </section>
  );
}

/**
 * The selected organization's pending invitations (Chef's association requests: made by an org admin with
 * `POST /organizations/O/association_requests`, waiting for the user to accept), each with a Cancel that asks first.
 */
function PendingInvitations({ org, invitations }: { org: Organization; invitations: Invitation[] }) {
  const [cancelling, setCancelling] = useState<Invitation | null>(null);
  const [user, setUser] = useState('');
  const cancel = useActionMutation((id: string) => runAction(cancelInvitationAction, { id, org: org.name }), {
    success: (r) => `Cancelled the invitation of ${r.username} to ${org.name}`,
    then: () => setCancelling(null),
  });
  // Issue 43: invite from the console (as `knife org user invite`); the user accepts on any console page.
  const invite = useActionMutation((v: { user: string }) => runAction(inviteUserAction, { ...v, org: org.name }), {
    success: (r) => `Invited ${r.email} to ${org.name}: they become a member when they accept`,
    then: () => setUser(''),
    errors: 'inline',
  });
  const headingId = `invitations-of-${org.name}`;
  return (
    <section className="card space-y-3 p-4" aria-labelledby={headingId} data-testid="organization-invitations">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h2 id={headingId} className="font-medium">
            Invitations to {org.name}
          </h2>
          <p className="text-sm text-slate-600">
            Invited users see the invitation on every console page and become members when they accept (<span className="mono">knife org user add</span> invites and accepts at once).
          </p>
        </div>
        <InlineForm
          label={`Invite a user to ${org.name}`}
          className="flex flex-wrap items-start gap-2"
          primary={false}
          submit={invite.isPending ? 'Inviting…' : 'Invite'}
          pending={invite.isPending}
          errors={invite.formErrors}
          fields={['user']}
          onData={() => invite.mutate({ user: user.trim() })}
        >
          <Field label="Chef user name or e-mail" name="user" errors={invite.formErrors}>
            {(c) => <input {...c} value={user} onChange={(e) => setUser(e.target.value)} required maxLength={255} className="input mt-1 w-64" autoComplete="off" spellCheck={false} />}
          </Field>
        </InlineForm>
      </div>
      {invitations.length === 0 ? (
        <p className="rounded-md bg-slate-50 px-3 py-4 text-center text-sm text-slate-600" data-testid="no-invitations">
          No pending invitations.
        </p>
      ) : (
      <DataTable frame={null} columns={['Chef name', 'E-mail', 'Invited', ACTIONS]} rows={invitations}>
        {(i) => (
          <tr key={i.id} data-invitation={i.username}>
            <td className="mono">{i.username}</td>
            <td className="text-slate-600">{i.email}</td>
            <td>{dateTime(i.createdAt)}</td>
            <td className="text-right">
              <RowButton aria-label={`Cancel the invitation of ${i.username} to ${org.name}`} disabled={cancel.isPending} onClick={() => setCancelling(i)}>
                Cancel
              </RowButton>
            </td>
          </tr>
        )}
      </DataTable>
      )}
      {cancelling && (
        <ConfirmDialog
          title={`Cancel the invitation of ${cancelling.username} to ${org.name}?`}
          confirmLabel="Cancel invitation"
          cancelLabel="Keep it"
          danger
          pending={cancel.isPending}
          onConfirm={() => cancel.mutate(cancelling.id)}
          onClose={() => setCancelling(null)}
        >
          They can no longer accept it; an org admin may invite them again.
        </ConfirmDialog>
      )}
    </section>
  );
}
