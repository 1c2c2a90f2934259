import { db } from '../client';
import type { DeliveryRow, WebhookRow } from '@/lib/types/guards';

export type { DeliveryRow, WebhookRow } from '@/lib/types/guards';



function parseEvents(text: string): string[] {
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) ? v.filter((e): e is string => typeof e === 'string') : [];
  } catch {
    return [];
  }
}

/** Webhook subscriptions for the admin page (admins only: the page checks). The secret never leaves the database. */
export async function webhooksForAdmin(): Promise<WebhookRow[]> {
  const client = db();
  const [subs, counts] = await Promise.all([
    client.webhookSubscription.findMany({
      orderBy: { createdAt: 'asc' },
      select: {
        id: true,
        name: true,
        url: true,
        events: true,
        slack: true,
        active: true,
        createdByEmail: true,
        createdAt: true,
        deliveries: { orderBy: { createdAt: 'desc' }, take: 1, select: { event: true, status: true, lastStatusCode: true, createdAt: true } },
      },
    }),
    client.webhookDelivery.groupBy({ by: ['subscriptionId', 'status'], where: { status: { in: ['pending', 'failed'] } }, _count: { _all: true } }),
  ]);
  const count = (id: string, status: string) => counts.find((c) => c.subscriptionId === id && c.status === status)?._count._all ?? 0;
  return subs.map((s) => ({
    id: s.id,
    name: s.name,
    url: s.url,
    events: parseEvents(s.events),
    slack: s.slack,
    active: s.active,
    createdBy: s.createdByEmail,
    createdAt: s.createdAt.toISOString(),
    last: s.deliveries[0] ? { event: s.deliveries[0].event, status: s.deliveries[0].status, statusCode: s.deliveries[0].lastStatusCode, at: s.deliveries[0].createdAt.toISOString() } : null,
    pending: count(s.id, 'pending'),
    failed: count(s.id, 'failed'),
  }));
}

/** One subscription's delivery log, newest first, with every attempt. */
export async function webhookDeliveries(id: string, take = 100): Promise<{ webhook: Pick<WebhookRow, 'id' | 'name' | 'url' | 'events' | 'slack'>; deliveries: DeliveryRow[] } | null> {
  const s = await db().webhookSubscription.findUnique({
    where: { id },
    select: {
      id: true,
      name: true,
      url: true,
      events: true,
      slack: true,
      deliveries: {
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take,
        select: {
          id: true,
          event: true,
          status: true,
          attempts: true,
          lastStatusCode: true,
          lastError: true,
          createdAt: true,
          deliveredAt: true,
          nextAttemptAt: true,
          log: { orderBy: { attempt: 'asc' }, select: { attempt: true, statusCode: true, error: true, durationMs: true, createdAt: true } },
        },
      },
    },
  });
  if (!s) return null;
  return {
    webhook: { id: s.id, name: s.name, url: s.url, events: parseEvents(s.events), slack: s.slack },
    deliveries: s.deliveries.map((d) => ({
      id: d.id,
      event: d.event,
      status: d.status,
      attempts: d.attempts,
      lastStatusCode: d.lastStatusCode,
      lastError: d.lastError,
      createdAt: d.createdAt.toISOString(),
      deliveredAt: d.deliveredAt?.toISOString() ?? null,
      nextAttemptAt: d.status === 'pending' ? d.nextAttemptAt.toISOString() : null,
      log: d.log.map((l) => ({ attempt: l.attempt, statusCode: l.statusCode, error: l.error, durationMs: l.durationMs, at: l.createdAt.toISOString() })),
    })),
  };
}
