'use client';

import Link from 'next/link';
import { useState } from 'react';
import { toast } from 'sonner';
import type { WebhookDto } from '@/lib/types/guards';
import { dateTime } from '@/lib/format';
import { ConfirmDialog, Modal } from './modal';
import { useWebhookMutations } from './webhook-mutations';
import { ACTIONS, DataTable, RowButton } from './data-table';

const EVENT_LABEL: Record<string, string> = {
  'request.opened': 'Request opened',
  'request.approved': 'Request approved',
  'request.rejected': 'Request rejected',
  'request.applied': 'Request applied',
  'request.outdated': 'Request outdated',
  'promotion.applied': 'Promotion applied',
  'freeze.started': 'Freeze started',
  'freeze.overridden': 'Freeze overridden',
  'revision.marked_bad': 'Revision marked bad',
};
export const eventLabel = (e: string) => EVENT_LABEL[e] ?? e;

/** Webhook subscriptions: list, create (secret shown once), delete with confirmation; each links to its delivery log. */
export function AdminWebhooks({ webhooks, events }: { webhooks: WebhookDto[]; events: string[] }) {
  const [secret, setSecret] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<WebhookDto | null>(null);
  const { create, remove, test } = useWebhookMutations({ onCreated: (s) => setSecret(s), onDeleted: () => setDeleting(null) });
  return (
    <div className="space-y-4">
      <form
        className="card space-y-3 p-4"
        aria-label="New webhook"
        onSubmit={(e) => {
          e.preventDefault();
          const form = e.currentTarget;
          const f = new FormData(form);
          const chosen = events.filter((ev) => f.get(`event:${ev}`) === 'on');
          if (chosen.length === 0) return void toast.error('Choose at least one event.');
          create.mutateAsync({ name: String(f.get('name') ?? '').trim(), url: String(f.get('url')), events: chosen, secret: String(f.get('secret') ?? '') || undefined, format: (String(f.get('format') ?? 'json') as 'json' | 'slack' | 'teams'), allow_private_targets: f.get('allow_private_targets') === 'on' }).then(
            () => form.reset(),
            () => undefined,
          );
        }}
      >
        <h2 className="font-semibold">New webhook</h2>
        <div className="flex flex-wrap items-end gap-3">
          <label className="flex flex-col text-xs font-medium text-slate-600">
            Name
            <input name="name" required maxLength={100} className="input mt-1 w-48" placeholder="release channel" />
          </label>
          <label className="flex min-w-72 flex-1 flex-col text-xs font-medium text-slate-600">
            URL (http or https)
            <input name="url" type="url" required pattern="https?://.+" className="input mt-1" placeholder="https://hooks.example.com/policy-console" />
          </label>
          <label className="flex flex-col text-xs font-medium text-slate-600">
            Secret (blank: generate one)
            <input name="secret" type="password" autoComplete="new-password" minLength={16} maxLength={200} className="input mt-1 w-56" />
          </label>
        </div>
        <fieldset>
          <legend className="mb-1 text-xs font-semibold uppercase text-slate-600">Events</legend>
          <div className="flex flex-wrap gap-x-4 gap-y-1">
            {events.map((ev) => (
              <label key={ev} className="flex items-center gap-1.5 text-sm">
                <input type="checkbox" name={`event:${ev}`} defaultChecked /> {eventLabel(ev)} <span className="mono text-xs text-slate-600">{ev}</span>
              </label>
            ))}
          </div>
        </fieldset>
        <label className="flex flex-col text-xs font-medium text-slate-600">
          Body format
          <select name="format" defaultValue="json" className="input mt-1 w-96 max-w-full">
            <option value="json">JSON envelope (signed; with the request&apos;s absolute link and change summary)</option>
            <option value="slack">Slack (incoming webhook: text and blocks)</option>
            <option value="teams">Microsoft Teams (Workflows webhook: an Adaptive Card)</option>
          </select>
        </label>
        <label className="flex items-center gap-1.5 text-sm">
          <input type="checkbox" name="allow_private_targets" /> Allow a loopback, link-local or private-network target (refused otherwise)
        </label>
        <button type="submit" className="btn btn-primary" disabled={create.isPending}>
          Create webhook
        </button>
      </form>
      <DataTable testId="webhooks-table" columns={['Webhook', 'Events', 'Last delivery', ACTIONS]} rows={webhooks} empty="No webhooks yet.">
        {(w) => (
          <tr key={w.id} data-webhook={w.name}>
            <td className="max-w-sm">
              <Link href={`/admin/webhooks/${encodeURIComponent(w.id)}`} className="font-medium text-indigo-700 underline-offset-2 hover:underline">
                {w.name || w.url}
              </Link>
              <div className="mono break-all text-xs text-slate-600">{w.url}</div>
              {w.format !== 'json' && <span className="badge bg-slate-100 text-slate-700">{w.format === 'slack' ? 'Slack' : 'Teams'} format</span>}
            </td>
            <td className="text-xs text-slate-700">{w.events.map(eventLabel).join(', ')}</td>
            <td className="text-xs text-slate-700">
              {w.last_delivery ? (
                <>
                  {w.last_delivery.status}
                  {w.last_delivery.status_code !== null && ` (HTTP ${w.last_delivery.status_code})`} · {eventLabel(w.last_delivery.event)} · {dateTime(w.last_delivery.at)}
                </>
              ) : (
                'none yet'
              )}
              {w.counts.pending > 0 && <div>{w.counts.pending} waiting to be sent</div>}
              {w.counts.failed > 0 && <div className="text-red-700">{w.counts.failed} gave up after retries</div>}
            </td>
            <td className="whitespace-nowrap text-right">
              <RowButton disabled={test.isPending} onClick={() => test.mutate(w.id)}>
                Send test event<span className="sr-only"> to {w.name || w.url}</span>
              </RowButton>{' '}
              <RowButton onClick={() => setDeleting(w)}>
                Delete…<span className="sr-only"> {w.name || w.url}</span>
              </RowButton>
            </td>
          </tr>
        )}
      </DataTable>
      {deleting && (
        <ConfirmDialog title={`Delete the webhook ${deleting.name || deleting.url}?`} confirmLabel="Delete webhook" danger pending={remove.isPending} onConfirm={() => remove.mutate(deleting.id)} onClose={() => setDeleting(null)}>
          No more events are sent to {deleting.url}; its delivery log is deleted with it.
        </ConfirmDialog>
      )}
      {secret && (
        <Modal title="Webhook created: its signing secret" onClose={() => toast.info('Copy the secret first, then choose “I have saved it”.')} dismissible={false}>
          <p className="mb-2 text-slate-700">
            Receivers check <span className="mono">X-Policy-Console-Signature: sha256=…</span>, the HMAC-SHA256 of the raw body with this secret. It is shown only now.
          </p>
          <input readOnly value={secret} className="input mono" aria-label="Signing secret" onFocus={(e) => e.currentTarget.select()} data-testid="webhook-secret" />
          <div className="mt-3 flex justify-end gap-2">
            <button type="button" className="btn" onClick={() => navigator.clipboard?.writeText(secret).then(() => toast.success('Copied'))}>
              Copy
            </button>
            <button type="button" className="btn btn-primary" onClick={() => setSecret(null)}>
              I have saved it
            </button>
          </div>
        </Modal>
      )}
    </div>
  );
}
