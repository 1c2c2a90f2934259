/** Issue 17, items 1, 2, 10, 16 (git ref), 19: compose reads git only from registered repositories, within limits, without echoing. */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import git from 'isomorphic-git';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes, call, seed, snapshot, tokenFor } from '@/test/helpers';
import { db } from '@/lib/db/client';
const compose = apiRoutes('/api/v1/policies/[name]/compose');
const repos = apiRoutes('/api/v1/git_repositories');

const parent = { run_list: ['webapp::default'], cookbook_locks: { webapp: { version: '1.6.0', identifier: 'webapp160' } } };
const SECRET_TEXT = 'REMOTE-SAID-TOP-SECRET';

let admin: string, viewer: string;
let hits: { url: string; auth?: string }[] = [];
let behaviour: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_q, res) => res.end();
let server: http.Server, other: http.Server, base: string, otherBase: string;
let otherHits = 0;
const roots: string[] = [];

const composeWith = (token: string, source: object, extra: object = {}) =>
  call(compose.POST, 'POST', { token, params: { name: 'webapp' }, body: { parent, includes: [{ name: 'inc', source }], ...extra } });
const register = (token: string, body: object) => call(repos.POST, 'POST', { token, body });

beforeAll(async () => {
  await seed();
  [admin, viewer] = await Promise.all(['admin@example.com', 'viewer@example.com'].map(tokenFor));
  server = http.createServer((req, res) => {
    hits.push({ url: req.url ?? '', auth: req.headers.authorization });
    behaviour(req, res);
  });
  other = http.createServer((_req, res) => {
    otherHits++;
    res.end(SECRET_TEXT);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  otherBase = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
});

afterEach(() => {
  hits = [];
  otherHits = 0;
  delete process.env.GIT_LOCAL_ROOT;
  delete process.env.GIT_MAX_REPO_BYTES;
  delete process.env.GIT_FETCH_TIMEOUT_MS;
});

afterAll(async () => {
  server.closeAllConnections();
  other.closeAllConnections();
  await new Promise((r) => server.close(r));
  await new Promise((r) => other.close(r));
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

describe('item 1: no server-side fetch of arbitrary URLs', () => {
  it('an unregistered URL or name is refused without any request leaving the server', async () => {
    behaviour = (_q, res) => res.end(SECRET_TEXT);
    for (const repository of [`${base}/anything`, 'http://user:pw@127.0.0.1:1/x', 'not-registered']) {
      const res = await composeWith(viewer, { type: 'git', repository, path: 'a.json', ref: 'main' });
      expect(res.status, repository).toBe(400);
      expect(res.json.errors[0].path).toBe('/includes/0/source/repository');
      expect(res.text).not.toContain(SECRET_TEXT);
    }
    expect(hits).toEqual([]);
  });

  it('only admins register repositories; credentials are stored encrypted and never returned', async () => {
    const before = snapshot();
    expect((await register(viewer, { name: 'evil', url: `${base}/evil.git` })).status).toBe(403);
    expect(snapshot()).toBe(before);
    expect((await register(admin, { name: 'bad', url: 'http://u:p@example.com/r.git' })).status).toBe(400);

    const created = await register(admin, { name: 'policies', url: `${base}/policies.git`, username: 'bot', secret: 's3cret-token-value' });
    expect(created.status).toBe(201);
    expect(created.text).not.toContain('s3cret-token-value');
    expect(created.json).toMatchObject({ name: 'policies', hasSecret: true, username: 'bot' });
    const row = await db().gitRepository.findUniqueOrThrow({ where: { name: 'policies' } });
    expect(row.secretEnc).toBeTruthy();
    expect(row.secretEnc).not.toContain('s3cret');
    const asAdmin = await call(repos.GET, 'GET', { token: admin });
    expect(asAdmin.text).not.toContain('s3cret');
    const asViewer = await call(repos.GET, 'GET', { token: viewer });
    expect(asViewer.json).toEqual([{ name: 'policies' }]);
    // The audit event says a secret exists, not what it is.
    const ev = await db().auditEvent.findFirstOrThrow({ where: { action: 'git-repository.register' } });
    expect(JSON.stringify(ev)).not.toContain('s3cret');
  });

  it('a registered repository is fetched with its credentials; what the remote says is never echoed', async () => {
    behaviour = (_q, res) => {
      res.setHeader('content-type', 'application/x-git-upload-pack-advertisement');
      res.end(SECRET_TEXT.repeat(20));
    };
    const res = await composeWith(viewer, { type: 'git', repository: 'policies', path: 'a.json', ref: 'main' });
    expect(res.status).toBe(400);
    expect(res.text).not.toContain(SECRET_TEXT);
    expect(res.text).not.toContain('127.0.0.1');
    expect(hits.length).toBeGreaterThan(0);
    expect(hits[0].url).toMatch(/^\/policies\.git\/info\/refs/);
    expect(Buffer.from(hits[0].auth!.replace(/^Basic /, ''), 'base64').toString()).toBe('bot:s3cret-token-value');
  });

  it('redirects are not followed', async () => {
    behaviour = (_q, res) => {
      res.statusCode = 302;
      res.setHeader('location', `${otherBase}/secret`);
      res.end();
    };
    const res = await composeWith(viewer, { type: 'git', repository: 'policies', path: 'a.json', ref: 'main' });
    expect(res.status).toBe(400);
    expect(res.json.error[0]).toMatch(/redirect/);
    expect(otherHits).toBe(0);
  });
});

describe('item 10: fetch limits', () => {
  it('stops reading at the repository size limit', async () => {
    process.env.GIT_MAX_REPO_BYTES = String(8 * 1024);
    let sent = 0;
    behaviour = (_q, res) => {
      res.setHeader('content-type', 'application/x-git-upload-pack-advertisement');
      const chunk = Buffer.alloc(16 * 1024, 'a');
      const pump = () => {
        while (sent < 50 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => (sent = Math.max(sent, 0)));
      pump();
    };
    const res = await composeWith(viewer, { type: 'git', repository: 'policies', path: 'a.json', ref: 'main' });
    expect(res.status).toBe(400);
    expect(res.json.error[0]).toMatch(/larger than the limit/);
    expect(sent).toBeLessThan(10 * 1024 * 1024);
    // A declared length over the limit is refused before reading.
    behaviour = (_q, res) => {
      res.setHeader('content-length', String(50 * 1024 * 1024));
      res.write(Buffer.alloc(1024));
    };
    const declared = await composeWith(viewer, { type: 'git', repository: 'policies', path: 'a.json', ref: 'main' });
    expect(declared.json.error[0]).toMatch(/larger than the limit/);
  });

  it('gives up after the time limit', async () => {
    process.env.GIT_FETCH_TIMEOUT_MS = '400';
    behaviour = () => {
      /* never answers */
    };
    // The server never answers: the answer names the limit that fired (the test's own timeout would say nothing).
    const res = await composeWith(viewer, { type: 'git', repository: 'policies', path: 'a.json', ref: 'main' });
    expect(res.status).toBe(400);
    expect(res.json.error[0]).toMatch(/no answer within 400 ms/);
  });

  it('limits the number of git includes per request', async () => {
    const includes = Array.from({ length: 6 }, (_, i) => ({ name: `g${i}`, source: { type: 'git', repository: 'policies', path: 'a.json', ref: 'main' } }));
    const res = await call(compose.POST, 'POST', { token: viewer, params: { name: 'webapp' }, body: { parent, includes } });
    expect(res.status).toBe(400);
    expect(res.json.errors[0].path).toBe('/includes');
    expect(hits).toEqual([]);
  });
});

async function makeRepo(root: string, files: Record<string, string>) {
  const dir = path.join(root, 'repo');
  await git.init({ fs, dir, defaultBranch: 'main' });
  for (const [f, content] of Object.entries(files)) {
    fs.writeFileSync(path.join(dir, f), content);
    await git.add({ fs, dir, filepath: f });
  }
  return { dir, commit: await git.commit({ fs, dir, message: 'c', author: { name: 'T', email: 't@example.com' } }) };
}

describe('item 2: local repositories', () => {
  it('are refused unless an admin configured a root, and then only below it', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pc-sec-root-'));
    roots.push(root);
    const { dir } = await makeRepo(root, { 'secret.txt': `${SECRET_TEXT}\n` });
    // Without GIT_LOCAL_ROOT: neither compose nor registration takes a path.
    const direct = await composeWith(viewer, { type: 'git', repository: dir, path: 'secret.txt', ref: 'main' });
    expect(direct.status).toBe(400);
    expect(direct.text).not.toContain(SECRET_TEXT);
    expect((await register(admin, { name: 'local', url: dir })).status).toBe(400);
    // With a root: paths outside it (the project's own repository, /etc) are refused.
    process.env.GIT_LOCAL_ROOT = root;
    expect((await register(admin, { name: 'outside', url: process.cwd() })).status).toBe(400);
    expect((await register(admin, { name: 'outside', url: `${root}/../` })).status).toBe(400);
    expect((await register(admin, { name: 'local', url: dir })).status).toBe(201);
  });

  it('errors never quote file content; a 40-hex ref that is not in the repository is a 400 on ref (item 16)', async () => {
    process.env.GIT_LOCAL_ROOT = roots[0];
    const notJson = await composeWith(viewer, { type: 'git', repository: 'local', path: 'secret.txt', ref: 'main' });
    expect(notJson.status).toBe(400);
    expect(notJson.text).not.toContain(SECRET_TEXT);
    expect(notJson.text).not.toContain('REMOTE');
    const missing = await composeWith(viewer, { type: 'git', repository: 'local', path: 'secret.txt', ref: 'f'.repeat(40) });
    expect(missing.status).toBe(400);
    expect(missing.json.errors[0].path).toBe('/includes/0/source/ref');
  });

  it('a registration whose path is no longer below the root is not read', async () => {
    const res = await composeWith(viewer, { type: 'git', repository: 'local', path: 'secret.txt', ref: 'main' });
    expect(res.status).toBe(400);
    expect(res.text).not.toContain(SECRET_TEXT);
  });
});

describe('item 19: no URLs or credentials in stored locks', () => {
  it('a saved composed lock names the registered repository only', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pc-sec-lock-'));
    roots.push(root);
    process.env.GIT_LOCAL_ROOT = root;
    const lock = { name: 'mon', revision_id: 'mon-1', run_list: ['recipe[collectd::default]'], cookbook_locks: { collectd: { version: '2.3.0', identifier: 'c230' } } };
    const { dir } = await makeRepo(root, { 'mon.lock.json': JSON.stringify(lock) });
    expect((await register(admin, { name: 'mon-repo', url: dir })).status).toBe(201);
    const dev = await tokenFor('dev@example.com');
    const res = await composeWith(dev, { type: 'git', repository: 'mon-repo', path: 'mon.lock.json', ref: 'main' }, { save: true });
    expect(res.status).toBe(201);
    const rev = await db().policyRevision.findFirstOrThrow({ where: { revisionId: res.json.saved.revisionId } });
    expect(rev.document).not.toContain(dir);
    expect(rev.originDetail).not.toContain(dir);
    expect(JSON.parse(rev.document).included_policy_locks[0].source_options).toMatchObject({ git: 'mon-repo' });
  });
});
