'use client';

import { runAction } from '@/lib/actions/client';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { createWebhookAction, deleteWebhookAction, sendTestWebhookAction } from '@/lib/actions/requests/webhook-actions';

export interface NewWebhook {
  name: string;
  url: string;
  events: string[];
  secret?: string;
  slack?: boolean;
  /** Issue 29: json | slack | teams. */
  format?: 'json' | 'slack' | 'teams';
  allow_private_targets?: boolean;
}

/** Create (hands the one-time secret to `onCreated`), delete, and queue a test event. */
export function useWebhookMutations({ onCreated, onDeleted }: { onCreated?: (secret: string) => void; onDeleted?: () => void } = {}) {
  const create = useActionMutation((v: NewWebhook) => runAction(createWebhookAction, v as Parameters<typeof createWebhookAction>[0]), {
    // No toast: the secret dialog that opens says it (and a toast under the dialog's overlay cannot be read).
    then: (r) => onCreated?.(r.secret),
  });
  const remove = useActionMutation((id: string) => runAction(deleteWebhookAction, { id }), { success: () => 'Webhook deleted', then: () => onDeleted?.() });
  const test = useActionMutation((id: string) => runAction(sendTestWebhookAction, { id }), {
    success: (r) => (r.queued > 0 ? 'Test event queued: it appears in the delivery log once sent' : 'Nothing queued'),
  });
  return { create, remove, test };
}

/** The delivery page's "Send test event" button. */
export function SendTestEvent({ id }: { id: string }) {
  const { test } = useWebhookMutations();
  return (
    <button type="button" className="btn" disabled={test.isPending} onClick={() => test.mutate(id)} data-testid="send-test-event">
      {test.isPending ? 'Queueing…' : 'Send test event'}
    </button>
  );
}
