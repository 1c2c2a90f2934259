/**
 * Issue 15 webhooks: the outbox written with the change, signed deliveries to
 * a local HTTP receiver, retries with backoff after failures, redirects not
 * followed, state surviving a restart, and no double delivery with two
 * workers on one database.
 */
import http from 'node:http';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiRoutes, accessFor, call, pollUntil, seed, tokenFor } from '@/test/helpers';
import { db } from '@/lib/db/client';
import type { Access } from '@/lib/auth/permissions';
import { promotePolicy, approvePromotionRequest } from '@/lib/services/promotion';
import { createWebhook, sendTestWebhook, deliverDue, startWebhookWorker } from '@/lib/services/webhooks';
import { addFreezeWindow, announceStartedFreezes } from '@/lib/services/guards';
const webhooksRoute = apiRoutes('/api/v1/webhooks');
const webhookRoute = apiRoutes('/api/v1/webhooks/[id]');
const deliveriesRoute = apiRoutes('/api/v1/webhooks/[id]/deliveries');

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let server: http.Server;
let base: string;
const received: Received[] = [];
/** Status codes to answer, in order, per path; 200 once exhausted. */
const script = new Map<string, number[]>();

const A: Record<string, Access> = {};

async function active(stage: string, policy: string) {
  const row = await db().groupPolicy.findFirst({ where: { group: { name: stage }, policy: { name: policy } }, select: { revision: { select: { revisionId: true } } } });
  return row?.revision.revisionId ?? null;
}

beforeAll(async () => {
  await seed();
  for (const u of ['admin', 'release', 'dev', 'lead']) A[u] = await accessFor(`${u}@example.com`);
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const codes = script.get(req.url!) ?? [];
      const code = codes.length ? codes.shift()! : 200;
      if (code === 302) res.writeHead(302, { location: `${base}/elsewhere` }).end();
      else res.writeHead(code, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  received.length = 0;
});

// Short backoff; a generous per-attempt timeout, so a loaded machine's slow local receiver is not a failed attempt.
const fast = { backoffBaseMs: 20, timeoutMs: 20_000, maxAttempts: 5 };
/** Runs delivery passes until `until` holds, with a deadline (pollUntil). */
async function drain(opts = fast, until: () => Promise<boolean>) {
  await pollUntil('the deliveries', async () => (await deliverDue(opts), until()), { everyMs: 25 });
}

describe('subscriptions (admin only) and validation', () => {
  it('refuses non-admins, bad URLs and unknown events, naming the field', async () => {
    const dev = await tokenFor('dev@example.com');
    const admin = await tokenFor('admin@example.com');
    expect((await call(webhooksRoute.GET, 'GET', { token: dev })).status).toBe(403);
    expect((await call(webhooksRoute.POST, 'POST', { token: dev, body: { name: 'x', url: `${base}/x`, events: ['request.opened'], allow_private_targets: true } })).status).toBe(403);
    const ftp = await call(webhooksRoute.POST, 'POST', { token: admin, body: { name: 'x', url: 'ftp://example.com/hook', events: ['request.opened'] } });
    expect(ftp.status).toBe(400);
    expect(ftp.json.errors[0]).toMatchObject({ path: '/url', message: 'url must use http or https' });
    const ev = await call(webhooksRoute.POST, 'POST', { token: admin, body: { name: 'x', url: `${base}/x`, events: ['nope'], allow_private_targets: true } });
    expect(ev.status).toBe(400);
    expect(ev.json.errors[0].path).toBe('/events/0');
    expect(await db().webhookSubscription.count()).toBe(0);
  });
});

describe('delivery', () => {
  let subId: string;
  let secret: string;
  beforeAll(async () => {
    const admin = await tokenFor('admin@example.com');
    const created = await call(webhooksRoute.POST, 'POST', { token: admin, body: { name: 'release bot', url: `${base}/hook`, events: ['request.opened', 'request.approved', 'request.applied', 'promotion.applied', 'freeze.started', 'revision.marked_bad'], allow_private_targets: true } });
    expect(created.status).toBe(201);
    subId = created.json.webhook.id;
    secret = created.json.secret;
    expect(secret.length).toBeGreaterThanOrEqual(16);
    // The list never returns the secret.
    const list = await call(webhooksRoute.GET, 'GET', { token: admin });
    expect(JSON.stringify(list.json)).not.toContain(secret);
  });

  it('an event is written to the outbox with the change, and not when the change fails', async () => {
    const before = await db().webhookDelivery.count();
    // A refused promotion (stale expected revision) writes nothing.
    await promotePolicy(A.release, { policy: 'webapp', from: 'staging', to: 'production', expectedRevisionId: 'stale' }).catch(() => undefined);
    expect(await db().webhookDelivery.count()).toBe(before);
    const r = await promotePolicy(A.release, { policy: 'webapp', from: 'staging', to: 'production', expectedRevisionId: await active('production', 'webapp'), reason: 'nginx 12' });
    expect(r.request).toBeDefined();
    const rows = await db().webhookDelivery.findMany({ where: { subscriptionId: subId }, orderBy: { createdAt: 'asc' } });
    expect(rows.map((d) => d.event)).toEqual(['request.opened']);
  });

  it('delivers signed bodies; retries a failing receiver with backoff until it answers 2xx; logs every attempt', async () => {
    script.set('/hook', [500, 503]);
    await db().webhookDelivery.updateMany({ where: { subscriptionId: subId }, data: { nextAttemptAt: new Date(0) } });
    const id = (await db().webhookDelivery.findFirstOrThrow({ where: { subscriptionId: subId, event: 'request.opened' } })).id;
    await drain(fast, async () => (await db().webhookDelivery.findUniqueOrThrow({ where: { id } })).status !== 'pending');
    const d = await db().webhookDelivery.findUniqueOrThrow({ where: { id } });
    expect(d).toMatchObject({ status: 'delivered', attempts: 3, lastStatusCode: 200 });
    const mine = received.filter((x) => x.headers['x-policy-console-delivery'] === id);
    expect(mine).toHaveLength(3);
    for (const m of mine) {
      expect(m.headers['x-policy-console-signature']).toBe(`sha256=${createHmac('sha256', secret).update(m.body).digest('hex')}`);
      expect(m.headers['x-policy-console-event']).toBe('request.opened');
      expect(JSON.parse(m.body)).toMatchObject({ event: 'request.opened', data: { request: { policy: 'webapp', stage: 'production', status: 'pending' } } });
    }
    const log = await call(deliveriesRoute.GET, 'GET', { token: await tokenFor('admin@example.com'), params: { id: subId } });
    expect(log.status).toBe(200);
    const entry = log.json.deliveries.find((x: any) => x.id === id);
    expect(entry.log.map((a: any) => a.status_code)).toEqual([500, 503, 200]);
    expect(entry.log[0].error).toBe('HTTP 500');
    // Backoff: the second attempt waited at least the base delay after the first.
    const attempts = await db().webhookAttempt.findMany({ where: { deliveryId: id }, orderBy: { attempt: 'asc' } });
    expect(attempts[1].createdAt.getTime() - attempts[0].createdAt.getTime()).toBeGreaterThanOrEqual(fast.backoffBaseMs);
  });

  it('approvals and the apply reach the receiver; a freeze start is announced once', async () => {
    const req = await db().promotionRequest.findFirstOrThrow({ where: { policyName: 'webapp', status: 'pending' } });
    await approvePromotionRequest(A.lead, { id: req.id });
    await approvePromotionRequest(A.admin, { id: req.id });
    await addFreezeWindow(A.admin, { stage: 'dev', startsAt: new Date(Date.now() - 1000), endsAt: new Date(Date.now() + 60_000), reason: 'sprint demo' });
    // The worker's scans (two instances, twice) announce the occurrence once.
    expect(await announceStartedFreezes()).toBe(1);
    await Promise.all([announceStartedFreezes(), announceStartedFreezes()]);
    await drain(fast, async () => (await db().webhookDelivery.count({ where: { subscriptionId: subId, status: 'pending' } })) === 0);
    const events = received.map((r) => r.headers['x-policy-console-event']);
    expect(events.filter((e) => e === 'request.approved')).toHaveLength(2);
    expect(events.filter((e) => e === 'request.applied')).toHaveLength(1);
    expect(events.filter((e) => e === 'promotion.applied')).toHaveLength(1);
    expect(events.filter((e) => e === 'freeze.started')).toHaveLength(1);
  });

  it('a redirect is not followed (a failed attempt); the delivery gives up after max attempts', async () => {
    script.set('/hook', [302, 302, 302, 302, 302]);
    await sendTestWebhook(A.admin, subId);
    const id = (await db().webhookDelivery.findFirstOrThrow({ where: { subscriptionId: subId, event: 'test' }, orderBy: { createdAt: 'desc' } })).id;
    await drain({ ...fast, maxAttempts: 2 }, async () => (await db().webhookDelivery.findUniqueOrThrow({ where: { id } })).status !== 'pending');
    const d = await db().webhookDelivery.findUniqueOrThrow({ where: { id } });
    expect(d).toMatchObject({ status: 'failed', attempts: 2, lastStatusCode: 302 });
    expect(d.lastError).toMatch(/^HTTP 30\d: redirect not followed$/);
    expect(received.some((r) => r.path === '/elsewhere')).toBe(false);
    script.delete('/hook');
  });

  it('survives a restart: a delivery leased by a worker that died is picked up after the lease', async () => {
    await sendTestWebhook(A.admin, subId);
    const row = await db().webhookDelivery.findFirstOrThrow({ where: { subscriptionId: subId, event: 'test', status: 'pending' } });
    // A worker claimed it and died: the lease is in the future, so nobody else takes it yet.
    await db().webhookDelivery.update({ where: { id: row.id }, data: { lockedBy: 'dead-worker', lockedUntil: new Date(Date.now() + 60_000) } });
    await deliverDue(fast);
    expect((await db().webhookDelivery.findUniqueOrThrow({ where: { id: row.id } })).status).toBe('pending');
    // Lease expired: a fresh worker (a restarted process) delivers it from the database state.
    await db().webhookDelivery.update({ where: { id: row.id }, data: { lockedUntil: new Date(Date.now() - 1) } });
    const worker = startWebhookWorker({ ...fast, intervalMs: 20 });
    try {
      await pollUntil('the restarted worker to deliver it', async () => (await db().webhookDelivery.findUniqueOrThrow({ where: { id: row.id } })).status !== 'pending');
    } finally {
      await worker.stop();
    }
    expect((await db().webhookDelivery.findUniqueOrThrow({ where: { id: row.id } })).status).toBe('delivered');
  });

  it('two workers on one database deliver each event exactly once', async () => {
    for (let i = 0; i < 30; i++) await sendTestWebhook(A.admin, subId);
    const ids = (await db().webhookDelivery.findMany({ where: { subscriptionId: subId, status: 'pending' }, select: { id: true } })).map((r) => r.id);
    expect(ids.length).toBe(30);
    // Two independent workers, polling at once, plus explicit concurrent passes.
    const w1 = startWebhookWorker({ ...fast, id: 'w1', intervalMs: 5, batch: 7 });
    const w2 = startWebhookWorker({ ...fast, id: 'w2', intervalMs: 5, batch: 7 });
    try {
      await Promise.all([deliverDue({ ...fast, id: 'w3', batch: 10 }), deliverDue({ ...fast, id: 'w4', batch: 10 })]);
      await pollUntil('the two workers to deliver all 30', async () => (await db().webhookDelivery.count({ where: { id: { in: ids }, status: 'pending' } })) === 0);
    } finally {
      await Promise.all([w1.stop(), w2.stop()]);
    }
    expect(await db().webhookDelivery.count({ where: { id: { in: ids }, status: 'delivered' } })).toBe(30);
    const perDelivery = new Map<string, number>();
    for (const r of received) {
      const d = r.headers['x-policy-console-delivery'] as string;
      if (ids.includes(d)) perDelivery.set(d, (perDelivery.get(d) ?? 0) + 1);
    }
    expect(perDelivery.size).toBe(30);
    expect([...perDelivery.values()].every((n) => n === 1)).toBe(true);
    expect(await db().webhookAttempt.count({ where: { deliveryId: { in: ids } } })).toBe(30);
  });

  it('Slack subscriptions get { text, blocks } (issue 29); delete removes the subscription', async () => {
    const { webhook } = await createWebhook(A.admin, { name: 'slack', url: `${base}/slack`, events: ['revision.marked_bad'], slack: true, allow_private_targets: true });
    await sendTestWebhook(A.admin, webhook.id);
    await drain(fast, async () => received.some((r) => r.path === '/slack'));
    const body = JSON.parse(received.find((r) => r.path === '/slack')!.body);
    expect(Object.keys(body)).toEqual(['text', 'blocks']);
    expect(body.text).toMatch(/Test event/);
    expect(body.blocks[0]).toMatchObject({ type: 'header', text: { type: 'plain_text' } });
    const del = await call(webhookRoute.DELETE, 'DELETE', { token: await tokenFor('admin@example.com'), params: { id: webhook.id } });
    expect(del.status).toBe(200);
    expect(await db().webhookSubscription.count({ where: { id: webhook.id } })).toBe(0);
  });
});
