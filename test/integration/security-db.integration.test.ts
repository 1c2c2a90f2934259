/** Issue 17: write-lock contention (9) and a read-only database (15). */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes, call, seed, snapshot, tokenFor } from '@/test/helpers';
import { createDb, db, installDb } from '@/lib/db/client';
import { databaseFile, databaseUrl } from '@/lib/db/url';
import { resetWriteStateCache } from '@/lib/db/queries/health';
const promoteRoute = apiRoutes('/api/v1/policy_groups/[group]/promote');
const policiesRoute = apiRoutes('/api/v1/policies');
import * as health from '@/app/api/health/route';

let dev: string;
let main: ReturnType<typeof db>;

async function active(stage: string, policy: string): Promise<string | null> {
  const row = await db().groupPolicy.findFirst({ where: { group: { name: stage }, policy: { name: policy } }, select: { revision: { select: { revisionId: true } } } });
  return row?.revision.revisionId ?? null;
}

/** Another process (a CLI, a second instance) holding the write lock for `ms`, with a write of its own. Resolves once it holds the lock. */
function holdWriteLock(ms: number): Promise<ChildProcess & { done: Promise<void> }> {
  const script = `
    const Database = require(${JSON.stringify(require.resolve('better-sqlite3'))});
    const d = new Database(${JSON.stringify(databaseFile())});
    d.exec('BEGIN IMMEDIATE');
    d.prepare("INSERT INTO LoginThrottle (key, failures) VALUES ('other-process-' || hex(randomblob(4)), 1)").run();
    process.stdout.write('locked\\n');
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${ms});
    d.exec('COMMIT');
    d.close();`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const done = new Promise<void>((r) => child.on('exit', () => r()));
  return new Promise((resolve) => child.stdout!.once('data', () => resolve(Object.assign(child, { done }))));
}

beforeAll(async () => {
  await seed();
  dev = await tokenFor('dev@example.com');
  await call(policiesRoute.GET, 'GET', { token: dev });
  main = db();
});

afterAll(() => installDb(main));

describe('item 9: write-lock contention', () => {
  it('a write transaction waits for another process to release the write lock, then succeeds', async () => {
    const expected = await active('qa', 'jenkins-ci');
    const holder = await holdWriteLock(400);
    const res = await call(promoteRoute.POST, 'POST', { token: dev, params: { group: 'qa' }, body: { from: 'dev', policies: ['jenkins-ci'], expected: { 'jenkins-ci': expected } } });
    await holder.done;
    expect(res.status, res.text).toBe(200);
    expect(await active('qa', 'jenkins-ci')).toBe(await active('dev', 'jenkins-ci'));
  });

  it('answers 503 with Retry-After when the lock is not released in time, and changes nothing', async () => {
    installDb(createDb(databaseUrl(), { busyTimeoutMs: 150 }));
    try {
      const expected = await active('qa', 'haproxy-lb');
      const holder = await holdWriteLock(1500);
      const before = snapshot({ except: ['LoginThrottle', 'ApiToken'] });
      const req = new Request('http://localhost/api/v1/policy_groups/qa/promote', {
        method: 'POST',
        headers: { authorization: `Bearer ${dev}`, 'content-type': 'application/json' },
        body: JSON.stringify({ from: 'dev', policies: ['haproxy-lb'], expected: { 'haproxy-lb': expected } }),
      });
      const res = await promoteRoute.POST(req, { params: Promise.resolve({ group: 'qa' }) });
      await holder.done;
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await res.json()).error[0]).toMatch(/busy/);
      expect(snapshot({ except: ['LoginThrottle', 'ApiToken'] })).toBe(before);
    } finally {
      installDb(main);
    }
  });
});

describe('item 15: a read-only database', () => {
  it('token requests still work (lastUsedAt is best effort) and health reports read-only', async () => {
    await main.apiToken.updateMany({ data: { lastUsedAt: null } });
    installDb(createDb(databaseUrl(), { readonly: true }));
    resetWriteStateCache();
    try {
      const res = await call(policiesRoute.GET, 'GET', { token: dev });
      expect(res.status, res.text).toBe(200);
      const h = await health.GET();
      expect(h.status).toBe(503);
      expect(await h.json()).toMatchObject({ database: 'read-only', writes: 'read-only' });
    } finally {
      installDb(main);
      resetWriteStateCache();
    }
    const h = await health.GET();
    expect(h.status).toBe(200);
    expect(await h.json()).toMatchObject({ database: 'up', writes: 'writable' });
  });
});
