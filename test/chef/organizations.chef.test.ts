/**
 * Issue 23 (organizations, step 4) with the real knife, against the console serving HTTPS as TLS_CERT_FILE
 * makes it (a throw-away certificate; `ssl_verify_mode :verify_none`): `knife org create` makes an organization
 * and writes its validator key, `knife org list/show/edit`, `knife org user add` (an invitation and its acceptance;
 * `--admin`), `knife user show -l`, `knife org user remove`; that validator registers a client (`knife client
 * create`) which reads itself there and is unknown in the home organization; the new organization's Chef-object
 * routes answer 404; `knife org delete` removes it with its clients.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '@/lib/db/client';
import { startChefHarness, type ChefHarness } from '../chef-harness';
import { selfSignedCert } from '../tls-cert';
import { run, writeConfig } from './tools';

let chef: ChefHarness;
let dir: string;
const INSECURE = ['ssl_verify_mode :verify_none'];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chef-orgs-'));
  chef = await startChefHarness({ seed: false, tls: selfSignedCert(dir) });
  fs.writeFileSync(path.join(dir, 'admin.pem'), await chef.privateKey('admin'), { mode: 0o600 });
  writeConfig(dir, 'admin.rb', { serverUrl: chef.orgUrl, nodeName: 'admin', keyFile: path.join(dir, 'admin.pem'), extra: INSECURE });
  writeConfig(dir, 'admin-acme.rb', { serverUrl: `${chef.url}/organizations/acme`, nodeName: 'admin', keyFile: path.join(dir, 'admin.pem'), extra: INSECURE });
  writeConfig(dir, 'validator.rb', { serverUrl: `${chef.url}/organizations/acme`, nodeName: 'acme-validator', keyFile: path.join(dir, 'acme-validator.pem'), extra: INSECURE });
  writeConfig(dir, 'web.rb', { serverUrl: `${chef.url}/organizations/acme`, nodeName: 'acme-web-1', keyFile: path.join(dir, 'acme-web-1.pem'), extra: INSECURE });
  writeConfig(dir, 'web-home.rb', { serverUrl: chef.orgUrl, nodeName: 'acme-web-1', keyFile: path.join(dir, 'acme-web-1.pem'), extra: INSECURE });
});

afterAll(async () => {
  await chef?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const knife = (config: string, ...args: string[]) => run('knife', [...args, '-c', path.join(dir, config)], { cwd: dir, env: { HOME: dir } });

describe('knife org over HTTPS', () => {
  it('knife org create makes the organization and writes its validator key; list and show see it, edit changes its full name', async () => {
    const made = await knife('admin.rb', 'org', 'create', 'acme', 'Acme, Inc.', '-f', path.join(dir, 'acme-validator.pem'));
    expect(made.code, made.stderr + made.stdout).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'acme-validator.pem'), 'utf8')).toMatch(/BEGIN (RSA )?PRIVATE KEY/);
    expect(await db().organization.findUnique({ where: { name: 'acme' }, select: { fullName: true } })).toEqual({ fullName: 'Acme, Inc.' });

    const list = await knife('admin.rb', 'org', 'list');
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout.split('\n')).toContain('acme');
    const show = await knife('admin.rb', 'org', 'show', 'acme');
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/full_name:\s+Acme, Inc\./);
    // knife org edit (PUT /organizations/:org): an editor that changes the full name.
    fs.writeFileSync(path.join(dir, 'edit.sh'), `#!/bin/sh\nsed -i 's/Acme, Inc\\./Acme Corporation/' "$1"\n`, { mode: 0o755 });
    const edit = await knife('admin.rb', 'org', 'edit', 'acme', '-e', path.join(dir, 'edit.sh'));
    expect(edit.code, edit.stderr + edit.stdout).toBe(0);
    expect(await db().organization.findUnique({ where: { name: 'acme' }, select: { fullName: true } })).toEqual({ fullName: 'Acme Corporation' });
  });

  it('knife org user add makes a member (--admin: in admins); the validator registers a client that lives in acme only', async () => {
    // knife associates through an invitation and its acceptance (POST …/association_requests, PUT /users/U/association_requests/ID).
    const add = await knife('admin.rb', 'org', 'user', 'add', 'acme', 'viewer');
    expect(add.code, add.stderr + add.stdout).toBe(0);
    const acme = await db().organization.findUniqueOrThrow({ where: { name: 'acme' }, select: { id: true } });
    expect(await db().orgMember.count({ where: { orgId: acme.id, user: { chefName: 'viewer' } } })).toBe(1);
    const again = await knife('admin.rb', 'org', 'user', 'add', 'acme', 'viewer');
    expect(again.code, again.stderr + again.stdout).toBe(0);
    expect(again.stdout + again.stderr).toContain('User viewer already associated with organization acme');
    // --admin: then knife adds the user to admins and billing-admins (GET and PUT of the groups).
    const admin = await knife('admin.rb', 'org', 'user', 'add', 'acme', 'dba', '--admin');
    expect(admin.code, admin.stderr + admin.stdout).toBe(0);
    const admins = await knife('admin-acme.rb', 'raw', '/groups/admins');
    expect(JSON.parse(admins.stdout).users).toContain('dba');
    expect(await db().associationRequest.count({ where: { orgId: acme.id } })).toBe(0);
    // knife user show -l lists the user's organizations (GET /users/:user/organizations).
    const shown = await knife('admin.rb', 'user', 'show', 'dba', '-l', '-F', 'json');
    expect(shown.code, shown.stderr + shown.stdout).toBe(0);
    expect(JSON.parse(shown.stdout).organizations.sort()).toEqual(['acme', chef.org].sort());

    const client = await knife('validator.rb', 'client', 'create', 'acme-web-1', '-d', '-f', path.join(dir, 'acme-web-1.pem'));
    expect(client.code, client.stderr + client.stdout).toBe(0);
    expect(await db().chefClient.findFirst({ where: { name: 'acme-web-1' }, select: { orgId: true } })).toEqual({ orgId: acme.id });
    const self = await knife('web.rb', 'client', 'show', 'acme-web-1', '-F', 'json');
    expect(self.code, self.stderr).toBe(0);
    expect(JSON.parse(self.stdout)).toMatchObject({ name: 'acme-web-1', validator: false });
    const raw = await knife('web.rb', 'raw', '/clients/acme-web-1');
    expect(JSON.parse(raw.stdout)).toMatchObject({ name: 'acme-web-1', orgname: 'acme' });
    // In the home organization the client does not exist.
    const home = await knife('web-home.rb', 'raw', '/clients/acme-web-1');
    expect(home.code).not.toBe(0);
    expect(home.stderr + home.stdout).toMatch(/401/);
  });

  it("acme's Chef-object routes answer 404 naming the home organization", async () => {
    const nodes = await knife('admin-acme.rb', 'node', 'list');
    expect(nodes.code).not.toBe(0);
    expect(nodes.stderr + nodes.stdout).toMatch(/could not be found/);
    const raw = await knife('admin-acme.rb', 'raw', '/nodes');
    expect(raw.stderr + raw.stdout).toContain(`keeps policies, nodes, cookbooks, data bags and search in organization '${chef.org}'`);
  });

  it('knife org user remove and knife org delete remove the membership, then the organization with its clients', async () => {
    const remove = await knife('admin.rb', 'org', 'user', 'remove', 'acme', 'viewer');
    expect(remove.code, remove.stderr + remove.stdout).toBe(0);
    const del = await knife('admin.rb', 'org', 'delete', 'acme', '-y');
    expect(del.code, del.stderr + del.stdout).toBe(0);
    expect(await db().organization.count({ where: { name: 'acme' } })).toBe(0);
    expect(await db().chefClient.count({ where: { name: { in: ['acme-validator', 'acme-web-1'] } } })).toBe(0);
    const gone = await knife('web.rb', 'client', 'show', 'acme-web-1');
    expect(gone.code).not.toBe(0);
  });
});
