'use client';

import { useState, type ReactNode } from 'react';
import { useRouter } from 'next/navigation';
import type { CertificateTrust } from '@/lib/ops/certificate-trust';
import { connectSnippets, serverHost } from './connect-snippets';
import { runAction } from '@/lib/actions/client';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { createOwnKeyAction, deleteOwnKeyAction, expireOwnKeyAction, registerOwnKeyAction } from '@/lib/actions/chef/chef-key-actions';
import { age, dateTime } from '@/lib/format';
import { Field, InlineForm } from './form-field';
import { ConfirmDialog } from './modal';
import { SecretDialog } from './secret-dialog';
import { ACTIONS, DataTable, RowButton } from '@/components/data-table';

export interface ChefKeyRow {
  name: string;
  expiresAt: string | null;
  expired: boolean;
  createdAt: string;
  lastUsedAt: string | null;
  fingerprint: string;
}

function Snippet({ title, text, children, testId }: { title: string; text: string; children?: ReactNode; testId?: string }) {
  return (
    <div className="card p-4" data-testid={testId}>
      <div className="mb-2 flex items-center justify-between">
        <h2 className="font-medium">{title}</h2>
        <RowButton onClick={() => navigator.clipboard?.writeText(text)}>
          Copy<span className="sr-only"> {title}</span>
        </RowButton>
      </div>
      {children}
      <pre className="mono overflow-x-auto rounded bg-slate-50 p-3 text-xs text-slate-800">{text}</pre>
    </div>
  );
}

/** Issue 43: how knife and chef-client come to trust the console's certificate (shown when it speaks HTTPS). */
function CertificateTrustNote({ trust, serverUrl }: { trust: CertificateTrust | null; serverUrl: string }) {
  const host = serverHost(serverUrl);
  if (!trust?.trustPem) {
    return (
      <section className="card p-4 text-sm text-slate-700" aria-labelledby="trust-heading" data-testid="certificate-trust" data-must-trust="false">
        <h2 id="trust-heading" className="mb-1 font-medium text-slate-900">
          HTTPS certificate
        </h2>
        <p>
          {trust
            ? `This console serves HTTPS with a certificate for ${trust.subject} signed by a certificate authority; knife and chef-client accept it when their CA bundle trusts that authority.`
            : 'This console is reached over HTTPS.'}{' '}
          If knife says <span className="mono">SSL Validation failure</span> (a self-signed certificate or a private CA), trust it the Chef way: <span className="mono">knife ssl fetch</span> then{' '}
          <span className="mono">knife ssl check</span> on a workstation (it saves the certificate in <span className="mono">~/.chef/trusted_certs</span>), and the same certificate in{' '}
          <span className="mono">/etc/chef/trusted_certs</span> on each node. Keep <span className="mono">ssl_verify_mode :verify_peer</span>.
        </p>
      </section>
    );
  }
  const what = trust.selfSigned ? `a self-signed certificate for ${trust.subject}` : `a certificate for ${trust.subject} from a private certificate authority`;
  return (
    <section className="card space-y-2 p-4 text-sm text-slate-800" aria-labelledby="trust-heading" data-testid="certificate-trust" data-must-trust="true">
      <h2 id="trust-heading" className="font-medium text-slate-900">
        Trust this server&apos;s certificate first
      </h2>
      <p>
        This console serves HTTPS with {what} (TLS_CERT_FILE). knife, chef push and chef-client refuse it (&ldquo;SSL Validation failure&rdquo;) until they trust {trust.selfSigned ? 'it' : 'that authority'}; do not turn
        verification off (<span className="mono">ssl_verify_mode :verify_none</span>).
      </p>
      <ol className="list-decimal space-y-1 pl-5">
        <li>
          Workstation: <span className="mono">knife ssl fetch</span> (saves it in <span className="mono">~/.chef/trusted_certs</span>, knife&apos;s <span className="mono">trusted_certs_dir</span>), then{' '}
          <span className="mono">knife ssl check</span>.
        </li>
        <li>
          Each node, before its first chef-client run: save the certificate below as <span className="mono">/etc/chef/trusted_certs/{host}.crt</span> (client.rb&apos;s <span className="mono">trusted_certs_dir</span>), or run{' '}
          <span className="mono">knife ssl fetch -c /etc/chef/client.rb</span> there.
        </li>
        <li>
          Check that it is this server&apos;s: its SHA-256 fingerprint is <span className="mono break-all" data-testid="certificate-fingerprint">{trust.fingerprint256}</span> (
          <span className="mono">openssl x509 -noout -fingerprint -sha256 -in ~/.chef/trusted_certs/{host}.crt</span>).
        </li>
      </ol>
      <details>
        <summary className="cursor-pointer text-indigo-800">The certificate to trust ({host}.crt)</summary>
        <div className="mt-2 flex justify-end">
          <RowButton onClick={() => navigator.clipboard?.writeText(trust.trustPem!)}>
            Copy the certificate
          </RowButton>
        </div>
        <pre className="mono mt-1 overflow-x-auto rounded bg-slate-50 p-3 text-xs text-slate-800">{trust.trustPem}</pre>
      </details>
    </section>
  );
}

export function ChefConnect({
  serverUrl,
  org,
  userName,
  keys,
  validatorName,
  choices,
  stage,
  policy,
  trust,
  https,
}: {
  serverUrl: string;
  org: string;
  userName: string;
  keys: ChefKeyRow[];
  validatorName: string;
  /** The stages the reader may view, each with the policies it runs (client.rb's choice). */
  choices: { stage: string; policies: string[] }[];
  stage: string | null;
  policy: string | null;
  trust: CertificateTrust | null;
  https: boolean;
}) {
  const router = useRouter();
  // The choice is the page's URL (?stage=&policy=), so a snippet can be linked to.
  const choose = (nextStage: string, nextPolicy: string | null) => {
    const p = new URLSearchParams({ stage: nextStage, ...(nextPolicy ? { policy: nextPolicy } : {}) });
    router.replace(`/connect?${p.toString()}`, { scroll: false });
  };
  const stagePolicies = choices.find((c) => c.stage === stage)?.policies ?? [];
  const [secret, setSecret] = useState<{ name: string; key: string } | null>(null);
  const [mode, setMode] = useState<'generate' | 'upload'>('generate');
  const [deleting, setDeleting] = useState<string | null>(null);
  const create = useActionMutation((v: { name: string; expiresAt: string | null }) => runAction(createOwnKeyAction, v), { then: (r) => setSecret({ name: r.name, key: r.privateKey }), errors: 'inline' });
  const upload = useActionMutation((v: { name: string; publicKey: string; expiresAt: string | null }) => runAction(registerOwnKeyAction, v), { success: (r) => `Key '${r.name}' registered`, errors: 'inline' });
  const keyErrors = mode === 'generate' ? create.formErrors : upload.formErrors;
  const expire = useActionMutation((name: string) => runAction(expireOwnKeyAction, { name }), { success: (_r, name) => `Key '${name}' expired` });
  const remove = useActionMutation((name: string) => runAction(deleteOwnKeyAction, { name }), { success: (_r, name) => `Key '${name}' deleted`, then: () => setDeleting(null) });

  const { configRb, clientRb } = connectSnippets({ serverUrl, org, userName, validatorName, stage, policy, trust });

  return (
    <div className="space-y-5">
      {(https || trust) && <CertificateTrustNote trust={trust} serverUrl={serverUrl} />}
      <div className="grid gap-4 lg:grid-cols-2">
        <Snippet title="Workstation: ~/.chef/config.rb (knife, chef push, chef show-policy)" text={configRb} />
        <Snippet title="Nodes: /etc/chef/client.rb (chef-client in policy mode)" text={clientRb} testId="client-rb">
          {choices.length ? (
            <div className="mb-2 flex flex-wrap gap-3 text-sm">
              <label className="flex items-center gap-1.5">
                Stage (policy_group)
                <select className="input w-auto py-1" value={stage ?? ''} onChange={(e) => choose(e.target.value, (choices.find((c) => c.stage === e.target.value)?.policies.includes(policy ?? '') ? policy : null))}>
                  {choices.map((c) => (
                    <option key={c.stage} value={c.stage}>
                      {c.stage}
                    </option>
                  ))}
                </select>
              </label>
              <label className="flex items-center gap-1.5">
                Policy (policy_name)
                <select className="input w-auto py-1" value={policy ?? ''} disabled={!stagePolicies.length} onChange={(e) => stage && choose(stage, e.target.value)}>
                  {stagePolicies.length ? (
                    stagePolicies.map((p) => (
                      <option key={p} value={p}>
                        {p}
                      </option>
                    ))
                  ) : (
                    <option value="">{stage} runs no policy yet</option>
                  )}
                </select>
              </label>
            </div>
          ) : (
            <p className="mb-2 text-sm text-slate-600">You may view no stage yet: ask for access to one, then choose it here.</p>
          )}
        </Snippet>
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
        <InlineForm
          label={mode === 'generate' ? 'Generate a key pair' : 'Register a public key'}
          className="flex flex-wrap items-start gap-3"
          submit={mode === 'generate' ? 'Generate key' : 'Register key'}
          pending={create.isPending || upload.isPending}
          errors={keyErrors}
          fields={['name', 'expiresAt', 'publicKey']}
          onData={(f) => {
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
        </InlineForm>
        <DataTable testId="chef-keys" frame="mt-4 overflow-x-auto" columns={['Name', 'Fingerprint', 'Created', 'Last used', 'Expires', ACTIONS]} rows={keys} empty="No keys yet: generate one to use knife and chef push against this console.">
          {(k) => (
            <tr key={k.name}>
              <td className="font-medium">{k.name}</td>
              <td className="mono text-xs">{k.fingerprint}</td>
              <td>{dateTime(k.createdAt)}</td>
              <td>{k.lastUsedAt ? age(k.lastUsedAt) : 'never'}</td>
              <td>{k.expired ? <span className="badge bg-amber-100 text-amber-900">expired</span> : k.expiresAt ? dateTime(k.expiresAt) : 'never'}</td>
              <td className="space-x-2 text-right">
                {!k.expired && (
                  <RowButton onClick={() => expire.mutate(k.name)} disabled={expire.isPending}>
                    Expire now
                  </RowButton>
                )}
                <RowButton onClick={() => setDeleting(k.name)}>
                  Delete
                </RowButton>
              </td>
            </tr>
          )}
        </DataTable>
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
