'use client';

import { useState } from 'react';
import { toast } from 'sonner';
import { runAction } from '@/lib/actions/client';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { createTokenAction, revokeTokenAction } from '@/lib/actions/admin/users-actions';
import { dateTime } from '@/lib/format';
import { RelativeTime } from './relative-time';
import { Field, InlineForm } from './form-field';
import { ConfirmDialog, Modal } from './modal';
import { ACTIONS, DataTable, RowButton } from './data-table';

type Token = { id: string; name: string; prefix: string; owner: string; createdAt: string; lastUsedAt: string | null; expiresAt: string | null; revokedAt: string | null };

/** `forEveryUser`: the viewer creates and revokes anyone's tokens (`token.manage` for every user: administrators), so the form offers another user. */
export function AdminTokens({ tokens, forEveryUser }: { tokens: Token[]; forEveryUser: boolean }) {
  const [secret, setSecret] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<Token | null>(null);
  const create = useActionMutation((v: { name: string; userEmail?: string; expiresInDays?: number | null }) => runAction(createTokenAction, v), {
    then: (r) => setSecret(r.token),
    errors: 'inline',
  });
  const revoke = useActionMutation((id: string) => runAction(revokeTokenAction, { id }), {
    success: () => 'Token revoked',
    then: () => setRevoking(null),
  });
  return (
    <div className="space-y-4">
      <InlineForm
        label="Create an API token"
        submit="Create token"
        pending={create.isPending}
        errors={create.formErrors}
        fields={['name', 'userEmail', 'expiresInDays']}
        onData={(f) => {
          const days = String(f.get('days') ?? '');
          create.mutate({ name: String(f.get('name')), userEmail: String(f.get('user') ?? '') || undefined, expiresInDays: days ? Number(days) : null });
        }}
      >
        <Field label="Token name" name="name" errors={create.formErrors}>
          {(c) => <input {...c} required maxLength={100} className="input mt-1 w-56" placeholder="ci-pipeline" />}
        </Field>
        {forEveryUser && (
          <Field label="For user (blank: yourself)" name="userEmail" errors={create.formErrors}>
            {(c) => <input {...c} name="user" type="email" className="input mt-1 w-56" />}
          </Field>
        )}
        <Field label="Expires in days (blank: never)" name="expiresInDays" errors={create.formErrors}>
          {(c) => <input {...c} name="days" type="number" className="input mt-1 w-32" />}
        </Field>
      </InlineForm>
      <DataTable testId="tokens-table" columns={['Name', 'Token', 'Owner', 'Created', 'Last used', 'Expires', ACTIONS]} rows={tokens} empty="No tokens yet.">
        {(t) => (
          <tr key={t.id} className={t.revokedAt ? 'text-slate-600' : ''}>
            <td className="font-medium">{t.name}</td>
            <td className="mono">{t.prefix}…</td>
            <td>{t.owner}</td>
            <td>{dateTime(t.createdAt)}</td>
            <td>{t.lastUsedAt ? <RelativeTime iso={t.lastUsedAt} /> : 'never'}</td>
            <td>{t.expiresAt ? dateTime(t.expiresAt) : 'never'}</td>
            <td className="text-right">
              {t.revokedAt ? (
                <span className="badge bg-slate-100">revoked</span>
              ) : (
                <RowButton onClick={() => setRevoking(t)}>Revoke</RowButton>
              )}
            </td>
          </tr>
        )}
      </DataTable>
      {secret && (
        <Modal title="Your new API token" onClose={() => setSecret(null)} dismissible={false}>
          <p className="mb-2 text-slate-600">Copy it now: it is shown once and stored only as a hash.</p>
          <input readOnly value={secret} className="input mono" onFocus={(e) => e.currentTarget.select()} autoFocus aria-label="New token" />
          <p className="mt-2 text-xs text-slate-600">Use it as the header Authorization: Bearer &lt;token&gt;.</p>
          <div className="mt-3 flex justify-end gap-2">
            <button type="button" className="btn" onClick={() => navigator.clipboard?.writeText(secret).then(() => toast.success('Copied'))}>
              Copy
            </button>
            <button type="button" className="btn btn-primary" onClick={() => setSecret(null)}>
              I have copied it
            </button>
          </div>
        </Modal>
      )}
      {revoking && (
        <ConfirmDialog title={`Revoke ${revoking.name}?`} confirmLabel="Revoke" danger pending={revoke.isPending} onConfirm={() => revoke.mutate(revoking.id)} onClose={() => setRevoking(null)}>
          Anything using {revoking.prefix}… will get 401 from now on. This cannot be undone.
        </ConfirmDialog>
      )}
    </div>
  );
}
