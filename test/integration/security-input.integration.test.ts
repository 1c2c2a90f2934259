/** Issue 17: nesting and size guards (8), demo seed (11), streamed bodies (12), ordering bounds (13), early 4xx (16), prototype keys (20). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes, callApi, accessFor, call, seed, snapshot, tokenFor } from '@/test/helpers';
import { db } from '@/lib/db/client';
import { composePolicy } from '@/lib/services/compose';
import { updateUser } from '@/lib/services/users';
import { DEMO_PASSWORD } from '@/lib/seed/seed-demo';
import { demoAdminActive, demoAdminWarning, demoSeedDecision } from '@/lib/seed/demo-seed-policy';
import { cookbookDigest } from '@/lib/services/funnel';
import { earlyRefusal, respondEarly } from '@/lib/ops/early-guard';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PolicyLock } from '@/lib/domain';
const compose = apiRoutes('/api/v1/policies/[name]/compose');
const revisions = apiRoutes('/api/v1/policies/[name]/revisions');
const ordering = apiRoutes('/api/v1/ordering/preview');
const cookbookRoute = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]/promote-cookbook');

let dev: string, viewer: string;
const nested = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

beforeAll(async () => {
  await seed();
  [dev, viewer] = await Promise.all(['dev@example.com', 'viewer@example.com'].map(tokenFor));
  await call(compose.POST, 'POST', { token: dev, params: { name: 'webapp' }, body: {} });
});

describe('item 8: compose nesting and size guards', () => {
  const body = (attrs: string, save = false) => `{"parent":{"run_list":["webapp::default"],"cookbook_locks":{"webapp":{"version":"1.0.0","identifier":"${'a'.repeat(40)}"}},"default_attributes":${attrs}},"includes":[]${save ? ',"save":true' : ''}}`;

  it('a very deep document is a 400, not a stack overflow', async () => {
    const res = await call(compose.POST, 'POST', { token: viewer, params: { name: 'webapp' }, body: body(nested(4500)) });
    expect(res.status).toBe(400);
  });

  it('refuses to save (or preview) a lock deeper than an upload may be, and stores nothing', async () => {
    const before = snapshot({ except: ['ApiToken'] });
    const res = await call(compose.POST, 'POST', { token: dev, params: { name: 'webapp' }, body: body(nested(70), true) });
    expect(res.status).toBe(400);
    expect(res.json.error[0]).toMatch(/deeper than/);
    expect(snapshot({ except: ['ApiToken'] })).toBe(before);
    // The same limit an upload meets: depth 63 of attributes fits.
    const fits = await call(compose.POST, 'POST', { token: viewer, params: { name: 'webapp' }, body: body(nested(60)) });
    expect(fits.status).toBe(200);
  });

  it('a composed lock larger than an upload may be is refused, in previews and saves alike', async () => {
    process.env.MAX_BODY_BYTES = '6000';
    try {
      const parent = {
        run_list: Array.from({ length: 300 }, (_, i) => `recipe[cb${i}::default]`),
        cookbook_locks: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`cb${i}`, { version: '1.0.0', identifier: 'a'.repeat(40) }])),
      };
      const dda = await accessFor('dev@example.com');
      const before = await db().policyRevision.count();
      await expect(composePolicy(dda, { policy: 'webapp', parent, includes: [] })).rejects.toMatchObject({ status: 413 });
      await expect(composePolicy(dda, { policy: 'webapp', parent, includes: [], save: true })).rejects.toMatchObject({ status: 413 });
      expect(await db().policyRevision.count()).toBe(before);
    } finally {
      delete process.env.MAX_BODY_BYTES;
    }
  });
});

describe('item 12: chunked bodies are counted while streaming', () => {
  it('stops reading at the limit', async () => {
    let pulled = 0;
    const chunk = new Uint8Array(1024 * 1024).fill(32);
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        pulled++;
        if (pulled > 200) c.close();
        else c.enqueue(chunk);
      },
    });
    const req = new Request('http://localhost/api/v1/policies/webapp/revisions', { method: 'POST', body: stream, headers: { authorization: `Bearer ${dev}`, 'content-type': 'application/json' }, duplex: 'half' } as RequestInit);
    const res = await revisions.POST(req, { params: Promise.resolve({ name: 'webapp' }) });
    expect(res.status).toBe(413);
    expect(pulled).toBeLessThanOrEqual(12);
    // A normal body still reads whole, BOM dropped as Request.text() does.
    const bom = await callApi('POST', '/api/v1/ordering/preview', { token: viewer, body: '\uFEFF' + JSON.stringify({ techniques: [], directives: [], rules: [] }) });
    expect(bom.status, bom.text).toBe(200);
  });
});

describe('item 13: ordering preview bounds', () => {
  const technique = { name: 't', multiInstance: false };
  it('refuses inputs whose answer would be huge, quickly', async () => {
    const directives = Array.from({ length: 20 }, (_, i) => ({ id: `d${i}`, name: `D${i}`.padEnd(200, 'x'), technique: 't' }));
    const rules = Array.from({ length: 1000 }, (_, i) => ({ id: `r${i}`, name: `R${i}`.padEnd(200, 'x'), directiveIds: directives.map((d) => d.id) }));
    // Refused by its bounds before any ordering is computed (the message names the bound), not after.
    const res = await call(ordering.POST, 'POST', { token: viewer, body: { techniques: [technique], directives, rules } });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/at most/);
    const big = await call(ordering.POST, 'POST', { token: viewer, body: { techniques: [technique], directives: [{ id: 'd', name: 'D', technique: 't', values: { v: ['y'.repeat(1_100_000)] } }], rules: [] } });
    expect(big.status).toBe(413);
    const tooManyValues = await call(ordering.POST, 'POST', { token: viewer, body: { techniques: [technique], directives: [{ id: 'd', name: 'D', technique: 't', values: { v: Array.from({ length: 25_000 }, () => 'v') } }], rules: [] } });
    expect(tooManyValues.status).toBe(400);
    const ok = await call(ordering.POST, 'POST', { token: viewer, body: { techniques: [technique], directives: directives.slice(0, 1).map((d) => ({ ...d, values: { v: ['a'] } })), rules: rules.slice(0, 400).map((r) => ({ ...r, directiveIds: ['d0'] })) } });
    expect(ok.status).toBe(200);
  });
});

describe('item 16: 4xx, not 500, before routing', () => {
  it('TRACE and unknown methods are a 405 with the Chef-style body; a malformed %-escape a 400', async () => {
    expect(earlyRefusal('TRACE', '/api/v1/policies')).toMatchObject({ status: 405, body: { error: [expect.stringMatching(/TRACE/)] } });
    expect(earlyRefusal('GET', '/api/v1/policies/%zz')).toMatchObject({ status: 400 });
    expect(earlyRefusal('GET', '/api/v1/policies/web%20app')).toBeNull();
    // Issue 44 step 4: /api/v1 no longer passes through proxy.ts (Next's middleware) but is served by the node:http
    // front, whose early guard is the next test's; an answer no route gives (an unknown path's 404) carries the caller's id.
    const unknown = await callApi('GET', '/api/v1/no-such-path', { headers: { 'x-request-id': 'abc-123' } });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error[0]).toMatch(/no-such-path/);
    expect(unknown.headers.get('x-request-id')).toBe('abc-123');
  });

  it('a node:http front answers TRACE with 405 before Next (which cannot build a Request for it)', async () => {
    expect(() => new Request('http://localhost/', { method: 'TRACE' })).toThrow();
    const server = http.createServer((req, res) => {
      if (respondEarly(req, res)) return;
      res.end('passed through');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const send = (method: string, p: string) =>
      new Promise<{ status: number; body: string; allow?: string; requestId?: string }>((resolve, reject) => {
        const r = http.request({ host: '127.0.0.1', port, method, path: p }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode!, body, allow: res.headers.allow as string | undefined, requestId: res.headers['x-request-id'] as string | undefined }));
        });
        r.on('error', reject);
        r.end();
      });
    try {
      const trace = await send('TRACE', '/api/v1/policies');
      expect(trace.status).toBe(405);
      expect(JSON.parse(trace.body).error[0]).toMatch(/TRACE/);
      expect(trace.allow).toContain('GET');
      expect(trace.requestId).toBeTruthy();
      const malformed = await send('GET', '/api/v1/policies/%zz');
      expect(malformed.status).toBe(400);
      expect(malformed.requestId).toBeTruthy();
      expect((await send('GET', '/api/v1/policies')).body).toBe('passed through');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('item 20: cookbook names that are Object.prototype members', () => {
  it('promote-cookbook does not answer 200 noop for toString, constructor or __proto__', async () => {
    const expected = (await db().groupPolicy.findFirstOrThrow({ where: { group: { name: 'qa' }, policy: { name: 'webapp' } }, select: { revision: { select: { revisionId: true } } } })).revision.revisionId;
    for (const cookbook of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      const res = await call(cookbookRoute.POST, 'POST', { token: dev, params: { group: 'qa', name: 'webapp' }, body: { from: 'dev', cookbook, expected_revision_id: expected } });
      expect(res.status, `${cookbook}: ${res.text}`).toBe(422);
      expect(res.json.noop).toBeUndefined();
    }
  });

  it('the stored cookbook digest keeps a cookbook named __proto__', () => {
    const lock = JSON.parse('{"name":"p","revision_id":"r","run_list":[],"cookbook_locks":{"__proto__":{"version":"1.0.0","identifier":"x"},"apt":{"version":"2.0.0","identifier":"y"}}}') as PolicyLock;
    expect(JSON.parse(cookbookDigest(lock))).toEqual(JSON.parse('{"__proto__":"1.0.0|x","apt":"2.0.0|y"}'));
    expect(Object.keys(JSON.parse(cookbookDigest(lock)))).toEqual(['__proto__', 'apt']);
  });
});

describe('item 11: the demo is seeded only when asked', () => {
  it('decides from SEED_DEMO, an explicit DATABASE_URL and NODE_ENV', () => {
    expect(demoSeedDecision({}).seed).toBe(true);
    expect(demoSeedDecision({ DATABASE_URL: 'file:./data/typo.db' }).seed).toBe(false);
    expect(demoSeedDecision({ DATABASE_URL: 'file:./data/typo.db', SEED_DEMO: 'true' }).seed).toBe(true);
    expect(demoSeedDecision({ NODE_ENV: 'production' }).seed).toBe(false);
    expect(demoSeedDecision({ SEED_DEMO: 'false' }).seed).toBe(false);
  });

  it('prepare on a mistyped (explicit) DATABASE_URL leaves the new database empty and says why', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pc-prepare-'));
    const file = path.join(dir, 'typo.db');
    try {
      const env = { ...process.env, DATABASE_URL: `file:${file}`, NEXTAUTH_SECRET: 'x', NODE_ENV: 'development' } as NodeJS.ProcessEnv;
      delete env.SEED_DEMO;
      const r = spawnSync(process.execPath, [path.resolve('node_modules/tsx/dist/cli.mjs'), 'scripts/prepare.ts'], { env, encoding: 'utf8', timeout: 60_000 });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/not seeding demo data: DATABASE_URL is set explicitly/);
      const raw = new Database(file, { readonly: true });
      expect((raw.prepare('SELECT COUNT(*) AS n FROM "User"').get() as { n: number }).n).toBe(0);
      raw.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('warns on a production server while the demo admin still signs in with the demo password', async () => {
    expect(await demoAdminActive(db())).toBe(true);
    expect(await demoAdminWarning(db(), { NODE_ENV: 'development' })).toBeNull();
    expect(await demoAdminWarning(db(), { NODE_ENV: 'production' })).toMatch(/admin@example.com/);
    await updateUser(await accessFor('admin@example.com'), { email: 'admin@example.com', password: DEMO_PASSWORD + '-changed' });
    expect(await demoAdminWarning(db(), { NODE_ENV: 'production' })).toBeNull();
  });
});
