/**
 * Issue 27, the move from a Chef server that is not the console: chef-zero
 * (from the toolchain) filled through the real tools — `chef push` of two
 * revisions into dev and staging, knife data bags (plain and encrypted),
 * knife nodes and clients, and a real chef-client node registered through
 * chef-zero's validator and converged there. Then `npm run import --
 * --server …` into a fresh console (live-server mode), every object compared
 * through the API of both servers, a second run that changes nothing, and
 * the node pointed at the console by its chef_server_url alone: it converges
 * with the key it already had, and the console shows it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '@/lib/db/client';
import { ChefServerSource } from '@/lib/chef/import-source';
import { runImport } from '@/lib/services/import/run-import';
import { startChefHarness, type ChefHarness } from '../chef-harness';
import { accessFor } from '../helpers';
import { projectScript, run, startChefZero, writeClientRb, writeConfig, type ChefZero } from './tools';

let chef: ChefHarness;
let zero: ChefZero;
let dir: string;
let zeroConfig: string;
let adminKey: string;
const SECRET = 'import-test-secret-0123456789abcdef0123456789';

function write(rel: string, text: string) {
  const p = path.join(dir, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
  return p;
}

const tool = (cmd: string, args: string[], cwd = dir) => run(cmd, args, { cwd, env: { HOME: dir }, timeoutMs: 240_000 });
const knife = (...args: string[]) => tool('knife', [...args, '-c', zeroConfig]);
const ok = (r: { code: number; stdout: string; stderr: string }) => expect(r.code, r.stdout + r.stderr).toBe(0);

/** GET from chef-zero (it checks no signatures) and from the console (signed as its admin). */
async function fromZero(p: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${zero.url}/${p}`, { headers: { accept: 'application/json', 'x-ops-server-api-version': '2' } });
  return { status: res.status, text: await res.text() };
}
async function fromConsole(p: string): Promise<{ status: number; text: string }> {
  const res = await chef.request('GET', p, { apiVersion: 2 });
  return { status: res.status, text: res.text };
}
const j = (s: { text: string }) => JSON.parse(s.text);

/** The moved node's client.rb (chef-zero's org is `chef`, so its validator is `chef-validator`). */
const clientRb = (home: string, serverUrl: string) =>
  writeClientRb(home, { serverUrl, org: 'chef', nodeName: 'moved-node', validatorKey: adminKey, group: 'staging', policy: 'web' });

async function importFromZero(...extra: string[]) {
  const r = await projectScript('import.ts', ['--server', zero.url, '--org', 'chef', '--user', 'admin', '--key', adminKey, '--json', ...extra]);
  const report = r.stdout.trim() ? JSON.parse(r.stdout) : null;
  return { ...r, report };
}

beforeAll(async () => {
  [chef, zero] = await Promise.all([startChefHarness({ seed: false }), startChefZero()]);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chef-import-'));
  adminKey = path.join(dir, 'admin.pem');
  ok(await run('openssl', ['genrsa', '-out', adminKey, '2048']));
  zeroConfig = writeConfig(path.join(dir, '.chef'), 'zero.rb', { serverUrl: zero.url, nodeName: 'admin', keyFile: adminKey });
  write('secret.key', SECRET);
  write('cookbooks/web/metadata.rb', "name 'web'\nversion '1.0.0'\n");
  write('cookbooks/web/recipes/default.rb', "file ::File.join(node['web']['dir'], \"#{node.policy_group}.txt\") do\n  content \"web #{node['web']['flavour']} in #{node.policy_group}\\n\"\nend\n");
  write('cookbooks/web/templates/page.erb', '<%= @title %>\n');
  write('cookbooks/web/files/logo.bin', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7) % 256)).toString('latin1'));
  fs.mkdirSync(path.join(dir, 'out'));
});

afterAll(async () => {
  zero?.child.kill('SIGTERM');
  await chef?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('chef-zero → console', () => {
  const revs: string[] = [];

  it('fills chef-zero with the real tools: two policy revisions in dev and staging, data bags, nodes, clients', async () => {
    for (const flavour of ['plain', 'spicy']) {
      write('Policyfile.rb', `name 'web'\nrun_list 'web::default'\ncookbook 'web', path: 'cookbooks/web'\ndefault['web']['dir'] = ${JSON.stringify(path.join(dir, 'out'))}\ndefault['web']['flavour'] = '${flavour}'\n`);
      fs.rmSync(path.join(dir, 'Policyfile.lock.json'), { force: true });
      ok(await tool('chef', ['install']));
      revs.push(JSON.parse(fs.readFileSync(path.join(dir, 'Policyfile.lock.json'), 'utf8')).revision_id);
      ok(await tool('chef', ['push', flavour === 'plain' ? 'staging' : 'dev', '-c', zeroConfig]));
    }
    // A third group with the first revision too, so its name orders after the known ones.
    ok(await tool('chef', ['push', 'production', '-c', zeroConfig]));
    write('plain.json', JSON.stringify({ id: 'settings', port: 5432, hosts: ['db1', 'db2'] }));
    write('enc.json', JSON.stringify({ id: 'creds', password: 's3cr3t' }));
    ok(await knife('data', 'bag', 'create', 'app'));
    ok(await knife('data', 'bag', 'from', 'file', 'app', path.join(dir, 'plain.json')));
    ok(await knife('data', 'bag', 'from', 'file', 'app', path.join(dir, 'enc.json'), '--secret-file', path.join(dir, 'secret.key')));
    write('db1.json', JSON.stringify({ name: 'db1', chef_type: 'node', json_class: 'Chef::Node', policy_name: 'web', policy_group: 'dev', normal: { app: { tier: 'db' } }, automatic: { platform: 'debian' } }));
    ok(await knife('node', 'from', 'file', path.join(dir, 'db1.json')));
    ok(await knife('client', 'create', 'db1', '-f', path.join(dir, 'db1.pem'), '-d'));
    const home = path.join(dir, 'node');
    const r = await tool('chef-client', ['-c', clientRb(home, zero.url), '--once', '--no-fork'], home);
    ok(r);
    expect(fs.readFileSync(path.join(dir, 'out', 'staging.txt'), 'utf8')).toBe('web plain in staging\n');
  });

  it('imports everything from the live server, audited as import', async () => {
    const r = await importFromZero();
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.report.skipped).toEqual([]);
    expect(r.report.conflicts).toEqual([]);
    const names = (kind: string) => r.report.imported.filter((e: { kind: string }) => e.kind === kind).map((e: { name: string }) => e.name).sort();
    expect(names('policy-revision')).toEqual(revs.map((rev) => `web@${rev}`).sort());
    expect(names('stage')).toEqual(['dev', 'production', 'staging']);
    expect(names('client')).toEqual(expect.arrayContaining(['db1', 'moved-node', 'chef-validator']));
    expect(r.report.imported.filter((e: { kind: string; detail: string }) => e.kind === 'policy-revision').every((e: { detail: string }) => e.detail.includes('revision id verified'))).toBe(true);
    expect(r.stderr).toMatch(/cookbook artifacts .*\d+\/\d+/);
    // Stages in the order their names say.
    expect((await db().policyGroup.findMany({ orderBy: { position: 'asc' }, select: { name: true } })).map((g) => g.name)).toEqual(['dev', 'staging', 'production']);
    expect(await db().auditEvent.count({ where: { action: 'import', via: { startsWith: 'import:' } } })).toBeGreaterThan(10);
  });

  it('every object reads the same through both servers’ APIs', async () => {
    const stripGroups = (t: string) => {
      const { policy_group_list: _l, ...rest } = JSON.parse(t);
      return rest;
    };
    const zp = j(await fromZero('policies'));
    const cp = j(await fromConsole('policies'));
    expect(Object.keys(cp).sort()).toEqual(Object.keys(zp).sort());
    for (const [name, p] of Object.entries(zp as Record<string, { revisions: Record<string, unknown> }>)) {
      expect(Object.keys(cp[name].revisions).sort()).toEqual(Object.keys(p.revisions).sort());
      for (const rev of Object.keys(p.revisions)) expect(stripGroups((await fromConsole(`policies/${name}/revisions/${rev}`)).text)).toEqual(stripGroups((await fromZero(`policies/${name}/revisions/${rev}`)).text));
    }
    const groups = (o: Record<string, { policies?: Record<string, { revision_id: string }> }>) => Object.fromEntries(Object.entries(o).map(([g, b]) => [g, b.policies ?? {}]));
    expect(groups(j(await fromConsole('policy_groups')))).toEqual(groups(j(await fromZero('policy_groups'))));

    const za = j(await fromZero('cookbook_artifacts'));
    expect(Object.keys(j(await fromConsole('cookbook_artifacts')))).toEqual(Object.keys(za));
    const noUrls = (m: Record<string, unknown>) => JSON.parse(JSON.stringify(m, (k, v) => (k === 'url' ? undefined : v)));
    for (const [name, c] of Object.entries(za as Record<string, { versions: { identifier: string }[] }>)) {
      for (const { identifier } of c.versions) {
        const zm = j(await fromZero(`cookbook_artifacts/${name}/${identifier}`));
        const cm = j(await fromConsole(`cookbook_artifacts/${name}/${identifier}`));
        expect(noUrls(cm)).toEqual(noUrls(zm));
        for (const f of cm.all_files as { checksum: string; url: string }[]) {
          const bytes = Buffer.from(await (await fetch(`${zero.url}/file_store/checksums/${f.checksum}`)).arrayBuffer());
          const mine = await chef.request('GET', `file_store/checksums/${f.checksum}`);
          expect(mine.status).toBe(200);
          expect(Buffer.from(await new Response(mine.text).arrayBuffer()).equals(bytes) || mine.text === bytes.toString('utf8')).toBe(true);
        }
      }
    }

    const zb = Object.keys(j(await fromZero('data')));
    expect(Object.keys(j(await fromConsole('data'))).sort()).toEqual(zb.sort());
    for (const bag of zb) {
      const items = Object.keys(j(await fromZero(`data/${bag}`))).sort();
      expect(Object.keys(j(await fromConsole(`data/${bag}`))).sort()).toEqual(items);
      for (const id of items) expect(j(await fromConsole(`data/${bag}/${id}`))).toEqual(j(await fromZero(`data/${bag}/${id}`)));
    }
    expect(j(await fromConsole('data/app/creds')).password.encrypted_data).toEqual(expect.any(String));

    const zn = Object.keys(j(await fromZero('nodes'))).sort();
    expect(Object.keys(j(await fromConsole('nodes'))).sort()).toEqual(zn);
    for (const n of zn) {
      const [z, c] = [j(await fromZero(`nodes/${n}`)), j(await fromConsole(`nodes/${n}`))];
      for (const k of ['name', 'policy_name', 'policy_group', 'run_list', 'normal', 'default', 'override', 'automatic', 'chef_environment']) expect(c[k], `${n}.${k}`).toEqual(z[k]);
    }

    const zc = Object.keys(j(await fromZero('clients'))).sort();
    expect(Object.keys(j(await fromConsole('clients')))).toEqual(expect.arrayContaining(zc));
    const compared: string[] = [];
    for (const c of zc) {
      const names = (l: { name: string }[]) => l.map((k) => k.name).sort();
      const zl = names(j(await fromZero(`clients/${c}/keys`)));
      expect(names(j(await fromConsole(`clients/${c}/keys`))), c).toEqual(zl);
      for (const k of zl) {
        expect(j(await fromConsole(`clients/${c}/keys/${k}`)).public_key.trim(), `${c}/${k}`).toBe(j(await fromZero(`clients/${c}/keys/${k}`)).public_key.trim());
        compared.push(`${c}/${k}`);
      }
    }
    // chef-zero's own validator and webui clients have no key; the two made by knife and chef-client do.
    expect(compared).toEqual(expect.arrayContaining(['db1/default', 'moved-node/default']));
  });

  it('a second run changes nothing', async () => {
    const audits = await db().auditEvent.count();
    // In-process this time (the same service and source the command runs), to spare a second tsx start.
    const source = new ChefServerSource({ server: zero.url, org: 'chef', user: 'admin', privateKey: fs.readFileSync(adminKey, 'utf8') });
    const { report } = await runImport(await accessFor('admin@example.com'), source);
    expect(report.imported).toEqual([]);
    expect(report.conflicts).toEqual([]);
    expect(report.skipped).toEqual([]);
    expect(report.unchanged).toBeGreaterThan(10);
    // Only the run's own start and finish events.
    expect(await db().auditEvent.count()).toBe(audits + 2);
  });

  it('the node, pointed at the console by its chef_server_url alone, converges there with the key it already had', async () => {
    const home = path.join(dir, 'node');
    const keyBefore = fs.readFileSync(path.join(home, 'client.pem'), 'utf8');
    fs.rmSync(path.join(dir, 'out', 'staging.txt'));
    const r = await tool('chef-client', ['-c', clientRb(home, chef.orgUrl), '--once', '--no-fork'], home);
    ok(r);
    expect(r.stdout).toContain(`Using Policyfile 'web' at revision '${revs[0]}'`);
    expect(fs.readFileSync(path.join(home, 'client.pem'), 'utf8')).toBe(keyBefore);
    expect(fs.readFileSync(path.join(dir, 'out', 'staging.txt'), 'utf8')).toBe('web plain in staging\n');
    const node = await db().node.findUniqueOrThrow({ where: { name: 'moved-node' }, select: { lastCheckIn: true, group: { select: { name: true } } } });
    expect(node.group?.name).toBe('staging');
    expect(node.lastCheckIn).not.toBeNull();
  });
});
