/**
 * Issue 26 with real chef-client 18: nodes converge a pushed policy in dev and
 * report every run to the console's data collector; a new revision whose
 * recipe raises on some nodes (by a node attribute) fails there; the console
 * shows the raising resource, the gate refuses qa, the automatic rollback
 * moves dev back, and the next chef-client run converges the old revision.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '@/lib/db/client';
import { setStageRolloutRule, stageHealth } from '@/lib/services/runs';
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

const RECIPE_V1 = "file ::File.join(node['rollout']['dir'], node.name) do\n  content 'v1'\nend\nlog 'converged v1'\n";
const RECIPE_V2 =
  "file ::File.join(node['rollout']['dir'], node.name) do\n  content 'v2'\nend\nruby_block 'check release' do\n  block { raise 'the new release breaks this node' if node.read('rollout', 'fail') }\nend\nlog 'converged v2'\n";

beforeAll(async () => {
  chef = await startChefHarness();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chef-rollout-'));
  write('cookbooks/rollout/metadata.rb', "name 'rollout'\nversion '1.0.0'\n");
  write('cookbooks/rollout/recipes/default.rb', RECIPE_V1);
  write('Policyfile.rb', `name 'rollout-app'\nrun_list 'rollout::default'\ncookbook 'rollout', path: 'cookbooks/rollout'\ndefault['rollout']['dir'] = ${JSON.stringify(path.join(dir, 'out'))}\n`);
  fs.mkdirSync(path.join(dir, 'out'));
  const key = path.join(dir, 'dev.pem');
  expect((await projectScript('chef-user-key.ts', ['dev', '--out', key])).code).toBe(0);
  config = writeConfig(path.join(dir, '.chef'), 'config.rb', { serverUrl: chef.orgUrl, nodeName: 'dev', keyFile: key });
  expect((await projectScript('chef-validator.ts', ['--out', path.join(dir, 'validator.pem')])).code).toBe(0);
});

afterAll(async () => {
  await chef?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const tool = (cmd: string, args: string[], cwd = dir) => run(cmd, args, { cwd, env: { HOME: dir }, timeoutMs: 240_000 });

async function converge(nodeName: string, fail: boolean) {
  const home = path.join(dir, nodeName);
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(path.join(home, 'attrs.json'), JSON.stringify({ rollout: { fail } }));
  writeClientRb(home, { serverUrl: chef.orgUrl, org: chef.org, nodeName, validatorKey: path.join(dir, 'validator.pem'), group: 'dev', policy: 'rollout-app' });
  return tool('chef-client', ['-c', path.join(home, 'client.rb'), '--once', '--no-fork', '-j', path.join(home, 'attrs.json')], home);
}

const lastRun = (node: string) => db().runReport.findFirstOrThrow({ where: { nodeName: node, status: { not: 'started' } }, orderBy: { startTime: 'desc' } });
const devRevision = async () => (await db().groupPolicy.findFirstOrThrow({ where: { group: { name: 'dev' }, policy: { name: 'rollout-app' } }, select: { revision: { select: { revisionId: true } } } })).revision.revisionId;

describe('a failing rollout, seen, gated and rolled back with real chef-client', () => {
  let v1: string;
  let v2: string;

  it('nodes converge the first revision in dev and every run is reported', async () => {
    expect((await tool('chef', ['install'])).code).toBe(0);
    const push = await tool('chef', ['push', 'dev', '-c', config]);
    expect(push.code, push.stdout + push.stderr).toBe(0);
    v1 = JSON.parse(fs.readFileSync(path.join(dir, 'Policyfile.lock.json'), 'utf8')).revision_id;
    for (const [node, fail] of [['ro-1', true], ['ro-2', true], ['ro-3', false]] as const) {
      const r = await converge(node, fail);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(await lastRun(node)).toMatchObject({ status: 'success', groupName: 'dev', policyName: 'rollout-app', revisionId: v1, failedResource: null });
    }
    expect(await stageHealth(await accessFor('viewer@example.com'), 'dev', 'rollout-app')).toMatchObject({ revisionId: v1, converged: 3, failed: 0, pending: 0 });
  });

  it('a new revision fails on the nodes it breaks: the console shows the raising resource within one run', async () => {
    const admin = await accessFor('admin@example.com');
    await setStageRolloutRule(admin, { stage: 'qa', gate: { enabled: true, min_success_pct: 100, min_nodes: 3, max_failure_pct: 0, soak_minutes: 0 } });
    await setStageRolloutRule(admin, { stage: 'dev', rollback: { enabled: true, window_minutes: 60, failure_pct: 50, min_runs: 2 } });
    write('cookbooks/rollout/metadata.rb', "name 'rollout'\nversion '1.1.0'\n");
    write('cookbooks/rollout/recipes/default.rb', RECIPE_V2);
    fs.rmSync(path.join(dir, 'Policyfile.lock.json'));
    expect((await tool('chef', ['install'])).code).toBe(0);
    const push = await tool('chef', ['push', 'dev', '-c', config]);
    expect(push.code, push.stdout + push.stderr).toBe(0);
    v2 = JSON.parse(fs.readFileSync(path.join(dir, 'Policyfile.lock.json'), 'utf8')).revision_id;
    expect(v2).not.toBe(v1);
    expect(await devRevision()).toBe(v2);

    const r = await converge('ro-1', true);
    expect(r.code).not.toBe(0);
    expect(await lastRun('ro-1')).toMatchObject({ status: 'failure', revisionId: v2, failedResource: 'ruby_block[check release]', failedCookbook: 'rollout', errorClass: 'RuntimeError' });
    const h = await stageHealth(await accessFor('viewer@example.com'), 'dev', 'rollout-app');
    expect(h).toMatchObject({ revisionId: v2, failed: 1, failures: [{ cookbook: 'rollout', resource: 'ruby_block[check release]', nodes: 1 }] });
  });

  it('the gate refuses to promote the failing revision into qa', async () => {
    const res = await call(promote, 'POST', { token: await tokenFor('dev@example.com'), params: { group: 'qa' }, body: { from: 'dev', policies: ['rollout-app'], expected: { 'rollout-app': null } } });
    expect(res.status, res.text).toBe(409);
    expect(res.json.gate).toMatchObject({ met: false, fromStage: 'dev', revisionId: v2, failed: 1 });
  });

  it('the second failing run rolls dev back automatically; the next run converges the old revision again', async () => {
    const r = await converge('ro-2', true);
    expect(r.code).not.toBe(0);
    expect(await devRevision()).toBe(v1);
    const h = await db().pointerHistory.findFirstOrThrow({ where: { groupName: 'dev', policyName: 'rollout-app' }, orderBy: { createdAt: 'desc' } });
    expect(h).toMatchObject({ kind: 'rollback', fromRevisionId: v2, toRevisionId: v1, actorEmail: 'system (automatic rollback)' });
    // Issues 41 and 43: a verdict about dev (the nodes, the resource, the cookbook), not a global bad mark.
    expect(await db().badRevision.count({ where: { policyName: 'rollout-app', revisionId: v2 } })).toBe(0);
    expect(await db().stageVerdict.findFirst({ where: { policyName: 'rollout-app', revisionId: v2 }, select: { groupName: true, source: true, failedNodes: true, failedResource: true } })).toEqual({ groupName: 'dev', source: 'rollback', failedNodes: 2, failedResource: 'ruby_block[check release]' });

    const again = await converge('ro-1', true);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain(`Using Policyfile 'rollout-app' at revision '${v1}'`);
    expect(await lastRun('ro-1')).toMatchObject({ status: 'success', revisionId: v1 });
  });
});
