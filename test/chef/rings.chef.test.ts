/**
 * Issue 30 with real chef-client 18: six nodes in one stage, a 50% ring of a
 * new revision: the three nodes in the ring converge the new revision, the
 * three outside the old one (the revision each node saved, and the file its
 * recipe writes); widened to 100%, all six converge the new one; the API shows
 * each node's revision. The nodes run concurrently.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '@/lib/db/client';
import { inRing, ringSeed } from '@/lib/domain/rings';
const { POST: startRing } = apiRoutes('/api/v1/rings');
const { GET: getRing } = apiRoutes('/api/v1/rings/[id]');
const { POST: widen } = apiRoutes('/api/v1/rings/[id]/widen');
import { startChefHarness, type ChefHarness } from '../chef-harness';
import { call, tokenFor } from '../helpers';
import { projectScript, run, writeConfig, writeClientRb } from './tools';
import { apiRoutes } from '@/test/helpers';

const STAGE = 'dev';
const POLICY = 'ring-app';

let chef: ChefHarness;
let dir: string;
let config: string;

function write(rel: string, text: string) {
  const p = path.join(dir, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
}

const recipe = (v: string) => `file ::File.join(node['ring']['dir'], node.name) do\n  content '${v}'\nend\n`;

/** Six node names of which exactly three are in the stage's 50% ring. */
const seed = ringSeed(STAGE, POLICY);
const candidates = Array.from({ length: 64 }, (_, i) => `ring-node-${i}`);
const IN = candidates.filter((n) => inRing({ seed, percent: 50 }, n)).slice(0, 3);
const OUT = candidates.filter((n) => !inRing({ seed, percent: 50 }, n)).slice(0, 3);
const NODES = [...IN, ...OUT];

beforeAll(async () => {
  chef = await startChefHarness();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chef-rings-'));
  write('cookbooks/ring/metadata.rb', "name 'ring'\nversion '1.0.0'\n");
  write('cookbooks/ring/recipes/default.rb', recipe('v1'));
  write('Policyfile.rb', `name '${POLICY}'\nrun_list 'ring::default'\ncookbook 'ring', path: 'cookbooks/ring'\ndefault['ring']['dir'] = ${JSON.stringify(path.join(dir, 'out'))}\n`);
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

async function converge(nodeName: string) {
  const home = path.join(dir, nodeName);
  writeClientRb(home, { serverUrl: chef.orgUrl, org: chef.org, nodeName, validatorKey: path.join(dir, 'validator.pem'), group: STAGE, policy: POLICY });
  const r = await tool('chef-client', ['-c', path.join(home, 'client.rb'), '--once', '--no-fork'], home);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return r;
}

/** Every node converges at once; answers what each wrote and the revision it saved. */
async function convergeAll() {
  await Promise.all(NODES.map(converge));
  const saved = await db().node.findMany({ where: { name: { in: NODES } }, select: { name: true, revisionApplied: true } });
  return Object.fromEntries(NODES.map((n) => [n, { file: fs.readFileSync(path.join(dir, 'out', n), 'utf8'), revision: saved.find((s) => s.name === n)?.revisionApplied }]));
}

describe('a 50% ring served to real chef-client nodes', () => {
  let v1: string;
  let v2: string;
  let ringId: string;
  let admin: string;

  it('pushes v1 into the stage and v2 elsewhere (the stage keeps v1)', async () => {
    expect(IN).toHaveLength(3);
    expect(OUT).toHaveLength(3);
    expect((await tool('chef', ['install'])).code).toBe(0);
    const push = await tool('chef', ['push', STAGE, '-c', config]);
    expect(push.code, push.stdout + push.stderr).toBe(0);
    v1 = JSON.parse(fs.readFileSync(path.join(dir, 'Policyfile.lock.json'), 'utf8')).revision_id;
    write('cookbooks/ring/metadata.rb', "name 'ring'\nversion '1.1.0'\n");
    write('cookbooks/ring/recipes/default.rb', recipe('v2'));
    fs.rmSync(path.join(dir, 'Policyfile.lock.json'));
    expect((await tool('chef', ['install'])).code).toBe(0);
    const push2 = await tool('chef', ['push', 'qa', '-c', config]);
    expect(push2.code, push2.stdout + push2.stderr).toBe(0);
    v2 = JSON.parse(fs.readFileSync(path.join(dir, 'Policyfile.lock.json'), 'utf8')).revision_id;
    expect(v2).not.toBe(v1);
  });

  it('in a 50% ring, the three ring nodes converge v2 and the three others v1', async () => {
    admin = await tokenFor('admin@example.com');
    const res = await call(startRing, 'POST', { token: admin, body: { stage: STAGE, policy: POLICY, revision_id: v2, steps: [50, 100] } });
    expect(res.status, res.text).toBe(201);
    ringId = res.json.ring.id;
    const got = await convergeAll();
    for (const n of IN) expect(got[n], n).toEqual({ file: 'v2', revision: v2 });
    for (const n of OUT) expect(got[n], n).toEqual({ file: 'v1', revision: v1 });
    // The API shows each node's revision and what it is served.
    const ring = (await call(getRing, 'GET', { token: admin, params: { id: ringId } })).json.ring;
    const nodes = ring.step_nodes.flatMap((s: { nodes: unknown[] }) => s.nodes) as { name: string; revision_id: string; serves: string }[];
    expect(Object.fromEntries(nodes.map((n) => [n.name, [n.revision_id, n.serves]]))).toEqual(Object.fromEntries([...IN.map((n) => [n, [v2, 'ring']]), ...OUT.map((n) => [n, [v1, 'stage']])]));
    expect(ring.health).toMatchObject({ ring_nodes: 3 });
  });

  it('widened to 100%, all six converge v2 and v2 is the stage’s revision', async () => {
    const res = await call(widen, 'POST', { token: admin, params: { id: ringId } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.ring.status).toBe('completed');
    const got = await convergeAll();
    for (const n of NODES) expect(got[n], n).toEqual({ file: 'v2', revision: v2 });
    const pointer = await db().groupPolicy.findFirstOrThrow({ where: { group: { name: STAGE }, policy: { name: POLICY } }, select: { revision: { select: { revisionId: true } } } });
    expect(pointer.revision.revisionId).toBe(v2);
  });
});
