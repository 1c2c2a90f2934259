'use client';

import { useState } from 'react';
import { runAction } from '@/lib/actions/client';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { createOwnKeyAction, deleteOwnKeyAction, expireOwnKeyAction, registerOwnKeyAction } from '@/lib/actions/chef/chef-key-actions';
import { age, dateTime } from '@/lib/format';
import { Field, FormAlert } from './form-field';
import { ConfirmDialog } from './modal';
import { SecretDialog } from './secret-dialog';

export interface ChefKeyRow {
  name: string;
  expiresAt: string | null;
  expired: boolean;
  createdAt: string;
  lastUsedAt: string | null;
  fingerprint: string;
}

function Snippet({ title, text }: { title: string; text: string }) {
  return (
    <div className="card p-4">
      <div className="mb-2 flex items-center justify-between">
        <h2 className="font-medium">{title}</h2>
        <button type="button" className="btn py-0.5 text-xs" onClick={() => navigator.clipboard?.writeText(text)}>
          Copy
        </button>
      </div>
      <pre className="mono overflow-x-auto rounded bg-slate-50 p-3 text-xs text-slate-800">{text}</pre>
    </div>
  );
}

export function ChefConnect({ serverUrl, org, userName, keys, validatorName }: { serverUrl: string; org: string; userName: string; keys: ChefKeyRow[]; validatorName: string }) {
  const [secret, setSecret] = useState<{ name: string; key: string } | null>(null);
  const [mode, setMode] = useState<'generate' | 'upload'>('generate');
  const [deleting, setDeleting] = useState<string | null>(null);
  const orgUrl = `${serverUrl}/organizations/${org}`;
  const create = useActionMutation((v: { name: string; expiresAt: string | null }) => runAction(createOwnKeyAction, v), { then: (r) => setSecret({ name: r.name, key: r.privateKey }), errors: 'inline' });
  const upload = useActionMutation((v: { name: string; publicKey: string; expiresAt: string | null }) => runAction(registerOwnKeyAction, v), { success: (r) => `Key '${r.name}' registered`, errors: 'inline' });
  const keyErrors = mode === 'generate' ? create.formErrors : upload.formErrors;
  const expire = useActionMutation((name: string) => runAction(expireOwnKeyAction, { name }), { success: (_r, name) => `Key '${name}' expired` });
  const remove = useActionMutation((name: string) => runAction(deleteOwnKeyAction, { name }), { success: (_r, name) => `Key '${name}' deleted`, then: () => setDeleting(null) });

  const configRb = [`chef_server_url "${orgUrl}"`, `node_name "${userName}"`, `client_key File.join(__dir__, "${userName}.pem")`, '# optional: authentication_protocol_version "1.3"'].join('\n');
  const clientRb = [`chef_server_url "${orgUrl}"`, `validation_client_name "${validatorName}"`, `validation_key "/etc/chef/validator.pem"`, 'use_policyfile true', 'policy_group "dev"', 'policy_name "webapp"'].join('\n');

  return (
    <div className="space-y-5">
      <div className="grid gap-4 lg:grid-cols-2">
        <Snippet title="Workstation: ~/.chef/config.rb (knife, chef push, chef show-policy)" text={configRb} />
        <Snippet title="Nodes: /etc/chef/client.rb (chef-client in policy mode)" text={clientRb} />
      </div>
      <p className="text-sm text-slate-600">
        Your Chef user name is <span className="mono font-medium">{userName}</span>. Requests signed with your keys have exactly your console permissions, and the audit log records which key made them. An administrator creates the validator key (Admin → Chef clients, or <span className="mono">npm run chef:validator</span>).
      </p>

      <section className="card p-4" aria-labelledby="keys-heading">
        <h2 id="keys-heading" className="mb-3 font-medium">
          Your Chef keys
        </h2>
        <div className="mb-3 flex gap-2" role="tablist" aria-label="How to add a key">
          <button type="button" role="tab" aria-selected={mode === 'generate'} className={`btn py-0.5 text-xs ${mode === 'generate' ? 'btn-primary' : ''}`} onClick={() => setMode('generate')}>
            Generate a key pair
          </button>
          <button type="button" role="tab" aria-selected={mode === 'upload'} className={`btn py-0.5 text-xs ${mode === 'upload' ? 'btn-primary' : ''}`} onClick={() => setMode('upload')}>
            Register a public key
          </button>
        </div>
        <form
          aria-label={mode === 'generate' ? 'Generate a key pair' : 'Register a public key'}
          className="flex flex-wrap items-start gap-3"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            const f = new FormData(e.currentTarget);
            const name = String(f.get('name'));
            const exp = String(f.get('expires') ?? '');
            const expiresAt = exp ? new Date(exp + 'T00:00:00Z').toISOString() : null;
            if (mode === 'generate') create.mutate({ name, expiresAt });
            else upload.mutate({ name, publicKey: String(f.get('publicKey')), expiresAt });
          }}
        >
          <Field label="Key name" name="name" errors={keyErrors}>
            {(c) => <input {...c} required className="input mt-1 w-48" placeholder="laptop" />}
          </Field>
          <Field label="Expires on (blank: never)" name="expiresAt" errors={keyErrors}>
            {(c) => <input {...c} name="expires" type="date" className="input mt-1 w-44" />}
          </Field>
          {mode === 'upload' && (
            <Field label="Public key (PEM)" name="publicKey" errors={keyErrors} className="w-full">
              {(c) => <textarea {...c} required rows={5} className="input mono mt-1 w-full text-xs" placeholder="-----BEGIN PUBLIC KEY-----" />}
            </Field>
          )}
          <button type="submit" className="btn btn-primary mt-5" disabled={create.isPending || upload.isPending}>
            {mode === 'generate' ? 'Generate key' : 'Register key'}
          </button>
          <FormAlert errors={keyErrors} fields={['name', 'expiresAt', 'publicKey']} />
        </form>
        <div className="mt-4 overflow-x-auto">
          <table className="table" data-testid="chef-keys">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Fingerprint</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.length === 0 && (
                <tr>
                  <td colSpan={6} className="py-6 text-center text-slate-600">
                    No keys yet: generate one to use knife and chef push against this console.
                  </td>
                </tr>
              )}
              {keys.map((k) => (
                <tr key={k.name}>
                  <td className="font-medium">{k.name}</td>
                  <td className="mono text-xs">{k.fingerprint}</td>
                  <td>{dateTime(k.createdAt)}</td>
                  <td>{k.lastUsedAt ? age(k.lastUsedAt) : 'never'}</td>
                  <td>{k.expired ? <span className="badge bg-amber-100 text-amber-900">expired</span> : k.expiresAt ? dateTime(k.expiresAt) : 'never'}</td>
                  <td className="space-x-2 text-right">
                    {!k.expired && (
                      <button type="button" className="btn py-0.5 text-xs" onClick={() => expire.mutate(k.name)} disabled={expire.isPending}>
                        Expire now
                      </button>
                    )}
                    <button type="button" className="btn py-0.5 text-xs" onClick={() => setDeleting(k.name)}>
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      {secret && (
        <SecretDialog title={`Private key '${secret.name}'`} secret={secret.key} filename={`${userName}.pem`} onDone={() => setSecret(null)}>
          <p className="mt-2 text-xs text-slate-600">
            Save it as <span className="mono">~/.chef/{userName}.pem</span> (mode 0600), next to config.rb: its <span className="mono">client_key</span> names the file beside it (chef-cli does not expand <span className="mono">~</span> in key paths).
          </p>
        </SecretDialog>
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete key '${deleting}'?`}
          confirmLabel="Delete key"
          danger
          onConfirm={() => remove.mutate(deleting)}
          onClose={() => setDeleting(null)}
          pending={remove.isPending}
        >
          Tools signing with this key are refused from now on. This cannot be undone.
        </ConfirmDialog>
      )}
    </div>
  );
}
