/**
 * Webhook subscriptions (issue 15), admin only: a URL (http/https, an
 * admin-registered receiver, so the server may call it), the events it
 * wants, a secret for the `X-Policy-Console-Signature: sha256=<hmac>` header
 * (HMAC-SHA256 of the raw body), optionally Slack-compatible `{ text }`
 * bodies. Events reach the outbox in the transaction of the change; the
 * worker (lib/services/webhooks/worker.ts) delivers them.
 */
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { db } from '@/lib/db/client';
import { processBox } from '@/lib/process-state';
import { assertCan, type Access } from '@/lib/auth/permissions';
import { badRequest, notFound } from '@/lib/errors';
import { audit, emitEvent, formatOf, checkTargetUrl } from '@/lib/services/funnel';
import { encryptSecret } from '@/lib/auth/secret-box';
import type { ZCreateWebhook } from '@/lib/validation/webhooks';

export { WEBHOOK_EVENTS } from '@/lib/services/funnel';
export type { WebhookEvent, WebhookFormat } from '@/lib/services/funnel';
export { WEBHOOK_FORMATS } from '@/lib/services/funnel';

import type { WebhookDeliveryDto, WebhookDto } from '@/lib/types/guards';

export type { WebhookDeliveryDto, WebhookDto } from '@/lib/types/guards';

/** The input's one definition (parsed at the caller's edge: the action, the API contract, whose body it is); the URL rules below are checked here. */
export { ZCreateWebhook } from '@/lib/validation/webhooks';
export type CreateWebhookInput = z.output<typeof ZCreateWebhook>;

/** http(s) only, no credentials in the URL, a host; a literal private address or localhost only when allowed (issue 47: the one rule, net-guard.ts). */
const checkUrl = (raw: string, allowPrivate = false) => checkTargetUrl(raw, allowPrivate, { path: '/url', allowField: 'allow_private_targets', credentials: 'the signature authenticates the console' });

type Row = { id: string; name: string; url: string; events: string; slack: boolean; format: string; allowPrivateTargets: boolean; active: boolean; createdByEmail: string | null; createdAt: Date };

async function toDtos(rows: Row[]): Promise<WebhookDto[]> {
  if (!rows.length) return [];
  const client = db();
  const ids = rows.map((r) => r.id);
  const [counts, last, newest] = await Promise.all([
    client.webhookDelivery.groupBy({ by: ['subscriptionId', 'status'], where: { subscriptionId: { in: ids } }, _count: { _all: true } }),
    Promise.all(ids.map((id) => client.webhookAttempt.findFirst({ where: { subscriptionId: id }, orderBy: { createdAt: 'desc' }, select: { createdAt: true, statusCode: true, error: true } }))),
    Promise.all(ids.map((id) => client.webhookDelivery.findFirst({ where: { subscriptionId: id }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], select: { event: true, status: true, lastStatusCode: true, createdAt: true } }))),
  ]);
  return rows.map((r, i) => {
    const c = (s: string) => counts.find((x) => x.subscriptionId === r.id && x.status === s)?._count._all ?? 0;
    const l = last[i];
    const d = newest[i];
    return {
      id: r.id,
      name: r.name,
      url: r.url,
      events: JSON.parse(r.events) as string[],
      slack: formatOf(r) === 'slack',
      format: formatOf(r),
      allow_private_targets: r.allowPrivateTargets,
      active: r.active,
      created_by: r.createdByEmail,
      created_at: r.createdAt.toISOString(),
      counts: { pending: c('pending'), delivered: c('delivered'), failed: c('failed') },
      last_attempt: l ? { at: l.createdAt.toISOString(), status_code: l.statusCode, error: l.error } : null,
      last_delivery: d ? { event: d.event, status: d.status, status_code: d.lastStatusCode, at: d.createdAt.toISOString() } : null,
    };
  });
}

export async function listWebhooks(access: Access): Promise<WebhookDto[]> {
  assertCan(access, 'webhooks.manage');
  return toDtos(await db().webhookSubscription.findMany({ orderBy: { createdAt: 'asc' } }));
}

export async function getWebhook(access: Access, id: string): Promise<WebhookDto> {
  assertCan(access, 'webhooks.manage');
  const row = await db().webhookSubscription.findUnique({ where: { id } });
  if (!row) throw notFound(`Cannot find webhook '${id}'`);
  return (await toDtos([row]))[0];
}

/** Admin: registers a subscription. The secret is returned once, here, and never again. */
export async function createWebhook(access: Access, input: CreateWebhookInput, requestId?: string): Promise<{ webhook: WebhookDto; secret: string }> {
  assertCan(access, 'webhooks.manage');
  const url = checkUrl(input.url, !!input.allow_private_targets);
  const secret = input.secret ?? randomBytes(24).toString('base64url');
  const format = input.format ?? (input.slack ? 'slack' : 'json');
  const row = await db().$transaction(async (tx) => {
    const created = await tx.webhookSubscription.create({
      data: { name: input.name, url, events: JSON.stringify([...new Set(input.events)]), secretEnc: encryptSecret(secret), slack: format === 'slack', format, allowPrivateTargets: !!input.allow_private_targets, createdById: access.userId, createdByEmail: access.email },
    });
    // The audit event records where and what, never the secret.
    await audit(tx, access, { action: 'webhook.create', targetType: 'webhook', target: created.id, after: { name: input.name, url, events: input.events, format, allow_private_targets: !!input.allow_private_targets }, requestId });
    return created;
  });
  return { webhook: (await toDtos([row]))[0], secret };
}

export async function deleteWebhook(access: Access, id: string, requestId?: string): Promise<{ deleted: true }> {
  assertCan(access, 'webhooks.manage');
  return db().$transaction(async (tx) => {
    const row = await tx.webhookSubscription.findUnique({ where: { id } });
    if (!row) throw notFound(`Cannot find webhook '${id}'`);
    await tx.webhookSubscription.delete({ where: { id } });
    await audit(tx, access, { action: 'webhook.delete', targetType: 'webhook', target: id, before: { name: row.name, url: row.url, events: JSON.parse(row.events) }, requestId });
    return { deleted: true as const };
  });
}

/** The delivery log of one subscription, newest first. */
export async function listWebhookDeliveries(access: Access, id: string, limit = 100): Promise<WebhookDeliveryDto[]> {
  assertCan(access, 'webhooks.manage');
  const client = db();
  if (!(await client.webhookSubscription.findUnique({ where: { id }, select: { id: true } }))) throw notFound(`Cannot find webhook '${id}'`);
  const rows = await client.webhookDelivery.findMany({
    where: { subscriptionId: id },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: Math.min(Math.max(limit, 1), 500),
    select: { id: true, event: true, status: true, attempts: true, nextAttemptAt: true, lastStatusCode: true, lastError: true, deliveredAt: true, createdAt: true, log: { orderBy: { attempt: 'asc' }, select: { attempt: true, statusCode: true, error: true, durationMs: true, createdAt: true } } },
  });
  return rows.map((d) => ({
    id: d.id,
    event: d.event,
    status: d.status as WebhookDeliveryDto['status'],
    attempts: d.attempts,
    next_attempt_at: d.status === 'pending' ? d.nextAttemptAt.toISOString() : null,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    delivered_at: d.deliveredAt?.toISOString() ?? null,
    created_at: d.createdAt.toISOString(),
    log: d.log.map((a) => ({ attempt: a.attempt, status_code: a.statusCode, error: a.error, duration_ms: a.durationMs, at: a.createdAt.toISOString() })),
  }));
}

type Kick = () => void;
/** The running worker's wake-up: set by the worker (server's copy), called by the test button (Next's copy): process state. */
const kick = processBox<Kick>('webhooks.kick');
/** Lets a running worker in this process deliver at once (the test button); set by the worker. */
export function setWebhookKick(k: Kick | undefined) {
  kick.current = k;
}

/** "Send test event": queues a `test` event to this subscription only, and wakes the worker. */
export async function sendTestWebhook(access: Access, id: string, requestId?: string): Promise<{ queued: number }> {
  assertCan(access, 'webhooks.manage');
  const queued = await db().$transaction(async (tx) => {
    const row = await tx.webhookSubscription.findUnique({ where: { id }, select: { id: true, name: true, active: true } });
    if (!row) throw notFound(`Cannot find webhook '${id}'`);
    if (!row.active) throw badRequest(`Webhook '${row.name}' is inactive`);
    const n = await emitEvent(tx, 'test', `Test event from Policy Console, sent by ${access.email}`, { sent_by: access.email }, { onlySubscriptionId: row.id });
    await audit(tx, access, { action: 'webhook.test', targetType: 'webhook', target: id, requestId });
    return n;
  });
  kick.current?.();
  return { queued };
}
