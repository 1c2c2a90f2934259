/**
 * Operations over real HTTP through the server shell scripts/serve.ts runs
 * (lib/ops/server.ts, with the Chef router in front as there): request ids,
 * the JSON request log, /metrics and its token; and /api/ready against the
 * real migrations table.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { db } from '@/lib/db/client';
import { databaseProvider } from '@/lib/db/url';
import { serveChef } from '@/lib/chef/http';
import { isChefPath } from '@/lib/chef/router';
import { signRequest } from '@/lib/auth/chef-signing';
import { consoleRouteLabeler } from '@/lib/ops/routes';
import { createConsoleServer } from '@/lib/ops/server';
import { metrics } from '@/lib/ops/metrics';
import { registerGauges } from '@/lib/services/background';
import { addUserKey } from '@/lib/services/keys';
import { promotePolicy, promotePolicies } from '@/lib/services/promotion';
import { readiness } from '@/lib/db/queries/readiness';
import * as readyRoute from '@/app/api/ready/route';
import { accessFor, pollUntil, seed } from '@/test/helpers';

let base: string;
let server: http.Server;
let adminKey: string;
let adminId: string;
const logged: string[] = [];

beforeAll(async () => {
  await seed();
  // Promotion counters and bulk ordering are mechanics; the demo's protected stages (issue 15) are covered in guarded-stages.integration.test.ts.
  await db().stageProtection.deleteMany();
  adminKey = (await addUserKey({ kind: 'system', userId: null, email: 'test' }, 'admin')).privateKey;
  adminId = (await db().user.findUniqueOrThrow({ where: { email: 'admin@example.com' } })).id;
  ({ server } = createConsoleServer({
    surface: (p) => (isChefPath(p) ? 'chef' : 'console'),
    routeLabel: consoleRouteLabeler(process.cwd()),
    handle: async (req, res) => {
      if (await serveChef(req, res)) return;
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{}');
    },
  }));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const write = process.stdout.write.bind(process.stdout);
  vi.spyOn(process.stdout, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const s = String(chunk);
    if (s.startsWith('{"time"')) {
      logged.push(s);
      return true;
    }
    return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write);
});

afterAll(async () => {
  vi.restoreAllMocks();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

afterEach(() => {
  delete process.env.METRICS_TOKEN;
});

function signed(method: string, path: string, protocol: '1.0' | '1.1' | '1.3' = '1.3', extra: Record<string, string> = {}) {
  return fetch(`${base}${path}`, { method, headers: { ...signRequest({ method, path, userId: 'admin', privateKey: adminKey, protocol }), ...extra } });
}

const lastLog = () => JSON.parse(logged[logged.length - 1]);
/** The request line is written when the server finishes the response, which may come after the client has it: wait for it. */
async function loggedAtLeast(n: number) {
  await pollUntil(`${n} request log lines`, () => logged.length >= n, { everyMs: 5 });
}

describe('request ids and the request log', () => {
  it("keeps the caller's X-Request-Id, logs one JSON line with the route pattern and the actor, and no secrets", async () => {
    const headers = signRequest({ method: 'GET', path: '/organizations/console/nodes/no-such-node', userId: 'admin', privateKey: adminKey, protocol: '1.3' });
    const before = logged.length;
    const r = await fetch(`${base}/organizations/console/nodes/no-such-node`, { headers: { ...headers, 'x-request-id': 'trace-42.a' } });
    expect(r.status).toBe(404);
    expect(r.headers.get('x-request-id')).toBe('trace-42.a');
    await loggedAtLeast(before + 1);
    expect(logged.length).toBe(before + 1);
    const line = lastLog();
    expect(line).toMatchObject({ level: 'info', msg: 'request', request_id: 'trace-42.a', method: 'GET', route: '/organizations/:org/nodes/:name', status: 404, surface: 'chef', actor_id: adminId, via: 'chef-key:admin/default' });
    expect(typeof line.duration_ms).toBe('number');
    expect(new Date(line.time).toISOString()).toBe(line.time);
    const text = logged[logged.length - 1];
    for (const [name, value] of Object.entries(headers)) if (/authorization|content-hash/i.test(name)) expect(text).not.toContain(value);
    expect(text).not.toContain('no-such-node');
  });

  it('replaces an unacceptable X-Request-Id with a fresh one, used by the router too', async () => {
    const before = logged.length;
    const r = await signed('GET', '/organizations/console/policy_groups', '1.3', { 'x-request-id': 'has spaces and "quotes"' });
    expect(r.status).toBe(200);
    const id = r.headers.get('x-request-id')!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await loggedAtLeast(before + 1);
    expect(lastLog().request_id).toBe(id);
  });

  it('labels paths by pattern, so raw paths never become label values', async () => {
    const before = logged.length;
    await fetch(`${base}/organizations/console/nodes/random-${Math.random()}`);
    await loggedAtLeast(before + 1);
    await fetch(`${base}/policies/random-${Math.random()}`);
    await loggedAtLeast(before + 2);
    const [a, b] = logged.slice(-2).map((l) => JSON.parse(l));
    expect(a).toMatchObject({ route: '/organizations/:org/nodes/:name', status: 401, surface: 'chef' });
    expect(a.actor_id).toBeUndefined();
    expect(b).toMatchObject({ route: '/policies/[name]', status: 404, surface: 'console' });
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).not.toContain('random-');
  });
});

describe('/metrics', () => {
  it('counts pending approval requests and the webhook backlog from the database on each scrape', async () => {
    registerGauges();
    const pending = await db().promotionRequest.count({ where: { status: 'pending' } });
    expect(pending).toBeGreaterThan(0); // the demo's pending api-gateway request
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toMatch(new RegExp(`^policy_console_pending_approval_requests ${pending}$`, 'm'));
    const backlog = await db().webhookDelivery.count({ where: { status: 'pending' } });
    expect(text).toMatch(new RegExp(`^policy_console_webhook_backlog ${backlog}$`, 'm'));
  });

  it('serves Prometheus text: requests by route and status, latency, Chef-signed requests by protocol', async () => {
    for (const p of ['1.0', '1.1', '1.3'] as const) expect((await signed('GET', '/organizations/console/policy_groups', p)).status).toBe(200);
    const bad = signRequest({ method: 'GET', path: '/organizations/console/nodes', userId: 'admin', privateKey: adminKey, protocol: '1.1' });
    expect((await fetch(`${base}/organizations/console/policy_groups`, { headers: bad })).status).toBe(401);
    const r = await fetch(`${base}/metrics`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await r.text();
    expect(text).toMatch(/^policy_console_http_requests_total\{route="\/organizations\/:org\/policy_groups",method="GET",status="200"\} [1-9]\d*$/m);
    expect(text).toMatch(/^policy_console_http_request_duration_seconds_bucket\{route="\/organizations\/:org\/policy_groups",method="GET",le="\+Inf"\} [1-9]\d*$/m);
    for (const p of ['1.0', '1.1', '1.3']) expect(text).toMatch(new RegExp(`^policy_console_chef_signed_requests_total\\{protocol="${p.replace('.', '\\.')}",result="ok"\\} [1-9]\\d*$`, 'm'));
    expect(text).toMatch(/^policy_console_chef_signed_requests_total\{protocol="1\.1",result="rejected"\} [1-9]\d*$/m);
    expect(text).toContain('# TYPE policy_console_promotions_total counter');
    expect(text).toMatch(/^policy_console_pending_approval_requests \d+$/m);
    expect(text).toMatch(/^policy_console_webhook_backlog \d+$/m);
    expect(text).toContain('# TYPE policy_console_db_pool_connections gauge');
    // The process-wide client's connections: SQLite's one, or the PostgreSQL pool's (total, idle, waiting).
    expect(text).toMatch(/^policy_console_db_pool_connections\{state="total"\} [1-9]\d*$/m);
    if (databaseProvider() === 'postgresql') expect(text).toMatch(/^policy_console_db_pool_connections\{state="waiting"\} \d+$/m);
    expect(text).toMatch(/^policy_console_http_requests_in_flight 1$/m);
  });

  it('wants the bearer token when METRICS_TOKEN is set', async () => {
    process.env.METRICS_TOKEN = 's3cret-metrics';
    const none = await fetch(`${base}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    expect((await none.json()).error[0]).toContain('METRICS_TOKEN');
    expect((await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer s3cret-metric' } })).status).toBe(401);
    expect((await fetch(`${base}/metrics`, { headers: { authorization: 'Basic czNjcmV0LW1ldHJpY3M=' } })).status).toBe(401);
    const ok = await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer s3cret-metrics' } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('policy_console_http_requests_total');
    expect((await fetch(`${base}/metrics`, { method: 'POST', headers: { authorization: 'Bearer s3cret-metrics' } })).status).toBe(405);
  });

  it('counts promotions that committed, not refused ones', async () => {
    const release = await accessFor('release@example.com');
    const active = async (stage: string, policy: string) =>
      (await db().groupPolicy.findFirst({ where: { group: { name: stage }, policy: { name: policy } }, select: { revision: { select: { revisionId: true } } } }))?.revision.revisionId ?? null;
    const before = metrics().promotions.get({ kind: 'policy' });
    const expected = await active('production', 'webapp');
    const done = await promotePolicy(release, { policy: 'webapp', from: 'staging', to: 'production', expectedRevisionId: expected });
    expect(done.changed).toBe(true);
    await expect(promotePolicy(release, { policy: 'webapp', from: 'qa', to: 'production', expectedRevisionId: expected })).rejects.toMatchObject({ status: 409 });
    expect(metrics().promotions.get({ kind: 'policy' })).toBe(before + 1);
  });
});

describe('bulk promotions', () => {
  it('answer in the order asked (pointers move in name order)', async () => {
    const admin = await accessFor('admin@example.com');
    const stage = async (name: string) =>
      new Map((await db().groupPolicy.findMany({ where: { group: { name } }, select: { policy: { select: { name: true } }, revision: { select: { revisionId: true } } } })).map((r) => [r.policy.name, r.revision.revisionId]));
    const [dev, production] = [await stage('dev'), await stage('production')];
    const differing = [...dev.keys()].filter((n) => dev.get(n) !== production.get(n));
    expect(differing.length).toBeGreaterThan(1);
    // Asked in reverse name order.
    const names = differing.sort().reverse();
    const expected = Object.fromEntries(names.map((n) => [n, production.get(n) ?? null]));
    const r = await promotePolicies(admin, { from: 'dev', to: 'production', policies: names, expected, reason: 'bulk-order', overrideReason: 'test: artifacts not uploaded' });
    expect(r.promoted.map((p) => p.policy)).toEqual(names);
    expect(r.promoted.every((p) => p.changed)).toBe(true);
    // Row ids (cuid) grow in insertion order within a process: the history shows the order pointers moved in.
    const history = await db().pointerHistory.findMany({ where: { groupName: 'production', reason: 'bulk-order' }, orderBy: { id: 'asc' }, select: { policyName: true } });
    expect(history.map((h) => h.policyName)).toEqual([...names].sort());
  });
});

describe('/api/ready', () => {
  it('is 200 when every shipped migration is applied', async () => {
    const res = await readyRoute.GET();
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.status).toBe('ready');
    expect(body.database).toBe('up');
    expect(body.migrations.pending).toEqual([]);
    expect(body.migrations.failed).toEqual([]);
    expect(body.migrations.applied).toBe(body.migrations.expected);
    expect(body.migrations.expected).toBeGreaterThan(0);
  });

  it('is 503 naming a migration not applied, or one that failed', async () => {
    const rows = await db().$queryRaw<{ id: string; migration_name: string; finished_at: unknown }[]>`SELECT "id", "migration_name", "finished_at" FROM "_prisma_migrations"`;
    const last = rows.sort((a, b) => a.migration_name.localeCompare(b.migration_name)).at(-1)!;
    const name = last.migration_name.split('/').pop()!;
    await db().$executeRaw`UPDATE "_prisma_migrations" SET "migration_name" = ${'renamed-for-test'} WHERE "id" = ${last.id}`;
    try {
      const res = await readyRoute.GET();
      expect(res.status).toBe(503);
      const body = await res.json();
      expect(body.status).toBe('not-ready');
      expect(body.migrations.pending).toEqual([name]);
    } finally {
      await db().$executeRaw`UPDATE "_prisma_migrations" SET "migration_name" = ${last.migration_name} WHERE "id" = ${last.id}`;
    }
    await db().$executeRaw`UPDATE "_prisma_migrations" SET "finished_at" = NULL WHERE "id" = ${last.id}`;
    try {
      const r = await readiness();
      expect(r.ready).toBe(false);
      expect(r.migrations!.failed).toEqual([name]);
      expect(r.migrations!.pending).toEqual([]);
    } finally {
      await db().$executeRaw`UPDATE "_prisma_migrations" SET "finished_at" = ${new Date()} WHERE "id" = ${last.id}`;
    }
    expect((await readiness()).ready).toBe(true);
  });
});
