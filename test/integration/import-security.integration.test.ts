/**
 * Issue 41, the importer's findings (item 4 and the import lows), each a test that failed on the main branch of
 * 2026-12-03 (see /work/notes/move-in.md for how that was checked):
 * - an import adds no key to an account or client the console had before, unless --prefer source, and then the
 *   report lists each key added;
 * - `--dir` refuses symbolic links (files and directories) and paths that lead out of the tree;
 * - `--server` caps every answer (a document, a list, an error body) and fetches cookbook file URLs only from the
 *   server's own origin or one given with --file-origin.
 * Both databases.
 */
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Access } from '@/lib/auth/permissions';
import { db } from '@/lib/db/client';
import { createClient } from '@/lib/services/clients';
import { ChefServerSource } from '@/lib/chef/import-source';
import { DirectorySource, runImport } from '@/lib/services/import';
import { HOME_MEMBERSHIP } from '@/lib/services/organizations';
import { fixtureText } from '../fixtures';
import { accessFor } from '../helpers';

let admin: Access;
let tmp: string;
const pem = () => generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
const [consoleKey, plantedUserKey, plantedClientKey] = [pem(), pem(), pem()];

function put(root: string, rel: string, text: string) {
  const p = path.join(root, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
  return p;
}

beforeAll(async () => {
  await db().user.create({ data: { email: 'admin@example.com', name: 'Admin', chefName: 'admin', isAdmin: true, passwordHash: '', orgMemberships: HOME_MEMBERSHIP } });
  admin = await accessFor('admin@example.com');
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'import-security-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('issue 41 item 4: imports plant no keys in existing accounts or clients', () => {
  it('a tree naming the console administrator and a console client adds them no key by default; --prefer source adds and lists each', async () => {
    // web-1: the console's own client (made here, not by an import), with its default key.
    await createClient(admin, { name: 'web-1', public_key: consoleKey }, { apiVersion: 1 });
    const dir = path.join(tmp, 'plant');
    put(dir, 'users/admin.json', JSON.stringify({ username: 'admin', email: 'admin@example.com', display_name: 'Admin', public_key: plantedUserKey }));
    put(dir, 'organizations/acme/members.json', JSON.stringify([{ user: { username: 'admin' } }]));
    put(dir, 'organizations/acme/clients/web-1.json', JSON.stringify({ name: 'web-1', validator: false, public_key: consoleKey }));
    // knife ec backup --with-key-sql: every key of users and clients (and, as older backups wrote them, the same rows in key_dump.json).
    const rows = [{ name: 'web-1', type: 'client', key_name: 'backdoor', public_key: plantedClientKey, org_name: 'acme', expires_at: 'infinity' }];
    put(dir, 'key_table_dump.json', JSON.stringify(rows));
    put(dir, 'key_dump.json', JSON.stringify(rows));

    const keys = async () => ({
      admin: (await db().chefKey.findMany({ where: { user: { chefName: 'admin' } }, select: { name: true } })).map((k) => k.name),
      client: (await db().chefKey.findMany({ where: { client: { name: 'web-1' } }, select: { name: true } })).map((k) => k.name).sort(),
    });
    const { report } = await runImport(admin, new DirectorySource(dir));
    expect(await keys()).toEqual({ admin: [], client: ['default'] });
    expect(report.conflicts).toEqual(
      expect.arrayContaining([
        { kind: 'user', name: 'admin', detail: expect.stringMatching(/existing console account .*key\(s\) 'default' \(SHA-256 [0-9a-f]{16}\) are not added .*--prefer source/) },
        { kind: 'client', name: 'web-1', detail: expect.stringMatching(/lacks the source's keys 'backdoor' \(SHA-256 [0-9a-f]{16}\): not added .*--prefer source/) },
      ]),
    );
    expect(report.imported.filter((e) => e.kind === 'user' || e.kind === 'client')).toEqual([]);

    // Asked for: added, and each key listed.
    const taken = await runImport(admin, new DirectorySource(dir), { prefer: 'source' });
    expect(await keys()).toEqual({ admin: ['default'], client: ['backdoor', 'default'] });
    expect(taken.report.imported).toEqual(
      expect.arrayContaining([
        { kind: 'user', name: 'admin', detail: expect.stringMatching(/^added key\(s\) 'default' \(SHA-256 [0-9a-f]{16}\) to admin@example\.com \(--prefer source\)/) },
        { kind: 'client', name: 'web-1', detail: expect.stringMatching(/^added key\(s\) 'backdoor' \(SHA-256 [0-9a-f]{16}\) \(--prefer source\)$/) },
      ]),
    );
  });
});

describe('issue 41 (low): --dir reads the tree and nothing outside it', () => {
  it('refuses symbolic links to files and directories, and an organization directory that is a link', async () => {
    const outside = path.join(tmp, 'outside');
    put(outside, 'node.json', JSON.stringify({ name: 'evil', chef_type: 'node', json_class: 'Chef::Node', normal: { from: 'outside' } }));
    put(outside, 'bag/item.json', JSON.stringify({ id: 'item', secret: 'outside' }));
    put(outside, 'secret.rb', "log 'outside'\n");
    const dir = path.join(tmp, 'links');
    const lock = JSON.parse(fixtureText('locks/rfc-minimal.lock.json')) as { cookbook_locks: Record<string, { identifier: string; version: string }> };
    const [cb, { identifier, version }] = Object.entries(lock.cookbook_locks)[0];
    put(dir, 'nodes/fine.json', JSON.stringify({ name: 'fine', chef_type: 'node', json_class: 'Chef::Node' }));
    fs.symlinkSync(path.join(outside, 'node.json'), path.join(dir, 'nodes/evil.json'));
    fs.mkdirSync(path.join(dir, 'data_bags'), { recursive: true });
    fs.symlinkSync(path.join(outside, 'bag'), path.join(dir, 'data_bags/leak'));
    put(dir, `cookbook_artifacts/${cb}-${identifier}/metadata.rb`, `name '${cb}'\nversion '${version}'\n`);
    fs.mkdirSync(path.join(dir, `cookbook_artifacts/${cb}-${identifier}/recipes`), { recursive: true });
    fs.symlinkSync(path.join(outside, 'secret.rb'), path.join(dir, `cookbook_artifacts/${cb}-${identifier}/recipes/default.rb`));

    const { report } = await runImport(admin, new DirectorySource(dir));
    expect(await db().node.findUnique({ where: { name: 'evil' } })).toBeNull();
    expect(await db().node.findUnique({ where: { name: 'fine' } })).not.toBeNull();
    expect(await db().dataBag.findUnique({ where: { name: 'leak' } })).toBeNull();
    expect(await db().cookbookArtifact.count({ where: { name: cb } })).toBe(0);
    expect(report.skipped).toEqual(
      expect.arrayContaining([
        { kind: 'node', name: 'evil', detail: expect.stringContaining('a symbolic link: refused') },
        { kind: 'data-bag', name: 'leak', detail: expect.stringContaining('a symbolic link: refused') },
        { kind: 'cookbook-artifact', name: `${cb}@${identifier}`, detail: expect.stringContaining('a symbolic link: refused') },
      ]),
    );

    // A knife-ec-backup tree whose organization directory is a link out of the tree: nothing read through it.
    const ec = path.join(tmp, 'ec');
    put(outside, 'org/nodes/stolen.json', JSON.stringify({ name: 'stolen', chef_type: 'node', json_class: 'Chef::Node' }));
    fs.mkdirSync(path.join(ec, 'organizations'), { recursive: true });
    fs.symlinkSync(path.join(outside, 'org'), path.join(ec, 'organizations/acme'));
    const viaLink = await runImport(admin, new DirectorySource(ec));
    expect(await db().node.findUnique({ where: { name: 'stolen' } })).toBeNull();
    expect(viaLink.report.skipped.map((e) => e.detail).join('\n')).toContain('a symbolic link: refused');
  });
});

describe('issue 41 (low): --server caps every answer and fetches files only from its own origin', () => {
  let server: http.Server;
  let other: http.Server;
  let url: string;
  let otherUrl: string;
  const sent = new Map<string, number>();
  const otherHits: string[] = [];
  const fileBytes = Buffer.from("log 'hello'\n");

  /** Writes `total` bytes of `body` chunks (a JSON document that never ends early), counting what left before the client hung up. */
  function stream(key: string, res: http.ServerResponse, status: number, head: string, total: number) {
    res.writeHead(status, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let n = 0;
    sent.set(key, 0);
    res.write(head);
    const pump = () => {
      while (n < total) {
        n += chunk.length;
        sent.set(key, n);
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end('"}}');
    };
    res.on('close', () => sent.set(key, Math.min(n, sent.get(key) ?? n)));
    pump();
  }

  beforeAll(async () => {
    other = http.createServer((req, res) => {
      otherHits.push(req.url!);
      res.writeHead(200).end(fileBytes);
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    const real = (await import('node:crypto')).createHash('md5').update(fileBytes).digest('hex');
    server = http.createServer((req, res) => {
      const p = new URL(req.url!, 'http://x').pathname.replace('/organizations/acme/', '');
      const json = (body: unknown) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (p === 'nodes') return json({ huge: `${url}/organizations/acme/nodes/huge` });
      if (p === 'nodes/huge') return stream('node', res, 200, '{"name":"huge","normal":{"pad":"', 30 * 1024 * 1024);
      if (p === 'data') return stream('error', res, 500, '{"error":["', 30 * 1024 * 1024);
      if (p === 'cookbook_artifacts') return json({ far: { versions: [{ identifier: 'a'.repeat(40) }] } });
      if (p === `cookbook_artifacts/far/${'a'.repeat(40)}`) {
        return json({ name: 'far', identifier: 'a'.repeat(40), version: '1.0.0', metadata: { name: 'far', version: '1.0.0' }, all_files: [{ name: 'recipes/default.rb', path: 'recipes/default.rb', checksum: real, specificity: 'default', url: `${otherUrl}/bookshelf/${real}` }] });
      }
      if (p === 'users') return json([]);
      json({});
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const s of [server, other]) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  });

  it('stops reading a document or an error past its cap, and refuses a file URL on another origin unread', async () => {
    const saved = process.env.MAX_BODY_BYTES;
    process.env.MAX_BODY_BYTES = String(1024 * 1024);
    try {
      const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
      const source = new ChefServerSource({ server: url, org: 'acme', user: 'pivotal', privateKey: key, attempts: 1, timeoutMs: 60_000 });
      const { report } = await runImport(admin, source);
      const skipped = new Map(report.skipped.map((e) => [e.name, e.detail]));
      expect(skipped.get('huge')).toMatch(/more than the console's file limit of 1048576 bytes \(MAX_BODY_BYTES, also the largest document\)/);
      // The importer hung up long before the 30 MiB were sent (what was in flight in socket buffers aside).
      expect(sent.get('node')!).toBeLessThan(12 * 1024 * 1024);
      expect(skipped.get('(all data bags)')).toMatch(/HTTP 500/);
      expect(sent.get('error')!).toBeLessThan(12 * 1024 * 1024);
      expect(skipped.get(`far@${'a'.repeat(40)}`)).toMatch(/not on the source server's origin .*refused unread .*--file-origin/);
      expect(otherHits).toEqual([]);
      expect(await db().cookbookArtifact.count({ where: { name: 'far' } })).toBe(0);

      // Given as a file origin: fetched from there.
      const allowed = new ChefServerSource({ server: url, org: 'acme', user: 'pivotal', privateKey: key, attempts: 1, fileOrigins: [otherUrl] });
      const again = await runImport(admin, allowed);
      expect(again.report.imported).toEqual(expect.arrayContaining([{ kind: 'cookbook-artifact', name: `far@${'a'.repeat(40)}`, detail: expect.stringMatching(/^created/) }]));
      expect(otherHits.length).toBe(1);
    } finally {
      if (saved === undefined) delete process.env.MAX_BODY_BYTES;
      else process.env.MAX_BODY_BYTES = saved;
    }
  });

  it('caps a list answer at its own limit', async () => {
    const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    const source = new ChefServerSource({ server: url, org: 'acme', user: 'pivotal', privateKey: key, attempts: 1, maxListBytes: 64 });
    const { report } = await runImport(admin, source);
    expect(report.skipped).toEqual(expect.arrayContaining([{ kind: 'cookbook-artifact', name: '(all cookbook artifacts)', detail: expect.stringMatching(/more than the importer's limit of 64 bytes/) }]));
  });
});
