'use client';

import Link from 'next/link';
import { useState } from 'react';
import { runAction } from '@/lib/actions/client';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { deleteClientAction, rotateValidatorAction } from '@/lib/actions/chef/chef-key-actions';
import { age, dateTime } from '@/lib/format';
import { ConfirmDialog } from './modal';
import { SecretDialog } from './secret-dialog';
import { ACTIONS, DataTable, RowButton } from './data-table';

type Client = { name: string; validator: boolean; createdAt: string; lastSeenAt: string | null; hasNode: boolean; keys: { name: string; fingerprint: string; expiresAt: string | null; lastUsedAt: string | null }[] };

export function ChefClients({ clients, validatorName }: { clients: Client[]; validatorName: string }) {
  const [secret, setSecret] = useState<string | null>(null);
  const [confirmRotate, setConfirmRotate] = useState(false);
  const [deleting, setDeleting] = useState<string | null>(null);
  const validator = clients.find((c) => c.validator && c.name === validatorName);
  const rotate = useActionMutation(() => runAction(rotateValidatorAction, {}), { then: (r) => (setConfirmRotate(false), setSecret(r.privateKey)) });
  const remove = useActionMutation((name: string) => runAction(deleteClientAction, { name }), { success: (_r, name) => `Client '${name}' deleted`, then: () => setDeleting(null) });
  return (
    <div className="space-y-4">
      <section className="card flex flex-wrap items-center justify-between gap-3 p-4" aria-label="Validator">
        <div>
          <h2 className="font-medium">Validator {validatorName}</h2>
          <p className="text-sm text-slate-600">
            {validator ? `Created ${dateTime(validator.createdAt)}; last used ${validator.lastSeenAt ? age(validator.lastSeenAt) : 'never'}.` : 'Not created yet: nodes cannot register themselves until it exists.'} Its only right is registering new clients.
          </p>
        </div>
        <button type="button" className="btn btn-primary" onClick={() => (validator ? setConfirmRotate(true) : rotate.mutate(undefined))} disabled={rotate.isPending}>
          {validator ? 'Rotate validator key' : 'Create validator'}
        </button>
      </section>
      <DataTable testId="chef-clients" columns={['Client', 'Keys', 'Registered', 'Last seen', ACTIONS]} rows={clients} empty="No clients yet. Nodes register on their first chef-client run.">
        {(c) => (
          <tr key={c.name}>
            <td className="font-medium">
              {c.hasNode ? <Link href={`/nodes/${encodeURIComponent(c.name)}`} className="text-indigo-800 underline">{c.name}</Link> : c.name}
              {c.validator && <span className="badge ml-2 bg-slate-100">validator</span>}
            </td>
            <td className="mono text-xs">{c.keys.length ? c.keys.map((k) => `${k.name} ${k.fingerprint}`).join(', ') : 'none'}</td>
            <td>{dateTime(c.createdAt)}</td>
            <td>{c.lastSeenAt ? age(c.lastSeenAt) : 'never'}</td>
            <td className="text-right">
              <RowButton onClick={() => setDeleting(c.name)}>Delete</RowButton>
            </td>
          </tr>
        )}
      </DataTable>
      {confirmRotate && (
        <ConfirmDialog title="Rotate the validator key?" confirmLabel="Rotate key" danger onConfirm={() => rotate.mutate(undefined)} onClose={() => setConfirmRotate(false)} pending={rotate.isPending}>
          The current validator key stops working at once: nodes not yet registered need the new key in /etc/chef/validator.pem. Registered nodes keep their own keys.
        </ConfirmDialog>
      )}
      {deleting && (
        <ConfirmDialog title={`Delete client '${deleting}'?`} confirmLabel="Delete client" danger onConfirm={() => remove.mutate(deleting)} onClose={() => setDeleting(null)} pending={remove.isPending}>
          Its keys are deleted with it: that node can no longer fetch its policy until it registers again. Its node object stays.
        </ConfirmDialog>
      )}
      {secret && <SecretDialog title="Validator private key" secret={secret} filename="validator.pem" onDone={() => setSecret(null)} />}
    </div>
  );
}
