/**
 * HTTPS on the console's port (lib/ops/tls.ts, as scripts/serve.ts serves with TLS_CERT_FILE and TLS_KEY_FILE):
 * one socket answers HTTPS, redirects plain GETs to the same URL over HTTPS, refuses other plain requests with
 * a 400 naming no server software, and shuts down gracefully. Real sockets, a real certificate (openssl).
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleServer, type ConsoleServer } from './server';
import { tlsFromEnv } from './tls';
import { selfSignedCert } from '@/test/tls-cert';

let dir: string;
let console_: ConsoleServer;
let port: number;
let files: ReturnType<typeof selfSignedCert>;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tls-'));
  files = selfSignedCert(dir);
  console_ = createConsoleServer({
    tls: tlsFromEnv({ TLS_CERT_FILE: files.certFile, TLS_KEY_FILE: files.keyFile }),
    surface: () => 'console',
    routeLabel: (p) => p,
    handle: (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ path: req.url, encrypted: 'encrypted' in req.socket }));
    },
  });
  port = await console_.listen(0, '127.0.0.1');
});

afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function ask(mod: typeof http | typeof https, method: string, p: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = mod.request({ host: '127.0.0.1', port, method, path: p, rejectUnauthorized: false, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('HTTPS on the console port', () => {
  it('serves HTTPS', async () => {
    expect(console_.scheme).toBe('https');
    const r = await ask(https, 'GET', '/organizations/x/nodes?q=1');
    expect([r.status, JSON.parse(r.body)]).toEqual([200, { path: '/organizations/x/nodes?q=1', encrypted: true }]);
  });

  it('redirects a plain GET to the same URL over HTTPS and refuses other plain requests, naming no server software', async () => {
    const get = await ask(http, 'GET', '/organizations/x/users');
    expect([get.status, get.headers.location]).toEqual([301, `https://127.0.0.1:${port}/organizations/x/users`]);
    const post = await ask(http, 'POST', '/organizations/x/nodes');
    expect(post.status).toBe(400);
    expect(JSON.parse(post.body).error[0]).toContain('HTTPS');
    for (const r of [get, post]) expect(`${JSON.stringify(r.headers)} ${r.body}`.toLowerCase()).not.toMatch(/openresty|nginx|node/);
  });

  it('refuses half a configuration, naming what is missing', () => {
    expect(() => tlsFromEnv({ TLS_CERT_FILE: files.certFile })).toThrow(/TLS_KEY_FILE/);
    expect(tlsFromEnv({})).toBeNull();
  });

  it('shuts down: stops accepting and closes the idle HTTPS connections it took', async () => {
    const idle = tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false });
    await new Promise((r) => idle.once('secureConnect', r));
    idle.write('GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive\r\n\r\n');
    await new Promise((r) => idle.once('data', r));
    const closed = new Promise((r) => idle.once('close', r));
    expect(await console_.shutdown(5_000)).toBe(0);
    await closed;
    await expect(ask(https, 'GET', '/')).rejects.toThrow(/ECONNREFUSED/);
  });
});
