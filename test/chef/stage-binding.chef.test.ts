/**
 * Issue 41 with the real tools (docs/stage-binding.md): a node's stage is the console's fact. Real chef-client 18
 * registers through a stage validator (`npm run chef:validator -- --stage production`), converges and reports its
 * run in production; the organization's plain validator cannot place a node in production (closed to open
 * enrollment) but can in dev (open); a dev node's client claiming production (client.rb, knife signed with its
 * key) is refused, cannot read a production-restricted bag nor, under stage isolation, production's nodes; a user
 * moves the node with `knife node policy set`, and its next run (client.rb naming no stage) converges the new stage.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '@/lib/db/client';
import { setDataBagStages } from '@/lib/services/data-bags';
import { putStage } from '@/lib/services/stages';
import { startChefHarness, type ChefHarness } from '../chef-harness';
import { accessFor } from '../helpers';
import { projectScript, run, writeClientRb, writeConfig } from './tools';

const POLICY = 'bound-app';

let chef: ChefHarness;
let dir: string;
let admin: string;

function write(rel: string, text: string) {
  const p = path.join(dir, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
}

const tool = (cmd: string, args: string[], cwd = dir) => run(cmd, args, { cwd, env: { HOME: dir }, timeoutMs: 240_000 });
const knife = (config: string, ...args: string[]) => tool('knife', [...args, '-c', config]);
const stageOf = async (name: string) => (await db().node.findUnique({ where: { name }, select: { group: { select: { name: true } } } }))?.group?.name ?? null;

/** A chef-client run of `nodeName`: its client.rb names `group` (null: none, the node's own) and the validator `validator`. */
function converge(nodeName: string, group: string | null, validator: { name: string; key: string }, extraArgs: string[] = []) {
  const home = path.join(dir, 'nodes', nodeName);
  fs.mkdirSync(home, { recursive: true });
  writeClientRb(home, { serverUrl: chef.orgUrl, org: chef.org, nodeName, validatorKey: validator.key, validatorName: validator.name, group, policy: group === null ? null : POLICY });
  return tool('chef-client', ['-c', path.join(home, 'client.rb'), '--once', '--no-fork', ...extraArgs], home);
}

/** knife signed with a node's own client key (what an attacker holding that key runs). */
function nodeKnife(nodeName: string) {
  return writeConfig(path.join(dir, 'nodes', nodeName), 'knife.rb', { serverUrl: chef.orgUrl, nodeName, keyFile: path.join(dir, 'nodes', nodeName, 'client.pem') });
}

let plain: { name: string; key: string };
let prodValidator: { name: string; key: string };

beforeAll(async () => {
  chef = await startChefHarness({ seed: false });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chef-stage-binding-'));
  const key = path.join(dir, 'admin.pem');
  expect((await projectScript('chef-user-key.ts', ['admin', '--out', key])).code).toBe(0);
  admin = writeConfig(path.join(dir, '.chef'), 'config.rb', { serverUrl: chef.orgUrl, nodeName: 'admin', keyFile: key });
  write('cookbooks/bound/metadata.rb', "name 'bound'\nversion '1.0.0'\n");
  write('cookbooks/bound/recipes/default.rb', "file ::File.join(node['bound']['dir'], \"#{node.name}-#{node.policy_group}\") do\n  content node.policy_group\nend\n");
  write('Policyfile.rb', `name '${POLICY}'\nrun_list 'bound::default'\ncookbook 'bound', path: 'cookbooks/bound'\ndefault['bound']['dir'] = ${JSON.stringify(path.join(dir, 'out'))}\n`);
  fs.mkdirSync(path.join(dir, 'out'));
  expect((await tool('chef', ['install'])).code).toBe(0);
  for (const stage of ['dev', 'production']) {
    const push = await tool('chef', ['push', stage, '-c', admin]);
    expect(push.code, push.stdout + push.stderr).toBe(0);
  }
  // Stages made by `chef push` start closed to the plain validator: dev is opened, as an operator would.
  expect(await putStage(await accessFor('admin@example.com'), { name: 'dev', open_enrollment: true })).toEqual({ status: 200, name: 'dev' });
  const v = await projectScript('chef-validator.ts', ['--out', path.join(dir, 'validator.pem')]);
  expect(v.code, v.stderr).toBe(0);
  plain = { name: `${chef.org}-validator`, key: path.join(dir, 'validator.pem') };
  const pv = await projectScript('chef-validator.ts', ['--stage', 'production', '--out', path.join(dir, 'prod-validator.pem')]);
  expect(pv.code, pv.stderr).toBe(0);
  expect(pv.stderr).toContain(`client '${chef.org}-validator-production'`);
  prodValidator = { name: `${chef.org}-validator-production`, key: path.join(dir, 'prod-validator.pem') };
  // A bag only production's nodes read.
  expect((await knife(admin, 'data', 'bag', 'create', 'prod-only')).code).toBe(0);
  write('item.json', JSON.stringify({ id: 'db', password: 'prod-secret' }));
  expect((await knife(admin, 'data', 'bag', 'from', 'file', 'prod-only', path.join(dir, 'item.json'))).code).toBe(0);
  await setDataBagStages(await accessFor('admin@example.com'), 'prod-only', ['production']);
}, 600_000);

afterAll(async () => {
  await chef?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('enrollment: where a new node may place itself', () => {
  it("registers through production's stage validator, converges and reports its run in production", async () => {
    const r = await converge('prod-node-1', 'production', prodValidator);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'out', 'prod-node-1-production'), 'utf8')).toBe('production');
    expect(await stageOf('prod-node-1')).toBe('production');
    expect(await db().chefClient.findFirst({ where: { name: 'prod-node-1' }, select: { enrollStage: true } })).toEqual({ enrollStage: 'production' });
    const runs = await db().runReport.findMany({ where: { nodeName: 'prod-node-1', status: { not: 'started' } }, select: { status: true, groupName: true } });
    expect(runs).toEqual([{ status: 'success', groupName: 'production' }]);
    // It reads production's bag.
    const bag = await knife(nodeKnife('prod-node-1'), 'data', 'bag', 'show', 'prod-only', 'db', '-F', 'json');
    expect(bag.code, bag.stderr).toBe(0);
    expect(JSON.parse(bag.stdout)).toMatchObject({ password: 'prod-secret' });
  });

  it("the organization's plain validator cannot place a node in production: chef-client stops at the policy read with the reason", async () => {
    const r = await converge('sneaky-1', 'production', plain);
    expect(r.code).not.toBe(0);
    // chef-client shows the status of the refused policy read; the reason is the answer's body (knife raw shows it).
    expect(r.stdout + r.stderr).toContain("Error loading policyfile from `policy_groups/production/policies/bound-app': Net::HTTPServerException - 403 \"Forbidden\"");
    const why = await knife(nodeKnife('sneaky-1'), 'raw', `/policy_groups/production/policies/${POLICY}`);
    expect(why.stdout + why.stderr).toContain("stage 'production' does not allow open enrollment");
    expect(await stageOf('sneaky-1')).toBeNull();
    expect(fs.existsSync(path.join(dir, 'out', 'sneaky-1-production'))).toBe(false);
  });

  it('the plain validator places a node in dev (open enrollment), and its runs are reported there', async () => {
    const r = await converge('dev-node-1', 'dev', plain);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(await stageOf('dev-node-1')).toBe('dev');
    expect((await db().runReport.findMany({ where: { nodeName: 'dev-node-1', status: { not: 'started' } }, select: { groupName: true } })).map((x) => x.groupName)).toEqual(['dev']);
  });
});

describe('a dev node claiming production', () => {
  it('a chef-client run naming production is refused, naming dev and how to move it; nothing changes', async () => {
    const reports = await db().runReport.count({ where: { nodeName: 'dev-node-1' } });
    const r = await converge('dev-node-1', 'production', plain);
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toContain("Error loading policyfile from `policy_groups/production/policies/bound-app': Net::HTTPServerException - 403 \"Forbidden\"");
    const why = await knife(nodeKnife('dev-node-1'), 'raw', `/policy_groups/production/policies/${POLICY}`);
    expect(why.stdout + why.stderr).toContain("Node 'dev-node-1' is in stage 'dev'");
    expect(why.stdout + why.stderr).toContain('knife node policy set dev-node-1 production');
    expect(await stageOf('dev-node-1')).toBe('dev');
    expect(fs.existsSync(path.join(dir, 'out', 'dev-node-1-production'))).toBe(false);
    // Its failed run's report names production: refused too (chef-client logs it and goes on).
    expect(await db().runReport.count({ where: { nodeName: 'dev-node-1', groupName: 'production' } })).toBe(0);
    expect(await db().runReport.count({ where: { nodeName: 'dev-node-1' } })).toBeGreaterThanOrEqual(reports);
  });

  it("its client (knife with the node's key) cannot save the node as production, read production's bag, or open production's nodes under isolation", async () => {
    const config = nodeKnife('dev-node-1');
    const shown = await knife(config, 'node', 'show', 'dev-node-1', '-l', '-F', 'json');
    expect(shown.code, shown.stderr).toBe(0);
    const claimed = { ...JSON.parse(shown.stdout), policy_group: 'production' };
    write('claim.json', JSON.stringify(claimed));
    const put = await knife(config, 'raw', '-m', 'PUT', '-i', path.join(dir, 'claim.json'), '/nodes/dev-node-1');
    expect(put.code).not.toBe(0);
    expect(put.stdout + put.stderr).toContain("is in stage 'dev'");
    expect(await stageOf('dev-node-1')).toBe('dev');
    const bag = await knife(config, 'data', 'bag', 'show', 'prod-only', 'db');
    expect(bag.code).not.toBe(0);
    expect(bag.stdout + bag.stderr).toMatch(/not authorized|403|Forbidden/);
    await db().orgSetting.upsert({ where: { id: 'org' }, create: { id: 'org', stageIsolation: true }, update: { stageIsolation: true } });
    try {
      const prod = await knife(config, 'node', 'show', 'prod-node-1');
      expect(prod.code).not.toBe(0);
      expect(prod.stdout + prod.stderr).toMatch(/404|not found/i);
      const found = await knife(config, 'search', 'node', 'policy_group:production', '-i');
      expect(found.stdout + found.stderr).toContain('0 items found');
    } finally {
      await db().orgSetting.update({ where: { id: 'org' }, data: { stageIsolation: false } });
    }
  });
});

describe('a move by a user', () => {
  it('knife node policy set as a user with rights on both stages moves the node; its next run (no policy_group in client.rb) converges production', async () => {
    const move = await knife(admin, 'node', 'policy', 'set', 'dev-node-1', 'production', POLICY);
    expect(move.code, move.stdout + move.stderr).toBe(0);
    expect(await stageOf('dev-node-1')).toBe('production');
    expect(await db().auditEvent.count({ where: { action: 'node.move', target: 'dev-node-1', actorEmail: 'admin@example.com' } })).toBe(1);
    // client.rb still naming dev: refused, naming production.
    const stale = await converge('dev-node-1', 'dev', plain);
    expect(stale.code).not.toBe(0);
    expect(stale.stdout + stale.stderr).toContain("Error loading policyfile from `policy_groups/dev/policies/bound-app'");
    const why = await knife(nodeKnife('dev-node-1'), 'raw', `/policy_groups/dev/policies/${POLICY}`);
    expect(why.stdout + why.stderr).toContain("Node 'dev-node-1' is in stage 'production'");
    // client.rb naming no stage: chef-client follows the node's.
    const r = await converge('dev-node-1', null, plain);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'out', 'dev-node-1-production'), 'utf8')).toBe('production');
    const last = await db().runReport.findFirstOrThrow({ where: { nodeName: 'dev-node-1', status: { not: 'started' } }, orderBy: { startTime: 'desc' }, select: { status: true, groupName: true } });
    expect(last).toEqual({ status: 'success', groupName: 'production' });
    const bag = await knife(nodeKnife('dev-node-1'), 'data', 'bag', 'show', 'prod-only', 'db', '-F', 'json');
    expect(bag.code, bag.stderr).toBe(0);
  });
});
