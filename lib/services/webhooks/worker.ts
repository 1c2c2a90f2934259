/**
 * The webhook worker (issue 15): delivers the outbox (WebhookDelivery rows)
 * with retries and exponential backoff. All state is in the database, so a
 * restart resumes where it stopped, and several instances can run workers on
 * one database: a row is claimed by a compare-and-swap lease
 * (`updateMany where id = ? and (lockedUntil is null or lockedUntil < now)`),
 * and the lease outlasts the request timeout, so no row is sent by two
 * workers at once. Redirects are not followed (a 3xx is a failed attempt).
 */
import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { db } from '@/lib/db/client';
import { decryptSecret } from '@/lib/auth/secret-box';
import { guardedLookup, literalTargetRefused, RefusedTarget } from '@/lib/services/funnel';
import { announceStartedFreezes } from '@/lib/services/guards';
import { setWebhookKick } from './webhooks';

export interface WebhookWorkerOptions {
  /** Identifies the worker in leases (default: a random id). */
  id?: string;
  /** Poll interval (WEBHOOK_POLL_MS, default 5000). */
  intervalMs?: number;
  /** Request timeout (WEBHOOK_TIMEOUT_MS, default 10000). */
  timeoutMs?: number;
  /** Attempts before a delivery is given up (WEBHOOK_MAX_ATTEMPTS, default 8). */
  maxAttempts?: number;
  /** First retry delay, doubled per attempt up to maxBackoffMs (WEBHOOK_BACKOFF_BASE_MS, default 30000). */
  backoffBaseMs?: number;
  maxBackoffMs?: number;
  /** Rows claimed per pass. */
  batch?: number;
  now?: () => Date;
}

const env = (name: string, dflt: number) => {
  const n = Number(process.env[name]);
  return Number.isFinite(n) && n > 0 ? n : dflt;
};

function settings(o: WebhookWorkerOptions) {
  const timeoutMs = o.timeoutMs ?? env('WEBHOOK_TIMEOUT_MS', 10_000);
  return {
    id: o.id ?? `worker-${randomUUID()}`,
    intervalMs: o.intervalMs ?? env('WEBHOOK_POLL_MS', 5_000),
    timeoutMs,
    // The lease outlasts the request, so an expired lease means the worker died, not that it is still sending.
    leaseMs: timeoutMs * 2 + 5_000,
    maxAttempts: o.maxAttempts ?? env('WEBHOOK_MAX_ATTEMPTS', 8),
    backoffBaseMs: o.backoffBaseMs ?? env('WEBHOOK_BACKOFF_BASE_MS', 30_000),
    maxBackoffMs: o.maxBackoffMs ?? 60 * 60 * 1000,
    batch: o.batch ?? 20,
    now: o.now ?? (() => new Date()),
  };
}

/** `sha256=<hex>`: HMAC-SHA256 of the raw body with the subscription's secret. */
export function signatureHeader(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/** Claims a due row for `workerId` until `until`; true when this worker won it. */
async function claim(id: string, workerId: string, now: Date, until: Date): Promise<boolean> {
  const { count } = await db().webhookDelivery.updateMany({
    where: { id, status: 'pending', nextAttemptAt: { lte: now }, OR: [{ lockedUntil: null }, { lockedUntil: { lt: now } }] },
    data: { lockedUntil: until, lockedBy: workerId },
  });
  return count === 1;
}

const REFUSED = 'refused: the target is a loopback, link-local, private or unspecified address (an admin may allow such targets for this subscription)';

/** WEBHOOK_MAX_RESPONSE_BYTES (default 64 KiB): how much of a receiver's answer is read before the connection is closed. */
export function maxResponseBytes(): number {
  const n = Number(process.env.WEBHOOK_MAX_RESPONSE_BYTES);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 64 * 1024;
}

/**
 * POSTs one delivery (issue 28): the target's addresses are checked before
 * connecting (pinned lookup), redirects are not followed, at most
 * `maxResponseBytes()` of the answer are read, and the log keeps only the
 * status code or a generic outcome (no addresses, ports, error codes or
 * redirect targets from the receiver's side).
 */
export async function send(url: string, body: string, headers: Record<string, string>, timeoutMs: number, allowPrivate = false): Promise<{ status: number | null; error: string | null }> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { status: null, error: 'invalid URL' };
  }
  if (!allowPrivate && literalTargetRefused(u)) return { status: null, error: REFUSED };
  const mod = u.protocol === 'https:' ? https : http;
  const limit = maxResponseBytes();
  return new Promise((resolve) => {
    let done = false;
    const finish = (r: { status: number | null; error: string | null }) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(r);
    };
    const req = mod.request(u, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, lookup: guardedLookup(allowPrivate), agent: false }, (res) => {
      const status = res.statusCode ?? 0;
      const outcome = status >= 200 && status < 300 ? { status, error: null } : status >= 300 && status < 400 ? { status, error: `HTTP ${status}: redirect not followed` } : { status, error: `HTTP ${status}` };
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > limit) {
          res.destroy();
          req.destroy();
          finish(outcome);
        }
      });
      res.on('end', () => finish(outcome));
      res.on('close', () => finish(outcome));
      res.on('error', () => finish(outcome));
    });
    const timer = setTimeout(() => {
      req.destroy();
      finish({ status: null, error: `timed out after ${timeoutMs} ms` });
    }, timeoutMs);
    req.on('error', (e) => finish({ status: null, error: e instanceof RefusedTarget ? REFUSED : 'connection failed' }));
    req.end(body);
  });
}

/** One pass: claims due deliveries and sends them. Returns how many attempts were made. */
export async function deliverDue(opts: WebhookWorkerOptions = {}): Promise<number> {
  const s = settings(opts);
  const now = s.now();
  const due = await db().webhookDelivery.findMany({
    where: { status: 'pending', nextAttemptAt: { lte: now }, OR: [{ lockedUntil: null }, { lockedUntil: { lt: now } }] },
    // Issue 43: in the order the events were written (ids order by creation), so a change's events arrive in order.
    orderBy: [{ id: 'asc' }],
    take: s.batch,
    select: { id: true },
  });
  let attempts = 0;
  for (const { id } of due) {
    if (!(await claim(id, s.id, now, new Date(now.getTime() + s.leaseMs)))) continue; // another worker has it
    const row = await db().webhookDelivery.findUnique({ where: { id }, select: { id: true, event: true, payload: true, attempts: true, subscriptionId: true, subscription: { select: { url: true, secretEnc: true, active: true, allowPrivateTargets: true } } } });
    if (!row) continue;
    const attempt = row.attempts + 1;
    const started = Date.now();
    let result: { status: number | null; error: string | null };
    if (!row.subscription.active) result = { status: null, error: 'subscription inactive' };
    else {
      let secret: string;
      try {
        secret = decryptSecret(row.subscription.secretEnc);
      } catch {
        secret = '';
      }
      result = secret
        ? await send(
            row.subscription.url,
            row.payload,
            {
              'content-type': 'application/json',
              'user-agent': 'policy-console-webhooks/1',
              'x-policy-console-event': row.event,
              'x-policy-console-delivery': row.id,
              'x-policy-console-signature': signatureHeader(secret, row.payload),
            },
            s.timeoutMs,
            row.subscription.allowPrivateTargets,
          )
        : { status: null, error: 'the signing secret cannot be decrypted (GIT_CREDENTIALS_KEY or the session secret changed)' };
    }
    const durationMs = Date.now() - started;
    const at = s.now();
    const ok = result.error === null;
    const giveUp = !ok && attempt >= s.maxAttempts;
    const backoff = Math.min(s.maxBackoffMs, s.backoffBaseMs * 2 ** (attempt - 1));
    await db().$transaction(async (tx) => {
      // Only the lease holder writes the outcome.
      const { count } = await tx.webhookDelivery.updateMany({
        where: { id: row.id, lockedBy: s.id },
        data: {
          attempts: attempt,
          status: ok ? 'delivered' : giveUp ? 'failed' : 'pending',
          nextAttemptAt: ok || giveUp ? at : new Date(at.getTime() + backoff),
          lastStatusCode: result.status,
          lastError: result.error,
          deliveredAt: ok ? at : null,
          lockedUntil: null,
          lockedBy: null,
        },
      });
      if (count === 1) await tx.webhookAttempt.create({ data: { deliveryId: row.id, subscriptionId: row.subscriptionId, attempt, statusCode: result.status, error: result.error, durationMs, createdAt: at } });
    });
    attempts++;
  }
  return attempts;
}

export interface RunningWorker {
  /** Runs a pass now (after the current one). */
  kick(): void;
  /** Stops polling and waits for the pass in flight. */
  stop(): Promise<void>;
}

/** Starts the in-process worker (scripts/serve.ts; tests start it explicitly). */
export function startWebhookWorker(opts: WebhookWorkerOptions = {}): RunningWorker {
  const s = settings(opts);
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  const pass = async () => {
    try {
      await announceStartedFreezes(s.now());
      while ((await deliverDue({ ...opts, id: s.id })) > 0 && !stopped) {
        /* keep going while there is work */
      }
    } catch (e) {
      console.error('[webhooks] delivery pass failed', e);
    }
  };
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(tick, ms);
    timer.unref?.();
  };
  const tick = () => {
    timer = null;
    if (running) {
      again = true;
      return;
    }
    running = pass().finally(() => {
      running = null;
      if (again) {
        again = false;
        schedule(0);
      } else schedule(s.intervalMs);
    });
  };
  const kick = () => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    tick();
  };
  setWebhookKick(kick);
  schedule(0);
  return {
    kick,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      setWebhookKick(undefined);
      await running;
    },
  };
}
