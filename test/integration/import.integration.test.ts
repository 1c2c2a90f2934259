/**
 * Issue 27, the importer without the Chef tools: a `knife download`-style
 * directory (with one malformed JSON file, reported with its path while the
 * rest is imported), an interrupted run resumed by the next one (nothing
 * duplicated or lost, a third run changes nothing), conflicts refused or
 * settled by --prefer, and a live source answering 500s and timeouts (a local
 * fake server: retried, then reported).
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
import { recentImports, DirectorySource, runImport } from '@/lib/services/import';
import { updateDataBagItem } from '@/lib/services/data-bags';
import { ChefServerSource } from '@/lib/chef/import-source';
import { fixtureText } from '../fixtures';
import { accessFor } from '../helpers';
import { HOME_MEMBERSHIP } from '@/lib/services/organizations';

let admin: Access;
let dir: string;
const lockText = fixtureText('locks/rfc-minimal.lock.json');
const lock = JSON.parse(lockText) as { name: string; revision_id: string; cookbook_locks: Record<string, { identifier: string; version: string }> };
const [cbName, cb] = Object.entries(lock.cookbook_locks)[0];
const publicKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();

function write(rel: string, text: string) {
  const p = path.join(dir, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
  return p;
}

beforeAll(async () => {
  // A fresh console with two people (no demo data: an import goes into a new organization).
  await db().user.create({ data: { email: 'admin@example.com', name: 'Admin', chefName: 'admin', isAdmin: true, passwordHash: '', orgMemberships: HOME_MEMBERSHIP } });
  await db().user.create({ data: { email: 'viewer@example.com', name: 'Viewer', passwordHash: '', orgMemberships: HOME_MEMBERSHIP } });
  admin = await accessFor('admin@example.com');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-dir-'));
  write(`policies/${lock.name}-${lock.revision_id}.json`, lockText);
  for (const g of ['imp-qa', 'imp-dev']) write(`policy_groups/${g}.json`, JSON.stringify({ policies: { [lock.name]: { revision_id: lock.revision_id } } }));
  write(`cookbook_artifacts/${cbName}-${cb.identifier}/metadata.rb`, `name '${cbName}'\nversion '${cb.version}'\n`);
  write(`cookbook_artifacts/${cbName}-${cb.identifier}/recipes/default.rb`, "log 'hello'\n");
  write('data_bags/imp-app/settings.json', JSON.stringify({ id: 'settings', port: 5432 }));
  write('data_bags/imp-app/creds.json', JSON.stringify({ id: 'creds', password: { encrypted_data: 'abc', iv: 'def', auth_tag: 'ghi', version: 3, cipher: 'aes-256-gcm' } }));
  write('data_bags/imp-app/broken.json', '{"id": "broken", ');
  for (let i = 1; i <= 6; i++) write(`nodes/imp-node-${i}.json`, JSON.stringify({ name: `imp-node-${i}`, chef_type: 'node', json_class: 'Chef::Node', policy_name: lock.name, policy_group: 'imp-dev', normal: { i } }));
  write('clients/imp-node-1.json', JSON.stringify({ name: 'imp-node-1', validator: false, public_key: publicKey }));
  write('roles/web.json', JSON.stringify({ name: 'web' }));
  write('environments/_default.json', JSON.stringify({ name: '_default' }));
  write('environments/prod.json', JSON.stringify({ name: 'prod' }));
});

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const counts = async () => ({
  revisions: await db().policyRevision.count({ where: { policy: { name: lock.name } } }),
  nodes: await db().node.count({ where: { name: { startsWith: 'imp-node-' } } }),
  items: await db().dataBagItem.count({ where: { bag: { name: 'imp-app' } } }),
  clients: await db().chefClient.count({ where: { name: 'imp-node-1' } }),
  artifacts: await db().cookbookArtifact.count({ where: { name: cbName } }),
});

describe('a knife download directory', () => {
  it('an interrupted run leaves whole objects; the next run imports the rest, nothing twice; the malformed file is reported with its path', async () => {
    const stop = new AbortController();
    let seen = 0;
    await expect(
      runImport(admin, new DirectorySource(dir), {
        concurrency: 1,
        signal: stop.signal,
        onProgress: (p) => {
          if (p.phase === 'nodes' && p.done === 2 && !seen++) stop.abort();
        },
      }),
    ).rejects.toThrow();
    const partial = await counts();
    expect(partial.nodes).toBeGreaterThanOrEqual(2);
    expect(partial.nodes).toBeLessThan(6);
    const interrupted = await db().importRun.findFirstOrThrow({ orderBy: { startedAt: 'desc' }, select: { status: true } });
    expect(interrupted.status).toBe('interrupted');

    const { report } = await runImport(admin, new DirectorySource(dir));
    expect(await counts()).toEqual({ revisions: 1, nodes: 6, items: 2, clients: 1, artifacts: 1 });
    expect(report.imported.filter((e) => e.kind === 'node')).toHaveLength(6 - partial.nodes);
    expect(report.skipped).toEqual([{ kind: 'data-bag-item', name: 'imp-app/broken', detail: expect.stringContaining(path.join(dir, 'data_bags/imp-app/broken.json')) }]);
    expect(report.skipped[0].detail).toContain('malformed JSON');
    expect(report.notImported).toEqual([
      { kind: 'cookbooks', names: [] },
      { kind: 'roles', names: ['web'] },
      { kind: 'environments', names: ['prod'] },
    ]);
    // Stages from the groups' names: dev before qa.
    expect((await db().policyGroup.findMany({ orderBy: { position: 'asc' }, select: { name: true } })).map((g) => g.name)).toEqual(['imp-dev', 'imp-qa']);
    // The encrypted item is stored as it came (encrypted), the client with its public key.
    const creds = await db().dataBagItem.findFirstOrThrow({ where: { itemId: 'creds', bag: { name: 'imp-app' } }, select: { kind: true, document: true } });
    expect(creds.kind).toBe('encrypted');
    const key = await db().chefKey.findFirstOrThrow({ where: { client: { name: 'imp-node-1' } }, select: { name: true, publicKey: true } });
    expect(key.name).toBe('default');
    expect(key.publicKey.trim()).toBe(publicKey.trim());
    const audited = await db().auditEvent.findFirstOrThrow({ where: { action: 'import', target: 'imp-node-6' }, select: { via: true, after: true } });
    expect(audited.via).toMatch(/^import:imp_/);
    expect(JSON.parse(audited.after!)).toMatchObject({ change: 'node.register' });

    const audits = await db().auditEvent.count();
    const again = await runImport(admin, new DirectorySource(dir));
    expect(again.report.imported).toEqual([]);
    expect(again.report.conflicts).toEqual([]);
    expect(await db().auditEvent.count()).toBe(audits + 2);
    const run = await db().importRun.findUniqueOrThrow({ where: { id: again.runId }, select: { status: true, imported: true, skipped: true, report: true } });
    expect(run).toMatchObject({ status: 'finished', imported: 0, skipped: 1 });
  });

  it('issue 42: a change in the console alone is kept, at the source alone is brought, on both sides is a conflict naming the fields', async () => {
    const stored = () => db().dataBagItem.findFirstOrThrow({ where: { itemId: 'settings', bag: { name: 'imp-app' } }, select: { document: true } }).then((r) => JSON.parse(r.document).port);
    // The console alone changed it since the import: the console's change stands, nothing to report.
    await updateDataBagItem(admin, 'imp-app', 'settings', JSON.stringify({ id: 'settings', port: 6543 }));
    const kept = await runImport(admin, new DirectorySource(dir));
    expect(kept.report.conflicts).toEqual([]);
    expect(kept.report.imported).toEqual([]);
    expect(await stored()).toBe(6543);

    // Now the source changes it too: both changed since the import, a conflict naming the field.
    write('data_bags/imp-app/settings.json', JSON.stringify({ id: 'settings', port: 5433 }));
    const refused = await runImport(admin, new DirectorySource(dir));
    expect(refused.report.conflicts).toEqual([{ kind: 'data-bag-item', name: 'imp-app/settings', detail: expect.stringMatching(/changed both here and at the source since the import of .*; differs at \/port: left as it is \(run with --prefer source/) }]);
    expect(await stored()).toBe(6543);

    const dry = await runImport(admin, new DirectorySource(dir), { prefer: 'source', dryRun: true });
    expect(dry.report.imported).toEqual([{ kind: 'data-bag-item', name: 'imp-app/settings', detail: expect.stringMatching(/^would be updated \(--prefer source; .*differs at \/port\)$/) }]);
    expect(await stored()).toBe(6543);

    const taken = await runImport(admin, new DirectorySource(dir), { prefer: 'source' });
    expect(taken.report.imported).toEqual([{ kind: 'data-bag-item', name: 'imp-app/settings', detail: expect.stringMatching(/^updated \(--prefer source; .*differs at \/port\)$/) }]);
    expect(await stored()).toBe(5433);

    // The source alone changes it after that: brought without --prefer.
    write('data_bags/imp-app/settings.json', JSON.stringify({ id: 'settings', port: 5432 }));
    const brought = await runImport(admin, new DirectorySource(dir));
    expect(brought.report.imported).toEqual([{ kind: 'data-bag-item', name: 'imp-app/settings', detail: 'updated (the source changed it since the import; differs at /port)' }]);
    expect(await stored()).toBe(5432);
  });

  it('only an administrator may import', async () => {
    const runs = await db().importRun.count();
    const viewer = await accessFor('viewer@example.com');
    await expect(runImport(viewer, new DirectorySource(dir))).rejects.toThrow(/import/);
    expect(await db().importRun.count()).toBe(runs);
    // Admin → Import lists the runs with their reports to administrators only.
    const listed = await recentImports(admin);
    expect(listed.length).toBe(runs);
    expect(listed[0]).toMatchObject({ status: 'finished', prefer: null, imported: 1, report: { imported: [{ name: 'imp-app/settings' }] } });
    expect(await recentImports(viewer)).toEqual([]);
  });
});

describe("a knife-ec-backup tree's organization members (issue 23)", () => {
  it("the users members.json lists become members of the home organization; the server's other users do not", async () => {
    const ec = fs.mkdtempSync(path.join(os.tmpdir(), 'import-ec-'));
    try {
      const put = (rel: string, text: string) => {
        fs.mkdirSync(path.dirname(path.join(ec, rel)), { recursive: true });
        fs.writeFileSync(path.join(ec, rel), text);
      };
      put('users/ec-alice.json', JSON.stringify({ username: 'ec-alice', email: 'ec-alice@example.com', display_name: 'Alice', public_key: publicKey }));
      put('users/ec-bob.json', JSON.stringify({ username: 'ec-bob', email: 'ec-bob@example.com', display_name: 'Bob' }));
      put('organizations/acme/members.json', JSON.stringify([{ user: { username: 'ec-alice' } }, 'ec-carol']));
      // A console user who is not a member, listed as one: joins; the importer never makes users of names alone.
      await db().user.create({ data: { email: 'ec-carol@example.com', name: 'Carol', chefName: 'ec-carol', passwordHash: '' } });
      const { report } = await runImport(admin, new DirectorySource(ec));
      const member = async (chefName: string) => (await db().orgMember.count({ where: { user: { chefName } } })) === 1;
      expect({ alice: await member('ec-alice'), bob: await member('ec-bob'), carol: await member('ec-carol') }).toEqual({ alice: true, bob: false, carol: true });
      expect(report.imported).toEqual(
        expect.arrayContaining([
          { kind: 'user', name: 'ec-alice', detail: expect.stringMatching(/created .*, a member of the organization$/) },
          { kind: 'user', name: 'ec-bob', detail: expect.stringMatching(/not a member of the organization/) },
          { kind: 'user', name: 'ec-carol', detail: 'added to the organization' },
        ]),
      );
      // A second run changes nothing.
      const again = await runImport(admin, new DirectorySource(ec));
      expect(again.report.imported.filter((e) => e.kind === 'user')).toEqual([]);
    } finally {
      fs.rmSync(ec, { recursive: true, force: true });
    }
  });
});

describe('a live source answering 500s and timeouts', () => {
  let server: http.Server;
  let url: string;
  const hits = new Map<string, number>();

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const p = new URL(req.url!, 'http://x').pathname.replace('/organizations/acme/', '');
      const n = (hits.get(p) ?? 0) + 1;
      hits.set(p, n);
      if (!req.headers['x-ops-authorization-1']) return void res.writeHead(401).end('{"error":["unsigned"]}');
      const json = (status: number, body: unknown) => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (p === 'data') return; // never answers: the client's time limit ends each attempt
      if (p === 'nodes') return json(500, { error: ['boom'] });
      if (p === 'policies') return n < 3 ? json(503, { error: ['busy'] }) : json(200, { [lock.name]: { revisions: { [lock.revision_id]: {} } } });
      if (p === `policies/${lock.name}/revisions/${lock.revision_id}`) return void res.writeHead(200, { 'content-type': 'application/json' }).end(lockText);
      if (p === 'users') return json(200, []);
      json(200, {});
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('retries, imports what answers, and reports each failure with where it happened', async () => {
    const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    const source = new ChefServerSource({ server: url, org: 'acme', user: 'pivotal', privateKey: key, attempts: 3, timeoutMs: 300, backoffMs: 1 });
    const { report } = await runImport(admin, source);
    expect(hits.get('policies')).toBe(3);
    expect(hits.get('nodes')).toBe(3);
    expect(hits.get('data')).toBe(3);
    expect(report.skipped).toEqual([
      { kind: 'data-bag', name: '(all data bags)', detail: expect.stringMatching(/\/organizations\/acme\/data: no answer \(timed out after 300 ms\) after 3 attempts/) },
      { kind: 'node', name: '(all nodes)', detail: expect.stringMatching(/\/organizations\/acme\/nodes: HTTP 500.*after 3 attempts/) },
    ]);
    expect(report.imported.some((e) => e.kind === 'policy-revision' || e.kind === 'stage') || report.unchanged > 0).toBe(true);
  });
});
