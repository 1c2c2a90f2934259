/**
 * Issues 27 and 42, the move with the real tools. The old server is chef-zero run as Chef Infra Server is
 * organized (`--enterprise`: organization acme, its groups and ACLs), filled by its admin alice with her own key:
 * three policies (web and db include_policy base; web has a named run list), three policy groups holding seven
 * pointers, a plain, an encrypted and a chef-vault item, six nodes registered with their own keys, and a recipe
 * that reads all three kinds of items and finds its peers through search.
 *
 * Then, as an operator would by the README:
 * 1. `npm run admin:create` makes the first administrator of an empty console (CHEF_ORG=acme: nodes keep their
 *    URL path); `npm run import -- --server … --dry-run`, then the import; `--verify` finds no difference; node
 *    JSON has its numbers byte for byte.
 * 2. two nodes converge against the console with their own keys, only chef_server_url changed: their recipe reads
 *    the three items, finds the same peers, and sees `run_time_limit` still a Float.
 * 3. the staged cut-over: on the old server alice moves production to a new web revision and two nodes change;
 *    a knife-ec-backup tree is taken (knife download with versioned cookbooks, users, key_dump.json and
 *    key_table_dump.json as knife ec backup writes them) and imported: the move arrives, the node that moved to
 *    the console stays as it is, the other is updated.
 * 4. alice, with her own key, pushes to the console and sees herself in /groups/admins.
 * 5. `npm run export`, then the real `knife upload` of that tree into a new chef-zero organization, and an import
 *    of it into a second empty console that `--verify` finds equal.
 */
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '@/lib/db/client';
import { startChefServer } from '@/lib/chef/http';
import { signRequest } from '@/lib/auth/chef-signing';
import { ensureHomeOrganization } from '@/lib/services/organizations';
import { accessFor } from '../helpers';
import { DirectorySource, runImport } from '@/lib/services/import';
import { run, startChefZero, type ChefZero } from './tools';

const ORG = 'acme';
const SECRET = 'move-test-secret-0123456789abcdef0123456789';
const NODES = [
  ['web-1', 'web', 'staging'],
  ['web-2', 'web', 'staging'],
  ['web-3', 'web', 'production'],
  ['db-1', 'db', 'staging'],
  ['db-2', 'db', 'production'],
  ['base-1', 'base', 'dev'],
] as const;

let zero: ChefZero;
let consoleServer: { url: string; close(): Promise<void> };
let dir: string;
let orgUrl: string;
const keys = new Map<string, string>();
const started = Date.now();
const timings: string[] = [];
const lap = (what: string) => timings.push(`${what}: ${((Date.now() - started) / 1000).toFixed(1)} s`);

function write(rel: string, text: string | Buffer) {
  const p = path.join(dir, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
  return p;
}

/** A key pair on disk: <name>.pem (private) and its public PEM in memory. */
function keyPair(name: string): { pem: string; pub: string } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs1', format: 'pem' } });
  keys.set(name, write(`keys/${name}.pem`, privateKey));
  return { pem: keys.get(name)!, pub: publicKey };
}

const tool = (cmd: string, args: string[], env: Record<string, string> = {}) => run(cmd, args, { cwd: dir, env: { HOME: dir, ...env }, timeoutMs: 240_000 });
const ok = (r: { code: number; stdout: string; stderr: string }) => expect(r.code, r.stdout + r.stderr).toBe(0);

/** chef-zero's API as its superuser (chef-zero checks who, not signatures); a string body is sent as it is. */
async function zeroApi(method: string, p: string, body?: unknown): Promise<{ status: number; text: string; json: any }> {
  const res = await fetch(`${zero.url}${p}`, { method, headers: { 'content-type': 'application/json', accept: 'application/json', 'x-ops-userid': 'pivotal', 'x-ops-server-api-version': '0' }, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json };
}

/** A signed GET against the console as a Chef user or client with its own key. */
async function consoleGet(p: string, as = 'alice'): Promise<{ status: number; text: string }> {
  const u = new URL(`${orgUrl}/${p}`);
  const res = await fetch(u, { headers: { accept: 'application/json', ...signRequest({ method: 'GET', path: u.pathname, userId: as, privateKey: fs.readFileSync(keys.get(as)!, 'utf8'), apiVersion: '1' }) } });
  return { status: res.status, text: await res.text() };
}

/** A knife/chef config for `user` against `url`. */
function config(file: string, url: string, user: string, extra: string[] = []) {
  return write(`.chef/${file}`, [`chef_server_url ${JSON.stringify(url)}`, `node_name ${JSON.stringify(user)}`, `client_key ${JSON.stringify(keys.get(user)!)}`, `cache_path ${JSON.stringify(path.join(dir, 'cache', file))}`, ...extra, ''].join('\n'));
}

/** A node's client.rb against `url`, its own key (no validator: it is registered). */
function clientRb(name: string, policy: string, group: string, url: string) {
  const home = path.join(dir, 'nodes', name);
  return write(`nodes/${name}/client.rb`, [`chef_server_url ${JSON.stringify(url)}`, `node_name ${JSON.stringify(name)}`, `client_key ${JSON.stringify(keys.get(name)!)}`, 'use_policyfile true', `policy_group ${JSON.stringify(group)}`, `policy_name ${JSON.stringify(policy)}`, `file_cache_path ${JSON.stringify(path.join(home, 'cache'))}`, `file_backup_path ${JSON.stringify(path.join(home, 'backup'))}`, 'minimal_ohai true', ''].join('\n'));
}

/** `npx tsx scripts/<script>` against a database (the first console's by default), as a person runs `npm run …`. */
function script(name: string, args: string[], databaseUrl = process.env.DATABASE_URL!) {
  return run(process.execPath, ['--import', 'tsx', `scripts/${name}`, ...args], { cwd: process.cwd(), env: { DATABASE_URL: databaseUrl, CHEF_ORG: ORG }, timeoutMs: 240_000 });
}

const nodeJson = (name: string, policy: string, group: string) =>
  `{"name":"${name}","chef_type":"node","json_class":"Chef::Node","chef_environment":"_default","policy_name":"${policy}","policy_group":"${group}","run_list":[],"normal":{"run_time_limit":1.0,"tags":[],"shard":7},"default":{},"override":{},"automatic":{"ohai_time":1764588000.25,"platform":"debian","fqdn":"${name}.example.com"}}`;

beforeAll(async () => {
  process.env.CHEF_ORG = ORG;
  await ensureHomeOrganization(ORG);
  zero = await startChefZero(['--enterprise']);
  consoleServer = await startChefServer(0);
  orgUrl = `${consoleServer.url}/organizations/${ORG}`;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chef-move-'));
  fs.mkdirSync(path.join(dir, 'out'));
  write('secret.key', SECRET);
  lap('servers up');
});

afterAll(async () => {
  zero?.child.kill('SIGTERM');
  await consoleServer?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  console.log(`[import.chef] ${timings.join('; ')}`);
});

describe('moving an organization from a Chef server (chef-zero) into an empty console and back out', () => {
  const revs: Record<string, string> = {};

  it('fills the old server as its admin would: policies with include_policy and a named run list, three kinds of items, six nodes with their own keys', async () => {
    const zeroOrg = `${zero.url}/organizations/${ORG}`;
    const org = await zeroApi('POST', '/organizations', { name: ORG, full_name: 'Acme' });
    expect(org.status, org.text).toBe(201);
    for (const [user, admin] of [
      ['alice', true],
      ['bob', false],
    ] as const) {
      const { pub } = keyPair(user);
      const name = user[0].toUpperCase() + user.slice(1);
      expect((await zeroApi('POST', '/users', { username: user, email: `${user}@example.com`, display_name: `${name} Example`, first_name: name, last_name: 'Example', password: 'secret123', public_key: pub })).status).toBe(201);
      expect((await zeroApi('POST', `/organizations/${ORG}/users`, { username: user })).status).toBe(201);
      if (admin) expect((await zeroApi('PUT', `/organizations/${ORG}/groups/admins`, { groupname: 'admins', actors: { users: ['pivotal', user], groups: [] } })).status).toBe(200);
    }
    // Six nodes, each registered with a key of its own (the node keeps it across the move).
    for (const [name, policy, group] of NODES) {
      const { pub } = keyPair(name);
      expect((await zeroApi('POST', `/organizations/${ORG}/clients`, { name, public_key: pub })).status).toBe(201);
      const res = await fetch(`${zeroOrg}/nodes`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-ops-userid': name }, body: nodeJson(name, policy, group) });
      expect(res.status, await res.text()).toBe(201);
    }
    // Cookbooks: base reads the three kinds of items and finds its peers through search.
    write('cookbooks/base/metadata.rb', "name 'base'\nversion '1.0.0'\n");
    write(
      'cookbooks/base/recipes/default.rb',
      [
        "require 'chef-vault'",
        "plain = data_bag_item('app', 'settings')",
        "enc = data_bag_item('app', 'creds', Chef::EncryptedDataBagItem.load_secret(node['move']['secret']))",
        "vault = ChefVault::Item.load('secrets', 'db')",
        'found = search(:node, "policy_group:#{node.policy_group}")',
        'peers = found.map(&:name).sort',
        "peer_limits = found.map { |n| n['run_time_limit'].class }.uniq.join('|')",
        "file ::File.join(node['move']['out'], \"#{node.name}.txt\") do",
        '  content "policy=#{node.policy_name} group=#{node.policy_group} port=#{plain[\'port\']} password=#{enc[\'password\']} vault=#{vault[\'password\']} peers=#{peers.join(\',\')} limit=#{node[\'run_time_limit\'].class}:#{node[\'run_time_limit\']} peer_limits=#{peer_limits} flavour=#{node[\'web\'] && node[\'web\'][\'flavour\']}\\n"',
        'end',
        '',
      ].join('\n'),
    );
    for (const cb of ['web', 'db']) {
      write(`cookbooks/${cb}/metadata.rb`, `name '${cb}'\nversion '1.0.0'\n`);
      write(`cookbooks/${cb}/recipes/default.rb`, `log '${cb} default'\n`);
    }
    write('cookbooks/web/recipes/deploy.rb', "log 'web deploy'\n");
    const attrs = `default['move']['out'] = ${JSON.stringify(path.join(dir, 'out'))}\ndefault['move']['secret'] = ${JSON.stringify(path.join(dir, 'secret.key'))}\n`;
    write('base.rb', `name 'base'\nrun_list 'base::default'\ncookbook 'base', path: 'cookbooks/base'\n${attrs}`);
    const including = (name: string, extra = '') => `name '${name}'\ninclude_policy 'base', path: './base.lock.json'\nrun_list '${name}::default'\ncookbook '${name}', path: 'cookbooks/${name}'\n${extra}`;
    write('web.rb', including('web', "named_run_list :deploy, 'web::deploy'\ndefault['web']['flavour'] = 'plain'\n"));
    write('db.rb', including('db'));
    config('zero.rb', zeroOrg, 'alice');
    const zeroConfig = path.join(dir, '.chef/zero.rb');
    for (const p of ['base', 'web', 'db']) {
      ok(await tool('chef', ['install', `${p}.rb`]));
      revs[p] = JSON.parse(fs.readFileSync(path.join(dir, `${p}.lock.json`), 'utf8')).revision_id;
    }
    // alice pushes each policy once with chef push (cookbooks and lock), then points the other groups at it.
    ok(await tool('chef', ['push', 'staging', 'web.rb', '-c', zeroConfig]));
    ok(await tool('chef', ['push', 'staging', 'db.rb', '-c', zeroConfig]));
    ok(await tool('chef', ['push', 'dev', 'base.rb', '-c', zeroConfig]));
    for (const [g, p] of [
      ['dev', 'web'],
      ['production', 'web'],
      ['dev', 'db'],
      ['production', 'db'],
    ]) {
      const lock = fs.readFileSync(path.join(dir, `${p}.lock.json`), 'utf8');
      const res = await fetch(`${zeroOrg}/policy_groups/${g}/policies/${p}`, { method: 'PUT', headers: { 'content-type': 'application/json', 'x-ops-userid': 'alice' }, body: lock });
      expect(res.status, await res.text()).toBeLessThan(300);
    }
    // Items: plain, encrypted (knife with the secret file), chef-vault (for the staging nodes and alice).
    expect((await zeroApi('POST', `/organizations/${ORG}/data`, { name: 'app' })).status).toBe(201);
    expect((await zeroApi('POST', `/organizations/${ORG}/data/app`, { id: 'settings', port: 5432, hosts: ['db1', 'db2'], ratio: 1.0 })).status).toBe(201);
    write('creds.json', JSON.stringify({ id: 'creds', password: 'enc-s3cr3t' }));
    ok(await tool('knife', ['data', 'bag', 'from', 'file', 'app', path.join(dir, 'creds.json'), '--secret-file', path.join(dir, 'secret.key'), '-c', zeroConfig]));
    ok(await tool('knife', ['vault', 'create', 'secrets', 'db', '{"password":"vault-s3cr3t"}', '-C', 'web-1,db-1', '-A', 'alice', '-M', 'client', '-c', zeroConfig]));
    expect(Object.keys((await zeroApi('GET', `/organizations/${ORG}/policy_groups`)).json).sort()).toEqual(['dev', 'production', 'staging']);
    lap('old server filled');
  });

  it('an empty console, its first administrator made by admin:create, takes the organization; --verify finds no difference; numbers byte for byte', async () => {
    write('ops-password', 'correct horse battery staple\n');
    const made = await script('admin-create.ts', ['--email', 'ops@example.com', '--name', 'Ops', '--password-file', path.join(dir, 'ops-password')]);
    ok(made);
    const src = ['--server', zero.url, '--org', ORG, '--user', 'alice', '--key', keys.get('alice')!];
    const dry = await script('import.ts', [...src, '--dry-run', '--json']);
    const dryReport = JSON.parse(dry.stdout);
    expect(dry.code, dry.stderr).toBe(0);
    expect(await db().node.count()).toBe(0);
    const real = await script('import.ts', [...src, '--json']);
    expect(real.code, real.stdout + real.stderr).toBe(0);
    const report = JSON.parse(real.stdout);
    // The dry run said exactly what the run did.
    const names = (r: { imported: { kind: string; name: string }[] }) => r.imported.map((e) => `${e.kind} ${e.name}`).sort();
    expect(names(report)).toEqual(names(dryReport));
    expect(report.rights.people.find((p: { user: string }) => p.user === 'alice').rights).toEqual(expect.arrayContaining([expect.stringMatching(/^organization admin/), expect.stringMatching(/^team chef-admins \(Chef group admins\): manage on dev, production, staging/)]));
    lap('imported (dry run and run)');

    const verify = await script('import.ts', [...src, '--verify']);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/no difference/);
    // Seven pointers, the same revision ids; node JSON with its numbers as the old server sends them.
    const pointers = await db().groupPolicy.count();
    expect(pointers).toBe(7);
    const fromZero = (await zeroApi('GET', `/organizations/${ORG}/nodes/web-1`)).text;
    const fromConsole = (await consoleGet('nodes/web-1')).text;
    const numbers = (t: string) => [...t.matchAll(/"(run_time_limit|shard|ohai_time)":\s*([-0-9.eE+]+)/g)].map((m) => `${m[1]}=${m[2]}`).sort();
    expect(numbers(fromConsole)).toEqual(numbers(fromZero));
    expect(numbers(fromConsole)).toContain('run_time_limit=1.0');
    lap('verified');
  });

  it('nodes converge against the console with their own keys, only chef_server_url changed: items, vault and search as before', async () => {
    for (const [name, policy, group] of NODES.filter(([n]) => n === 'web-1' || n === 'db-1')) {
      const r = await tool('chef-client', ['-c', clientRb(name, policy, group, orgUrl), '--once', '--no-fork']);
      ok(r);
      expect(r.stdout).toContain(`Using Policyfile '${policy}' at revision '${revs[policy]}'`);
      expect(fs.readFileSync(path.join(dir, 'out', `${name}.txt`), 'utf8')).toBe(`policy=${policy} group=${group} port=5432 password=enc-s3cr3t vault=vault-s3cr3t peers=db-1,web-1,web-2 limit=Float:1.0 peer_limits=Float flavour=${policy === 'web' ? 'plain' : ''}\n`);
    }
    const moved = await db().node.findUniqueOrThrow({ where: { name: 'web-1' }, select: { lastCheckIn: true, group: { select: { name: true } } } });
    expect(moved.group?.name).toBe('staging');
    expect(moved.lastCheckIn!.getTime()).toBeGreaterThan(started);
    lap('two nodes converged');
  });

  it('a staged cut-over: a knife ec backup tree taken later brings the pointer the old server moved; the node that moved stays as it is', async () => {
    // On the old server: alice moves production to a new web revision; web-1 (moved) and web-2 (not) change there.
    write('web.rb', fs.readFileSync(path.join(dir, 'web.rb'), 'utf8').replace("'plain'", "'spicy'"));
    fs.rmSync(path.join(dir, 'web.lock.json'));
    ok(await tool('chef', ['install', 'web.rb']));
    const v2 = JSON.parse(fs.readFileSync(path.join(dir, 'web.lock.json'), 'utf8')).revision_id as string;
    ok(await tool('chef', ['push', 'production', 'web.rb', '-c', path.join(dir, '.chef/zero.rb')]));
    for (const n of ['web-1', 'web-2']) expect((await zeroApi('PUT', `/organizations/${ORG}/nodes/${n}`, nodeJson(n, 'web', 'staging').replace('"shard":7', '"shard":8'))).status).toBe(200);

    // The tree knife ec backup writes: the organization through chef_fs (knife download, versioned cookbooks),
    // its cookbook artifacts file by file, the users, and the --with-user-sql / --with-key-sql dumps.
    const tree = path.join(dir, 'backup');
    const orgDir = path.join(tree, 'organizations', ORG);
    fs.mkdirSync(orgDir, { recursive: true });
    keyPair('pivotal');
    const dl = config('backup.rb', `${zero.url}/organizations/${ORG}`, 'pivotal', [`chef_repo_path ${JSON.stringify(orgDir)}`, 'versioned_cookbooks true']);
    // knife 18 deadlocks in its own thread pool on /acls as a whole (its cookbook ACL directories): the rest, path by path.
    const acls = ['clients', 'containers', 'data_bags', 'groups', 'nodes', 'policies', 'policy_groups', 'organization.json'].map((a) => `/acls/${a}`);
    ok(await tool('knife', ['download', ...acls, '/clients', '/containers', '/data_bags', '/groups', '/nodes', '/policies', '/policy_groups', '/members.json', '/invitations.json', '/org.json', '-c', dl]));
    const artifacts = (await zeroApi('GET', `/organizations/${ORG}/cookbook_artifacts?num_versions=all`)).json as Record<string, { versions: { identifier: string }[] }>;
    for (const [name, c] of Object.entries(artifacts)) {
      for (const { identifier } of c.versions) {
        const m = (await fetch(`${zero.url}/organizations/${ORG}/cookbook_artifacts/${name}/${identifier}`, { headers: { 'x-ops-userid': 'pivotal', 'x-ops-server-api-version': '2' } }).then((r) => r.json())) as { all_files: { path: string; url: string }[] };
        for (const f of m.all_files) {
          const target = path.join(orgDir, 'cookbook_artifacts', `${name}-${identifier}`, f.path);
          fs.mkdirSync(path.dirname(target), { recursive: true });
          fs.writeFileSync(target, Buffer.from(await (await fetch(f.url)).arrayBuffer()));
        }
      }
    }
    const userRows: unknown[] = [];
    const keyRows: unknown[] = [];
    for (const u of ['alice', 'bob']) {
      const body = (await zeroApi('GET', `/users/${u}`)).json;
      fs.mkdirSync(path.join(tree, 'users'), { recursive: true });
      fs.writeFileSync(path.join(tree, 'users', `${u}.json`), JSON.stringify(body, null, 2));
      userRows.push({ id: u.padEnd(32, '0'), authz_id: u.padEnd(32, '1'), username: u, email: body.email, pubkey_version: 0, public_key: body.public_key, serialized_object: JSON.stringify({ display_name: body.display_name, first_name: body.first_name, last_name: body.last_name }), last_updated_by: 'pivotal', admin: false, external_authentication_uid: null, recovery_authentication_enabled: false });
      keyRows.push({ id: u.padEnd(32, '0'), org_id: 'global', name: u, authz_id: u.padEnd(32, '1'), type: 'user', key_name: 'default', public_key: body.public_key, key_version: 0, expires_at: 'infinity', org_name: null });
    }
    for (const [name] of NODES) keyRows.push({ id: name.padEnd(32, '0'), org_id: 'a'.repeat(32), name, authz_id: name.padEnd(32, '1'), type: 'client', key_name: 'default', public_key: (await zeroApi('GET', `/organizations/${ORG}/clients/${name}/keys/default`)).json.public_key, key_version: 0, expires_at: 'infinity', org_name: ORG });
    fs.writeFileSync(path.join(tree, 'key_dump.json'), JSON.stringify(userRows));
    fs.writeFileSync(path.join(tree, 'key_table_dump.json'), JSON.stringify(keyRows));
    lap('knife ec backup tree taken');

    const { report } = await runImport(await accessFor('ops@example.com'), new DirectorySource(tree));
    // Only the source's changes: the new revision, the pointer it moved, the node that has not moved here yet.
    expect(report.imported).toEqual([
      { kind: 'policy-revision', name: `web@${v2}`, detail: expect.stringMatching(/^created/) },
      { kind: 'policy-group', name: 'production/web', detail: `moved from ${revs.web} to ${v2} (the source moved it since the import)` },
      { kind: 'node', name: 'web-2', detail: 'updated (the source changed it since the import; differs at /normal/shard)' },
    ]);
    expect(report.skipped).toEqual([{ kind: 'node', name: 'web-1', detail: expect.stringMatching(/has checked in to the console since its import .*not overwritten/) }]);
    expect(report.conflicts).toEqual([]);
    expect(await consoleGet('nodes/web-1').then((r) => JSON.parse(r.text).normal.shard)).toBe(7);
    expect(JSON.parse((await consoleGet('policy_groups/production/policies/web')).text).revision_id).toBe(v2);
    lap('re-imported from the tree');
  });

  it('the old admin keeps working with her own key: pushes to the console and is in its admins group', async () => {
    const consoleConfig = config('console.rb', orgUrl, 'alice');
    ok(await tool('chef', ['push', 'dev', 'web.rb', '-c', consoleConfig]));
    expect((await db().pointerHistory.findFirstOrThrow({ where: { groupName: 'dev', policyName: 'web' }, orderBy: { createdAt: 'desc' }, select: { actorEmail: true } })).actorEmail).toBe('alice@example.com');
    const admins = await consoleGet('groups/admins');
    expect(admins.status).toBe(200);
    expect(JSON.parse(admins.text).users).toContain('alice');
    lap('alice pushed');
  });

  it('export writes a tree the real knife uploads into chef-zero, and a second empty console imports and verifies it', async () => {
    const out = path.join(dir, 'export');
    ok(await script('export.ts', ['--dir', out]));
    // knife upload into a new organization of chef-zero (its users first: an organization's members must exist).
    expect((await zeroApi('POST', '/organizations', { name: 'restored', full_name: 'Restored' })).status).toBe(201);
    for (const f of fs.readdirSync(path.join(out, 'users'))) {
      const u = JSON.parse(fs.readFileSync(path.join(out, 'users', f), 'utf8'));
      if ((await zeroApi('GET', `/users/${u.username}`)).status === 404) await zeroApi('POST', '/users', { ...u, password: 'secret123' });
    }
    const up = config('upload.rb', `${zero.url}/organizations/restored`, 'pivotal', [`chef_repo_path ${JSON.stringify(path.join(out, 'organizations', ORG))}`, 'versioned_cookbooks true']);
    // Every top-level path but org.json (its name is the old organization's) and invitations.json (none to restore);
    // `knife upload /` as a whole deadlocks in knife 18's thread pool, as its downloads do.
    ok(await tool('knife', ['upload', '/cookbook_artifacts', '/policies', '/policy_groups', '/data_bags', '/nodes', '/clients', '/groups', '/containers', '/acls', '/members.json', '-c', up]));
    const restored = (await zeroApi('GET', '/organizations/restored/policy_groups')).json as Record<string, { policies: Record<string, { revision_id: string }> }>;
    const here = JSON.parse((await consoleGet('policy_groups')).text) as typeof restored;
    const pointersOf = (o: typeof restored) => Object.fromEntries(Object.entries(o).map(([g, b]) => [g, Object.fromEntries(Object.entries(b.policies ?? {}).map(([p, r]) => [p, r.revision_id]))]));
    expect(pointersOf(restored)).toEqual(pointersOf(here));
    expect((await zeroApi('GET', '/organizations/restored/nodes/web-1')).text).toMatch(/"run_time_limit":\s*1\.0/);
    lap('knife upload of the export');

    // A second empty console: its first administrator, the import of the tree, and --verify.
    const second = path.join(dir, 'second.db');
    fs.copyFileSync(path.resolve('data/test/template.db'), second);
    const url = `file:${second}`;
    ok(await script('admin-create.ts', ['--email', 'second@example.com', '--password-file', path.join(dir, 'ops-password')], url));
    const imported = await script('import.ts', ['--dir', out, '--json'], url);
    expect(imported.code, imported.stdout + imported.stderr).toBe(0);
    const verified = await script('import.ts', ['--verify', '--dir', out], url);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    lap('second console verified');
  });
});
