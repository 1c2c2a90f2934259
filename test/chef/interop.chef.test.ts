/**
 * Interop with the real Chef tools: knife and chef-cli talk to a freshly
 * started console, signed with keys made by `npm run chef:user-key` and
 * `npm run chef:validator`, and each result is checked against what the
 * console itself then shows. Protocols 1.0, 1.1 and 1.3 all appear.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '@/lib/db/client';
import { chefGroupRows, chefPolicyRows } from '@/lib/db/queries/policies';
import { startChefHarness, type ChefHarness } from '../chef-harness';
import { snapshot } from '../helpers';
import { projectScript, run, writeConfig } from './tools';

let chef: ChefHarness;
let dir: string;
const cfg: Record<string, string> = {};

beforeAll(async () => {
  chef = await startChefHarness();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chef-interop-'));
  for (const [user, protocol] of [['admin', '1.1'], ['release', '1.0'], ['viewer', '1.3']] as const) {
    const keyFile = path.join(dir, `${user}.pem`);
    const made = await projectScript('chef-user-key.ts', [user, '--out', keyFile]);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toBe('');
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    cfg[user] = writeConfig(path.join(dir, '.chef'), `${user}.rb`, { serverUrl: chef.orgUrl, nodeName: user, keyFile, protocol });
  }
  const validator = await projectScript('chef-validator.ts', []);
  expect(validator.code, validator.stderr).toBe(0);
  expect(validator.stdout).toMatch(/^-----BEGIN RSA PRIVATE KEY-----\n[\s\S]+-----END RSA PRIVATE KEY-----\n$/);
  fs.writeFileSync(path.join(dir, 'validator.pem'), validator.stdout, { mode: 0o600 });
});

afterAll(async () => {
  await chef?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const tool = (cmd: string, args: string[]) => run(cmd, args, { cwd: dir, env: { HOME: dir } });
const knife = (user: string, ...args: string[]) => tool('knife', [...args, '-c', cfg[user]]);
const chefCli = (user: string, ...args: string[]) => tool('chef', [...args, '-c', cfg[user]]);

describe('knife', () => {
  it('knife raw GET (protocol 1.1) returns the policy groups the console has', async () => {
    const r = await knife('admin', 'raw', '/policy_groups');
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout);
    const groups = await chefGroupRows();
    expect(Object.keys(body)).toEqual(groups.map((g) => g.name));
    for (const g of groups) expect(body[g.name].policies).toEqual(Object.fromEntries(g.policies.map((p) => [p.policy, { revision_id: p.revisionId }])));
  });

  it('knife raw POST, PUT and DELETE (protocol 1.0) write nodes the console shows, and audit the key', async () => {
    const node = { name: 'interop-01.example.com', chef_environment: '_default', policy_name: 'webapp', policy_group: 'dev', automatic: { platform: 'ubuntu', platform_version: '22.04' } };
    fs.writeFileSync(path.join(dir, 'node.json'), JSON.stringify(node));
    // release has promote on staging/production only: dev is refused and nothing changes.
    const before = snapshot({ except: ['ChefKey'] });
    const refused = await knife('release', 'raw', '-m', 'POST', '-i', path.join(dir, 'node.json'), '/nodes');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr + refused.stdout).toMatch(/403/);
    expect(snapshot({ except: ['ChefKey'] })).toBe(before);
    // admin may.
    const created = await knife('admin', 'raw', '-m', 'POST', '-i', path.join(dir, 'node.json'), '/nodes');
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toEqual({ uri: `${chef.orgUrl}/nodes/interop-01.example.com` });
    fs.writeFileSync(path.join(dir, 'node.json'), JSON.stringify({ ...node, automatic: { ...node.automatic, platform_version: '24.04' } }));
    const ok = await knife('admin', 'raw', '-m', 'PUT', '-i', path.join(dir, 'node.json'), '/nodes/interop-01.example.com');
    expect(ok.code, ok.stderr).toBe(0);
    const row = await db().node.findUniqueOrThrow({ where: { name: 'interop-01.example.com' }, select: { platform: true, platformVersion: true, group: { select: { name: true } } } });
    expect(row).toEqual({ platform: 'ubuntu', platformVersion: '24.04', group: { name: 'dev' } });
    const put = await db().auditEvent.findFirst({ where: { target: 'interop-01.example.com' }, orderBy: { createdAt: 'desc' }, select: { via: true, actorEmail: true } });
    expect(put?.actorEmail).toBe('admin@example.com');
    expect(put?.via).toMatch(/^chef-key:admin\//);

    const del = await knife('admin', 'raw', '-m', 'DELETE', '/nodes/interop-01.example.com');
    expect(del.code, del.stderr).toBe(0);
    expect(await db().node.findUnique({ where: { name: 'interop-01.example.com' } })).toBeNull();
  });

  it('knife node list (protocol 1.3) lists the nodes the user may view', async () => {
    const r = await knife('viewer', 'node', 'list');
    expect(r.code, r.stderr).toBe(0);
    const names = r.stdout.trim().split('\n');
    const all = await db().node.findMany({ orderBy: { name: 'asc' }, select: { name: true } });
    expect(names).toEqual(all.map((n) => n.name));
    expect(names.length).toBeGreaterThan(100);
  });

  it('a request signed with the wrong key gets 401 and changes nothing', async () => {
    const wrong = writeConfig(path.join(dir, '.chef'), 'wrong.rb', { serverUrl: chef.orgUrl, nodeName: 'admin', keyFile: path.join(dir, 'release.pem') });
    const before = snapshot();
    const r = await tool('knife', ['raw', '-m', 'DELETE', '/policy_groups/qa', '-c', wrong]);
    expect(r.code).not.toBe(0);
    expect(r.stderr + r.stdout).toMatch(/401|Invalid signature/);
    expect(snapshot()).toBe(before);
  });
});

describe('chef-cli', () => {
  it('chef show-policy shows every policy and the revision each stage runs', async () => {
    const r = await chefCli('release', 'show-policy');
    expect(r.code, r.stderr).toBe(0);
    const groups = await chefGroupRows();
    const policies = await chefPolicyRows();
    for (const p of policies) {
      const active = groups.filter((g) => g.policies.some((x) => x.policy === p.name));
      if (!active.length) continue;
      expect(r.stdout).toContain(`${p.name}\n${'='.repeat(p.name.length)}`);
      for (const g of active) {
        const rev = g.policies.find((x) => x.policy === p.name)!.revisionId;
        expect(r.stdout).toMatch(new RegExp(`\\* ${g.name}:\\s+${rev.slice(0, 10)}`));
      }
    }
  });

  it('chef diff dev...staging shows the revision change the console knows', async () => {
    const doc = await chef.request('GET', 'policy_groups/dev/policies/webapp', { as: 'admin' });
    fs.writeFileSync(path.join(dir, 'Policyfile.rb'), 'name "webapp"\nrun_list "recipe[nginx]"\n');
    fs.writeFileSync(path.join(dir, 'Policyfile.lock.json'), doc.text);
    const r = await chefCli('release', 'diff', 'Policyfile.rb', 'dev...staging');
    expect(r.code, r.stderr).toBe(0);
    const groups = await chefGroupRows();
    const rev = (g: string) => groups.find((x) => x.name === g)!.policies.find((p) => p.policy === 'webapp')!.revisionId;
    expect(r.stdout).toContain(`Policy lock 'webapp' differs between 'policy_group:dev' and 'policy_group:staging'`);
    expect(r.stdout).toContain(`-${rev('dev')}`);
    expect(r.stdout).toContain(`+${rev('staging')}`);
  });

  it('chef delete-policy-group and chef undelete --last round-trip a stage', async () => {
    const before = (await chefGroupRows('qa'))[0];
    expect(before.policies.length).toBeGreaterThan(0);
    const del = await chefCli('admin', 'delete-policy-group', 'qa');
    expect(del.code, del.stderr).toBe(0);
    expect(del.stdout + del.stderr).toContain("Removed policy group 'qa'.");
    expect(await chefGroupRows('qa')).toEqual([]);
    const undo = await chefCli('admin', 'undelete', '--last');
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout + undo.stderr).toContain("Restored policy group 'qa'");
    expect((await chefGroupRows('qa'))[0].policies).toEqual(before.policies);
  });

  it('chef clean-policy-revisions deletes exactly the revisions no stage runs', async () => {
    const groups = await chefGroupRows();
    const active = new Set(groups.flatMap((g) => g.policies.map((p) => `${p.policy} ${p.revisionId}`)));
    const orphans = (await chefPolicyRows()).flatMap((p) => p.revisions.map((r) => `${p.name} ${r}`)).filter((x) => !active.has(x));
    expect(orphans.length).toBeGreaterThan(0);
    const r = await chefCli('admin', 'clean-policy-revisions');
    expect(r.code, r.stderr).toBe(0);
    const deleted = r.stdout.split('\n').filter((l) => l.startsWith('DELETE ')).map((l) => l.slice('DELETE '.length)).sort();
    expect(deleted).toEqual([...orphans].sort());
    const left = (await chefPolicyRows()).flatMap((p) => p.revisions.map((rev) => `${p.name} ${rev}`)).sort();
    expect(left).toEqual([...active].sort());
  });
});
