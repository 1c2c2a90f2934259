/**
 * The console as the artifact server, end to end with the real tools: a
 * workspace with two cookbooks (one depending on the other) and a Policyfile;
 * `chef install`; `chef push dev` uploads cookbooks and lock; a chef-client node
 * registered through the validator converges in dev; the revision is promoted
 * dev → staging through the console's API by a user with promote on staging; a
 * node in staging converges it; the console reports both nodes on it. A second
 * push of unchanged cookbooks uploads no file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '@/lib/db/client';
import { listNodes } from '@/lib/services/nodes';
const { POST: promote } = apiRoutes('/api/v1/policy_groups/[group]/promote');
import { startChefHarness, type ChefHarness } from '../chef-harness';
import { accessFor, call, tokenFor } from '../helpers';
import { projectScript, run, writeConfig, writeClientRb } from './tools';
import { apiRoutes } from '@/test/helpers';

let chef: ChefHarness;
let dir: string;
let config: string;

function write(rel: string, text: string) {
  const p = path.join(dir, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
}

beforeAll(async () => {
  chef = await startChefHarness();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chef-artifacts-'));
  write('cookbooks/greet/metadata.rb', "name 'greet'\nversion '1.0.0'\n");
  write('cookbooks/greet/recipes/default.rb', "node.default['greet']['message'] = 'hello from greet'\n");
  write('cookbooks/greet/templates/banner.erb', '<%= @text %>\n');
  write('cookbooks/hello/metadata.rb', "name 'hello'\nversion '0.2.0'\ndepends 'greet', '~> 1.0'\n");
  write('cookbooks/hello/recipes/default.rb', "include_recipe 'greet::default'\nfile ::File.join(node['hello']['dir'], \"#{node.policy_group}.txt\") do\n  content \"#{node['greet']['message']} in #{node.policy_group}\\n\"\nend\n");
  write(
    'Policyfile.rb',
    `name 'hello-app'\nrun_list 'hello::default'\ncookbook 'hello', path: 'cookbooks/hello'\ncookbook 'greet', path: 'cookbooks/greet'\ndefault['hello']['dir'] = ${JSON.stringify(path.join(dir, 'out'))}\n`,
  );
  fs.mkdirSync(path.join(dir, 'out'));
  const key = path.join(dir, 'dev.pem');
  expect((await projectScript('chef-user-key.ts', ['dev', '--out', key])).code).toBe(0);
  config = writeConfig(path.join(dir, '.chef'), 'config.rb', { serverUrl: chef.orgUrl, nodeName: 'dev', keyFile: key });
  const validator = await projectScript('chef-validator.ts', ['--out', path.join(dir, 'validator.pem')]);
  expect(validator.code, validator.stderr).toBe(0);
});

afterAll(async () => {
  await chef?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const tool = (cmd: string, args: string[], cwd = dir) => run(cmd, args, { cwd, env: { HOME: dir }, timeoutMs: 240_000 });

async function converge(nodeName: string, group: string) {
  const home = path.join(dir, nodeName);
  fs.mkdirSync(home, { recursive: true });
  // Issue 41: the demo's staging is closed to the organization's validator: a node enrolls there through staging's validator.
  let validator = { key: path.join(dir, 'validator.pem'), name: `${chef.org}-validator` };
  if (group === 'staging') {
    const key = path.join(dir, 'staging-validator.pem');
    if (!fs.existsSync(key)) expect((await projectScript('chef-validator.ts', ['--stage', 'staging', '--out', key])).code).toBe(0);
    validator = { key, name: `${chef.org}-validator-staging` };
  }
  writeClientRb(home, { serverUrl: chef.orgUrl, org: chef.org, nodeName, validatorKey: validator.key, validatorName: validator.name, group: group, policy: 'hello-app' });
  return tool('chef-client', ['-c', path.join(home, 'client.rb'), '--once', '--no-fork'], home);
}

describe('chef push, chef-client, promotion', () => {
  let revisionId: string;

  it('chef install writes the lock; chef push dev uploads cookbooks and lock', async () => {
    const install = await tool('chef', ['install']);
    expect(install.code, install.stdout + install.stderr).toBe(0);
    revisionId = JSON.parse(fs.readFileSync(path.join(dir, 'Policyfile.lock.json'), 'utf8')).revision_id;
    const push = await tool('chef', ['push', 'dev', '-c', config]);
    expect(push.code, push.stdout + push.stderr).toBe(0);
    expect(push.stdout).toContain('Uploaded greet 1.0.0');
    expect(push.stdout).toContain('Uploaded hello 0.2.0');

    const rev = await db().policyRevision.findFirstOrThrow({ where: { revisionId, policy: { name: 'hello-app' } }, select: { computedRevisionId: true, groups: { select: { group: { select: { name: true } } } } } });
    expect(rev.computedRevisionId).toBe(revisionId);
    expect(rev.groups.map((g) => g.group.name)).toEqual(['dev']);
    const lock = JSON.parse(fs.readFileSync(path.join(dir, 'Policyfile.lock.json'), 'utf8')) as { cookbook_locks: Record<string, { identifier: string }> };
    for (const [name, cb] of Object.entries(lock.cookbook_locks)) {
      expect(await db().cookbookArtifact.findUnique({ where: { name_identifier: { name, identifier: cb.identifier } }, select: { id: true } }), name).not.toBeNull();
    }
    expect(await db().cookbookFile.count()).toBeGreaterThanOrEqual(5);
  });

  it('a node registered through the validator converges in dev', async () => {
    const r = await converge('node-dev-1', 'dev');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(`Using Policyfile 'hello-app' at revision '${revisionId}'`);
    expect(fs.readFileSync(path.join(dir, 'out', 'dev.txt'), 'utf8')).toBe('hello from greet in dev\n');
  });

  it('a user with promote on staging promotes it through the console API; a node in staging converges it', async () => {
    const res = await call(promote, 'POST', {
      token: await tokenFor('release@example.com'),
      params: { group: 'staging' },
      body: { from: 'dev', policies: ['hello-app'], expected: { 'hello-app': null }, reason: 'interop' },
    });
    expect(res.status, res.text).toBe(200);
    const r = await converge('node-staging-1', 'staging');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'out', 'staging.txt'), 'utf8')).toBe('hello from greet in staging\n');

    const nodes = await listNodes(await accessFor('viewer@example.com'), { policy: 'hello-app' });
    expect(nodes.map((n) => [n.name, n.policy_group, n.revision_id, n.stale])).toEqual([
      ['node-dev-1', 'dev', revisionId, false],
      ['node-staging-1', 'staging', revisionId, false],
    ]);
    expect(nodes.every((n) => n.platform && n.last_check_in)).toBe(true);
    // The stage's history shows the promotion rolled out: its one node converged, and when.
    const { pointerHistory } = await import('@/lib/services/stages');
    const [latest] = await pointerHistory('staging', 'hello-app');
    expect(latest.toRevisionId).toBe(revisionId);
    expect(latest.convergence).toMatchObject({ nodes: 1, converged: 1 });
    expect(Date.parse(latest.convergence!.lastConvergedAt!)).toBeGreaterThanOrEqual(Date.parse(latest.at));
  });

  it('a second chef push of unchanged cookbooks uploads no file', async () => {
    const files = await db().cookbookFile.count();
    const sandboxes = await db().sandbox.count();
    const push = await tool('chef', ['push', 'dev', '-c', config]);
    expect(push.code, push.stdout + push.stderr).toBe(0);
    expect(push.stdout).toContain('Using    greet 1.0.0');
    expect(push.stdout).not.toContain('Uploaded');
    expect(await db().cookbookFile.count()).toBe(files);
    expect(await db().sandbox.count()).toBe(sandboxes);
  });

  // Issue 23: chef-cli writes any named run list name and Chef Server takes it (erchef validates no named_run_lists).
  it('chef push takes a lock whose named run lists are called défaut, 🚀 and ""', async () => {
    write('named.rb', `name 'named-lists'\nrun_list 'hello::default'\nnamed_run_list 'défaut', 'greet::default'\nnamed_run_list '🚀', 'hello::default'\nnamed_run_list '', 'greet::default'\ncookbook 'hello', path: 'cookbooks/hello'\ncookbook 'greet', path: 'cookbooks/greet'\n`);
    const install = await tool('chef', ['install', 'named.rb']);
    expect(install.code, install.stdout + install.stderr).toBe(0);
    const lock = JSON.parse(fs.readFileSync(path.join(dir, 'named.lock.json'), 'utf8')) as { revision_id: string; named_run_lists: Record<string, string[]> };
    expect(Object.keys(lock.named_run_lists).sort()).toEqual(['', 'défaut', '🚀'].sort());
    const push = await tool('chef', ['push', 'dev', 'named.rb', '-c', config]);
    expect(push.code, push.stdout + push.stderr).toBe(0);
    const rev = await db().policyRevision.findFirstOrThrow({ where: { revisionId: lock.revision_id, policy: { name: 'named-lists' } }, select: { computedRevisionId: true, groups: { select: { group: { select: { name: true } } } } } });
    expect(rev.computedRevisionId).toBe(lock.revision_id);
    expect(rev.groups.map((g) => g.group.name)).toEqual(['dev']);
    // And Chef's API serves it back with the same names.
    const served = await chef.request('GET', `policies/named-lists/revisions/${lock.revision_id}`, { as: 'dev' });
    expect(served.status).toBe(200);
    expect(served.json.named_run_lists).toEqual(lock.named_run_lists);
  });
});
