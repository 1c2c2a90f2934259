/**
 * Issue 44 (docs/architecture.md 7): one request envelope at the node:http front. One request id — the log
 * line, the audit event and the answer name the same request on every door (a Chef write, an /api/v1 write,
 * the token data collector); one body reader, which refuses a declared body over the route's limit before
 * reading it, each door answering its own 413.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { db } from '@/lib/db/client';
import { serveChef } from '@/lib/chef/http';
import { isChefPath } from '@/lib/chef/router';
import { signRequest } from '@/lib/auth/chef-signing';
import { respondEarly } from '@/lib/ops/early-guard';
import { createConsoleServer } from '@/lib/ops/server';
import { addUserKey } from '@/lib/services/keys';
import { serveApi } from '@/lib/api/http';
import { pollUntil, seed, tokenFor } from '@/test/helpers';

let base: string;
let server: http.Server;
let adminKey: string;
const logged: Record<string, unknown>[] = [];

beforeAll(async () => {
  await seed();
  await db().stageProtection.deleteMany();
  adminKey = (await addUserKey({ kind: 'system', userId: null, email: 'test' }, 'admin')).privateKey;
  ({ server } = createConsoleServer({
    surface: (p) => (isChefPath(p) ? 'chef' : 'console'),
    routeLabel: () => 'other',
    handle: async (req, res) => {
      if (respondEarly(req, res)) return;
      if (await serveChef(req, res)) return;
      if (await serveApi(req, res)) return;
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
      const line = JSON.parse(s) as Record<string, unknown>;
      if (line.msg === 'request') logged.push(line);
      return true;
    }
    return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write);
});

afterAll(async () => {
  vi.restoreAllMocks();
  delete process.env.DATA_COLLECTOR_TOKEN;
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

/** The request log line of the answer carrying `id` (written when the response has finished: waited for, with a deadline). */
async function logLineOf(id: string) {
  await pollUntil(`the request log line of ${id}`, () => logged.some((l) => l.request_id === id), { everyMs: 5 });
  return logged.find((l) => l.request_id === id)!;
}

describe('one request id: the log line, the audit event and the answer', () => {
  it('a Chef write (a node created with knife’s signature)', async () => {
    const body = JSON.stringify({ name: 'envelope-node', chef_type: 'node', json_class: 'Chef::Node', chef_environment: '_default', run_list: [] });
    const path = '/organizations/console/nodes';
    const res = await fetch(base + path, { method: 'POST', body, headers: { ...signRequest({ method: 'POST', path, body, userId: 'admin', privateKey: adminKey, protocol: '1.3' }), 'content-type': 'application/json', 'x-request-id': 'knife "run" 7' } });
    expect(res.status).toBe(201);
    // The caller's id is not acceptable (spaces, quotes): the front's fresh one is the only id.
    const id = res.headers.get('x-request-id')!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await logLineOf(id)).status).toBe(201);
    expect(await db().auditEvent.findFirstOrThrow({ where: { action: 'node.register', target: 'envelope-node' }, select: { requestId: true } })).toEqual({ requestId: id });
  });

  it('an /api/v1 write (a freeze)', async () => {
    const now = Date.now();
    const res = await fetch(`${base}/api/v1/policy_groups/qa/freezes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await tokenFor('admin@example.com')}`, 'content-type': 'application/json', 'x-request-id': 'ci-build-1234' },
      body: JSON.stringify({ starts_at: new Date(now - 60_000).toISOString(), ends_at: new Date(now + 3_600_000).toISOString(), reason: 'Envelope test' }),
    });
    expect(res.status, await res.clone().text()).toBe(201);
    expect(res.headers.get('x-request-id')).toBe('ci-build-1234');
    expect((await logLineOf('ci-build-1234')).status).toBe(201);
    const audited = await db().auditEvent.findMany({ where: { requestId: 'ci-build-1234' }, select: { action: true } });
    expect(audited.map((e) => e.action)).toContain('stage.freeze.add');
  });

  it('the token data collector (POST /data-collector/v0): the answer names the id the log line names', async () => {
    process.env.DATA_COLLECTOR_TOKEN = 'envelope-token';
    const res = await fetch(`${base}/data-collector/v0`, { method: 'POST', headers: { 'x-data-collector-token': 'envelope-token', 'content-type': 'application/json' }, body: '{not json' });
    expect(res.status).toBe(400);
    const id = res.headers.get('x-request-id')!;
    expect(id).toBeTruthy();
    expect((await logLineOf(id)).status).toBe(400);
    const given = await fetch(`${base}/data-collector/v0`, { method: 'POST', headers: { 'x-data-collector-token': 'envelope-token', 'x-request-id': 'fleet-run-9' }, body: '{not json' });
    expect(given.headers.get('x-request-id')).toBe('fleet-run-9');
    expect((await logLineOf('fleet-run-9')).status).toBe(400);
  });
});

/**
 * A request that declares a body over the route's limit and sends none of it: answered at once, which only
 * happens when nothing waits for the body (a reader that read first would wait forever for bytes never sent).
 */
function declareOnly(path: string, length: number, headers: Record<string, string> = {}, method = 'POST'): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method, headers: { 'content-type': 'application/json', 'content-length': String(length), ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}

describe('one body reader: a declared body over the limit is refused before reading, with the door’s own 413', () => {
  it('Chef JSON (CHEF_MAX_REQUEST_SIZE): Chef’s string', async () => {
    const r = await declareOnly('/organizations/console/nodes', 2_000_001);
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body)).toEqual({ error: 'JSON must be no more than 2000000 bytes.' });
    expect(r.headers.connection).toBe('close');
    expect(r.headers['x-request-id']).toBeTruthy();
  });

  it('a cookbook file upload (file_store, MAX_BODY_BYTES): the console’s limit named', async () => {
    // The limit is the matched row's (PUT file_store/sandboxes/:id/:checksum), read after the match.
    const r = await declareOnly('/organizations/console/file_store/sandboxes/0123456789abcdef/0123456789abcdef0123456789abcdef', 100 * 1024 * 1024, {}, 'PUT');
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body).error).toMatch(/^Request body is larger than \d+ bytes \(MAX_BODY_BYTES\)$/);
  });

  it('the token data collector (DATA_COLLECTOR_MAX_BYTES): its list body', async () => {
    process.env.DATA_COLLECTOR_TOKEN = 'envelope-token';
    const r = await declareOnly('/data-collector/v0', 4 * 1024 * 1024 + 1, { 'x-data-collector-token': 'envelope-token' });
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body)).toEqual({ error: [`A data collector message is at most ${4 * 1024 * 1024} bytes (DATA_COLLECTOR_MAX_BYTES)`] });
    expect(r.headers.connection).toBe('close');
  });

  it('/api/v1 (MAX_BODY_BYTES): the API envelope', async () => {
    const r = await declareOnly('/api/v1/policy_groups/qa/freezes', 100 * 1024 * 1024, { authorization: `Bearer ${await tokenFor('admin@example.com')}` });
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body)).toMatchObject({ error: [expect.stringMatching(/^Request body is \d+ bytes; the limit is \d+ bytes \(MAX_BODY_BYTES\)\.$/)], errors: [] });
  });
});
