import type { Tx } from '@/lib/db/client';
import { processState } from '@/lib/process-state';
import { WEBHOOK_EVENTS, WEBHOOK_FORMATS } from '@/lib/validation/webhooks';

/** Events a webhook subscription can choose (issues 15 and 26; lib/validation/webhooks.ts). `test` is sent only by "send test event". */
export { WEBHOOK_EVENTS, WEBHOOK_FORMATS };
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number] | 'test';

export interface EventEnvelope {
  id: string;
  event: WebhookEvent;
  occurred_at: string;
  /** One line for humans (and the Slack-compatible `text`). */
  summary: string;
  /** Issue 29: the absolute link to the page the event is about (the promotion request), built from PUBLIC_URL. */
  url?: string;
  /** Issue 29: the change summary, one line per change (cookbooks, run list, attributes). */
  changes?: string[];
  data: Record<string, unknown>;
}

export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** Issue 29: what a chat message shows beyond the one-line summary. */
export interface EventMessage {
  title: string;
  /** An absolute link (see absoluteUrl) and the words of its button. */
  link?: { url: string; label: string };
  /** Name / value pairs: stage, policy, from → to, approvals… */
  facts?: [string, string][];
  /** The change summary, one line per change. */
  changes?: string[];
}

/** The format a subscription row asks for (rows from before issue 29 carry only `slack`). */
export function formatOf(row: { format?: string | null; slack?: boolean | null }): WebhookFormat {
  if (row.format === 'slack' || row.format === 'teams') return row.format;
  return row.slack ? 'slack' : 'json';
}

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * Issue 29: markdown's control characters escaped for Teams (Adaptive Card text is markdown), so text
 * from users cannot disguise a link as `[harmless](https://evil)`, restyle the card, or start list items
 * of its own (`- Approved by …`, `1. …` at the start of a line). `&` too, so an entity such as `&lt;` shows
 * as typed. Only ASCII punctuation is escaped (CommonMark's rule), and `-` and `.` only where they would
 * make a list, so names such as `web-app` or `1.2.3` read as they are.
 */
export function teamsEscape(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+!|<>~&]/g, (c) => `\\${c}`).replace(/^([ \t]*)(-|\d+\.)(?=[ \t]|$)/gm, (_m, indent: string, marker: string) => `${indent}${marker === '-' ? '\\-' : `${marker.slice(0, -1)}\\.`}`);
}

/**
 * The exact body a subscription receives: the envelope (json); Slack's `{ text, blocks }` (an incoming
 * webhook: `text` is the notification's fallback, `blocks` the message with its facts, the change summary
 * and a button to the request); or a Teams message carrying an Adaptive Card (a Workflows / incoming
 * webhook). Everything from users is escaped for the target's markup. `true`/`false` are the pre-issue-29
 * Slack flag.
 */
export function webhookBody(envelope: EventEnvelope, format: WebhookFormat | boolean, message?: EventMessage): string {
  const f: WebhookFormat = format === true ? 'slack' : format === false ? 'json' : format;
  const m: EventMessage = message ?? { title: envelope.summary };
  const facts = (m.facts ?? []).slice(0, 10);
  const changes = m.changes ?? envelope.changes ?? [];
  if (f === 'slack') {
    const blocks: Record<string, unknown>[] = [
      { type: 'header', text: { type: 'plain_text', text: cut(m.title, 150), emoji: false } },
      { type: 'section', text: { type: 'mrkdwn', text: cut(slackEscape(envelope.summary), 3000) } },
    ];
    if (facts.length) blocks.push({ type: 'section', fields: facts.map(([k, v]) => ({ type: 'mrkdwn', text: cut(`*${slackEscape(k)}*\n${slackEscape(v)}`, 2000) })) });
    if (changes.length) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: cut(`*Changes*\n${changes.map((c) => `• ${slackEscape(c)}`).join('\n')}`, 3000) } });
    if (m.link) blocks.push({ type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: cut(m.link.label, 75) }, url: m.link.url }] });
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `policy-console · ${envelope.event} · ${envelope.occurred_at}` }] });
    return JSON.stringify({ text: `[policy-console] ${slackEscape(envelope.summary)}`, blocks });
  }
  if (f === 'teams') {
    const body: Record<string, unknown>[] = [
      { type: 'TextBlock', size: 'Medium', weight: 'Bolder', text: teamsEscape(cut(m.title, 150)), wrap: true },
      { type: 'TextBlock', text: teamsEscape(cut(envelope.summary, 3000)), wrap: true },
    ];
    // Bounded like Slack's blocks (cut before escaping, so an escape is never split), well inside Teams' message size.
    if (facts.length) body.push({ type: 'FactSet', facts: facts.map(([title, value]) => ({ title: teamsEscape(cut(title, 100)), value: teamsEscape(cut(value, 2000)) })) });
    if (changes.length) body.push({ type: 'TextBlock', text: changes.map((c) => `- ${teamsEscape(cut(c, 300))}`).join('\n'), wrap: true });
    body.push({ type: 'TextBlock', text: teamsEscape(`policy-console · ${envelope.event} · ${envelope.occurred_at}`), isSubtle: true, size: 'Small', wrap: true });
    const card = {
      $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
      type: 'AdaptiveCard',
      version: '1.4',
      body,
      ...(m.link ? { actions: [{ type: 'Action.OpenUrl', title: m.link.label, url: m.link.url }] } : {}),
    };
    return JSON.stringify({ type: 'message', summary: cut(envelope.summary, 200), attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: card }] });
  }
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

/** The last delivery id's millisecond and its counter: one per process (issue 40: process state, not module state). */
const idClock = processState('outbox.delivery-id', () => ({ lastMs: 0, seq: 0 }));

/**
 * Issue 43: a delivery id that orders by creation (a UUIDv7: 48 bits of milliseconds, then a counter within the
 * millisecond, then random bits), so the events of one change — written in one transaction with one time — go out in
 * the order they were written (the worker sends due rows in id order), and still look like the UUIDs receivers
 * de-duplicate on.
 */
export function deliveryId(now = Date.now()): string {
  const c = idClock;
  if (now <= c.lastMs) c.seq++;
  else {
    c.lastMs = now;
    c.seq = 0;
  }
  if (c.seq > 0xfff) {
    // More than 4096 in one millisecond: borrow the next millisecond (the order still holds).
    c.lastMs++;
    c.seq = 0;
  }
  const ms = c.lastMs.toString(16).padStart(12, '0');
  const rand = crypto.getRandomValues(new Uint8Array(8));
  const counter = (c.seq & 0xfff).toString(16).padStart(3, '0');
  const variant = ((rand[0] & 0x3f) | 0x80).toString(16).padStart(2, '0');
  const tail = [...rand.slice(1)].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${ms.slice(0, 8)}-${ms.slice(8, 12)}-7${counter}-${variant}${tail.slice(0, 2)}-${tail.slice(2, 14)}`;
}

/**
 * Writes the event to the outbox inside the caller's transaction: one
 * delivery row per active subscription that chose the event, so the event is
 * delivered if and only if the change commits. `dedupeKey` makes an event
 * that several instances may discover (a freeze occurrence starting) go out
 * once: the unique key decides.
 */
export async function emitEvent(
  tx: Tx,
  event: WebhookEvent,
  summary: string,
  data: Record<string, unknown>,
  opts: { at?: Date; dedupeKey?: string; onlySubscriptionId?: string; message?: EventMessage } = {},
): Promise<number> {
  const subs = await tx.webhookSubscription.findMany({
    where: { active: true, ...(opts.onlySubscriptionId ? { id: opts.onlySubscriptionId } : {}) },
    select: { id: true, events: true, slack: true, format: true },
  });
  const message = opts.message;
  const at = opts.at ?? new Date();
  let n = 0;
  for (const s of subs) {
    if (event !== 'test' && !(JSON.parse(s.events) as string[]).includes(event)) continue;
    const id = deliveryId();
    const envelope: EventEnvelope = { id, event, occurred_at: at.toISOString(), summary, ...(message?.link ? { url: message.link.url } : {}), ...(message?.changes?.length ? { changes: message.changes } : {}), data };
    const dedupeKey = opts.dedupeKey ? `${opts.dedupeKey}:${s.id}` : null;
    if (dedupeKey && (await tx.webhookDelivery.findUnique({ where: { dedupeKey }, select: { id: true } }))) continue;
    await tx.webhookDelivery.create({
      data: { id, subscriptionId: s.id, event, payload: webhookBody(envelope, formatOf(s), message), status: 'pending', nextAttemptAt: at, dedupeKey, createdAt: at },
    });
    n++;
  }
  return n;
}

/** The console's public base URL for links (PUBLIC_URL, else NEXTAUTH_URL), or '' for relative links. */
export function publicBaseUrl(): string {
  return (process.env.PUBLIC_URL || process.env.NEXTAUTH_URL || '').replace(/\/+$/, '');
}

/**
 * Issue 29: an absolute link for notifications (webhooks, Slack, Teams), which have no page to be
 * relative to: PUBLIC_URL (else NEXTAUTH_URL), else this server's own address (http://localhost:PORT),
 * which only works on this machine — set PUBLIC_URL.
 */
export function absoluteUrl(path: string): string {
  const base = publicBaseUrl() || `http://localhost:${process.env.PORT || '3000'}`;
  return `${base}${path.startsWith('/') ? path : `/${path}`}`;
}
