import type { Tx } from '@/lib/db/client';
import { WEBHOOK_EVENT_NAMES } from '@/lib/domain/approval/events';
import { ROLLOUT_EVENT_NAMES } from '@/lib/domain/rollout/events';

/** Events a webhook subscription can choose (issues 15 and 26). `test` is sent only by "send test event". */
export const WEBHOOK_EVENTS = [...WEBHOOK_EVENT_NAMES, ...ROLLOUT_EVENT_NAMES] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number] | 'test';

export interface EventEnvelope {
  id: string;
  event: WebhookEvent;
  occurred_at: string;
  /** One line for humans (and the Slack-compatible `text`). */
  summary: string;
  data: Record<string, unknown>;
}

/** The exact body a subscription receives: the envelope, or Slack's `{ text }`. */
export function webhookBody(envelope: EventEnvelope, slack: boolean): string {
  if (slack) return JSON.stringify({ text: `[policy-console] ${slackEscape(envelope.summary)}` });
  return JSON.stringify(envelope);
}

/**
 * Issue 28: Slack's control characters escaped (its own rule: `&`, `<`, `>`),
 * so text from users (a bad-revision reason, a comment) cannot mention
 * `<!channel>`, `<@user>` or disguise a link as `<https://evil|harmless>`.
 */
export function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Writes the event to the outbox inside the caller's transaction: one
 * delivery row per active subscription that chose the event, so the event is
 * delivered if and only if the change commits. `dedupeKey` makes an event
 * that several instances may discover (a freeze occurrence starting) go out
 * once: the unique key decides.
 */
export async function emitEvent(tx: Tx, event: WebhookEvent, summary: string, data: Record<string, unknown>, opts: { at?: Date; dedupeKey?: string; onlySubscriptionId?: string } = {}): Promise<number> {
  const subs = await tx.webhookSubscription.findMany({
    where: { active: true, ...(opts.onlySubscriptionId ? { id: opts.onlySubscriptionId } : {}) },
    select: { id: true, events: true, slack: true },
  });
  const at = opts.at ?? new Date();
  let n = 0;
  for (const s of subs) {
    if (event !== 'test' && !(JSON.parse(s.events) as string[]).includes(event)) continue;
    const id = crypto.randomUUID();
    const envelope: EventEnvelope = { id, event, occurred_at: at.toISOString(), summary, data };
    const dedupeKey = opts.dedupeKey ? `${opts.dedupeKey}:${s.id}` : null;
    if (dedupeKey && (await tx.webhookDelivery.findUnique({ where: { dedupeKey }, select: { id: true } }))) continue;
    await tx.webhookDelivery.create({
      data: { id, subscriptionId: s.id, event, payload: webhookBody(envelope, s.slack), status: 'pending', nextAttemptAt: at, dedupeKey, createdAt: at },
    });
    n++;
  }
  return n;
}

/** The console's public base URL for links in messages (NEXTAUTH_URL, else PUBLIC_URL), or '' for relative links. */
export function publicBaseUrl(): string {
  return (process.env.NEXTAUTH_URL || process.env.PUBLIC_URL || '').replace(/\/+$/, '');
}
