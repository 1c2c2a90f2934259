/**
 * Graceful shutdown of the server shell scripts/serve.ts runs (lib/ops/server.ts),
 * in a child process with a stand-in for Next (test/fixtures/ops-server.ts):
 * SIGTERM lets in-flight requests finish, refuses new connections, closes idle
 * keep-alive connections, runs the shutdown hooks, and exits 0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const children: ChildProcess[] = [];

interface Running {
  child: ChildProcess;
  port: number;
  lines: Record<string, unknown>[];
  exited: Promise<number | null>;
}

async function start(env: Record<string, string> = {}): Promise<Running> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/ops-server.ts'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const lines: Record<string, unknown>[] = [];
  let buf = '';
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        const obj = JSON.parse(line);
        lines.push(obj);
        if (obj.msg === 'listening') resolve(obj.port);
      }
    });
    exited.then((code) => reject(new Error(`server exited ${code}: ${stderr}`)));
  });
  return { child, port, lines, exited };
}

function get(port: number, p: string, agent?: http.Agent): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: p, agent }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
      })
      .on('error', reject);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

describe('graceful shutdown', () => {
  it('finishes the request in flight, refuses new connections, runs the hooks and exits 0', async () => {
    const s = await start();
    const slow = get(s.port, '/slow?ms=1500');
    await sleep(300);
    const signalled = Date.now();
    s.child.kill('SIGTERM');
    await sleep(200);
    // The listener is closed: a new connection is refused while the slow request is still being served.
    await expect(get(s.port, '/')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    const r = await slow;
    expect(r.status).toBe(200);
    expect(r.body).toBe('slow done');
    expect(r.headers.connection).toBe('close');
    expect(await s.exited).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(5_000);
    const msgs = s.lines.map((l) => `${l.msg}${l.hook ? ':' + l.hook : ''}`);
    // The request is logged before the hooks run; hooks run newest first; then the exit.
    expect(msgs.slice(msgs.indexOf('SIGTERM: finishing in-flight requests'))).toEqual(['SIGTERM: finishing in-flight requests', 'request', 'hook ran:worker', 'hook ran:database', 'stopped']);
    const logged = s.lines.find((l) => l.msg === 'request')!;
    expect(logged).toMatchObject({ level: 'info', method: 'GET', route: '/slow', status: 200, surface: 'console' });
    expect(logged.duration_ms as number).toBeGreaterThanOrEqual(1400);
    expect(s.lines.find((l) => l.msg === 'stopped')).toMatchObject({ exit_code: 0 });
  });

  it('does not wait for idle keep-alive connections', async () => {
    const s = await start();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect((await get(s.port, '/', agent)).body).toBe('ok');
      const signalled = Date.now();
      s.child.kill('SIGTERM');
      expect(await s.exited).toBe(0);
      // The server keeps idle connections 65 s; shutdown closed this one at once.
      expect(Date.now() - signalled).toBeLessThan(3_000);
    } finally {
      agent.destroy();
    }
  });

  it('cuts requests that outlast SHUTDOWN_TIMEOUT_MS and exits 1', async () => {
    const s = await start({ SHUTDOWN_TIMEOUT_MS: '500' });
    const slow = get(s.port, '/slow?ms=10000').catch((e) => e);
    await sleep(300);
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(1);
    expect(await slow).toBeInstanceOf(Error);
    expect(s.lines.some((l) => l.msg === 'shutdown timeout: closing connections with requests still in flight')).toBe(true);
  });
});
