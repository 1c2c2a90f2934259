/**
 * Issue 47 with real chef-client 18: nodes converge a pushed revision in dev and report their runs; qa has
 * automatic promotion on with a gate of 2 nodes and an HTTP check. While the check answers 500 the automation
 * waits (inconclusive); once it answers 200, the rollout workers (two of them, their interval short by
 * environment) move qa by themselves, once, through the guard. A person's rollback in qa holds the automation
 * until someone who manages qa resumes it. Waits are on events (the database) with deadlines, never sleeps.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '@/lib/db/client';
import { setStageRolloutRule } from '@/lib/services/rollout';
import { autoPromotePass } from '@/lib/services/auto-promote';
import { rollback } from '@/lib/services/rollback';
import { startRolloutWorker, type RunningRolloutWorker } from '@/lib/services/rollout-worker';
import { POST as resume } from '@/app/api/v1/policy_groups/[group]/rollout/resume/route';
import { startChefHarness, type ChefHarness } from '../chef-harness';
import { accessFor, call, tokenFor } from '../helpers';
import { projectScript, run, writeConfig, writeClientRb } from './tools';

const POLICY = 'auto-app';
let chef: ChefHarness;
let dir: string;
let config: string;
let status = 500;
let checks: http.Server;
let checkUrl = '';
const workers: RunningRolloutWorker[] = [];

function write(rel: string, text: string) {
  const p = path.join(dir, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
}

const tool = (cmd: string, args: string[], cwd = dir) => run(cmd, args, { cwd, env: { HOME: dir }, timeoutMs: 240_000 });

async function converge(nodeName: string) {
  const home = path.join(dir, nodeName);
  fs.mkdirSync(home, { recursive: true });
  writeClientRb(home, { serverUrl: chef.orgUrl, org: chef.org, nodeName, validatorKey: path.join(dir, 'validator.pem'), group: 'dev', policy: POLICY });
  return tool('chef-client', ['-c', path.join(home, 'client.rb'), '--once', '--no-fork'], home);
}

const revisionIn = async (stage: string) => (await db().groupPolicy.findFirst({ where: { group: { name: stage }, policy: { name: POLICY } }, select: { revision: { select: { revisionId: true } } } }))?.revision.revisionId ?? null;

/** Waits until `probe` answers truthy (the workers act on their own), failing with `what` after the deadline. */
async function until<T>(what: string, probe: () => Promise<T>, deadlineMs = 60_000): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100)); // polling the database for the workers' effect, not a timed assertion
  }
}

const waitingFor = async () => JSON.parse((await db().stageRolloutRule.findUniqueOrThrow({ where: { groupName: 'qa' }, select: { autoWaiting: true } })).autoWaiting)[POLICY]?.waiting_for as string | undefined;

beforeAll(async () => {
  chef = await startChefHarness();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chef-auto-'));
  write('cookbooks/auto/metadata.rb', "name 'auto'\nversion '1.0.0'\n");
  write('cookbooks/auto/recipes/default.rb', "log 'auto v1'\n");
  write('Policyfile.rb', `name '${POLICY}'\nrun_list 'auto::default'\ncookbook 'auto', path: 'cookbooks/auto'\n`);
  const key = path.join(dir, 'dev.pem');
  expect((await projectScript('chef-user-key.ts', ['dev', '--out', key])).code).toBe(0);
  config = writeConfig(path.join(dir, '.chef'), 'config.rb', { serverUrl: chef.orgUrl, nodeName: 'dev', keyFile: key });
  expect((await projectScript('chef-validator.ts', ['--out', path.join(dir, 'validator.pem')])).code).toBe(0);
  checks = http.createServer((_req, res) => void res.writeHead(status).end(String(status)));
  await new Promise<void>((r) => checks.listen(0, '127.0.0.1', () => r()));
  checkUrl = `http://127.0.0.1:${(checks.address() as AddressInfo).port}/ready`;
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await new Promise((r) => checks?.close(r));
  await chef?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('qa promotes itself when real nodes converged in dev and its check passes', () => {
  let v1: string;
  let v2: string;

  it('qa runs v1 (pushed by a person before automation is on); dev gets v2 and two nodes converge it', async () => {
    expect((await tool('chef', ['install'])).code).toBe(0);
    v1 = JSON.parse(fs.readFileSync(path.join(dir, 'Policyfile.lock.json'), 'utf8')).revision_id;
    expect((await tool('chef', ['push', 'qa', '-c', config])).code).toBe(0);
    const admin = await accessFor('admin@example.com');
    await setStageRolloutRule(admin, {
      stage: 'qa',
      gate: { enabled: true, min_success_pct: 100, min_nodes: 2, max_failure_pct: 0, soak_minutes: 0, checks: [{ name: 'ready', kind: 'http', url: checkUrl, expect_status: [200], timeout_ms: 2000, allow_private_targets: true }] },
      auto_promote: { enabled: true, soak_minutes: 0 },
    });
    // Two rollout workers, as two instances would run them; their interval comes from the environment.
    process.env.ROLLOUT_WORKER_INTERVAL_MS = '150';
    workers.push(startRolloutWorker(), startRolloutWorker());

    write('cookbooks/auto/metadata.rb', "name 'auto'\nversion '1.1.0'\n");
    write('cookbooks/auto/recipes/default.rb', "log 'auto v2'\n");
    fs.rmSync(path.join(dir, 'Policyfile.lock.json'));
    expect((await tool('chef', ['install'])).code).toBe(0);
    const push = await tool('chef', ['push', 'dev', '-c', config]);
    expect(push.code, push.stdout + push.stderr).toBe(0);
    v2 = JSON.parse(fs.readFileSync(path.join(dir, 'Policyfile.lock.json'), 'utf8')).revision_id;
    expect(v2).not.toBe(v1);
    for (const node of ['auto-1', 'auto-2']) {
      const r = await converge(node);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toContain(`revision '${v2}'`);
    }
  });

  it('the check answering 500 is inconclusive: qa waits, and says why', async () => {
    const why = await until('the automation to wait on the check', async () => ((await waitingFor())?.includes("check 'ready' is inconclusive: HTTP 500") ? await waitingFor() : null));
    expect(why).toMatch(/^the gate: check 'ready' is inconclusive: HTTP 500/);
    expect(await revisionIn('qa')).toBe(v1);
  });

  it('once the check answers 200, qa moves to v2 by itself, once, as the system, with the evidence', async () => {
    status = 200;
    await until('qa to be promoted', async () => (await revisionIn('qa')) === v2);
    // More passes change nothing.
    expect((await autoPromotePass()).promoted).toEqual([]);
    const moves = await db().pointerHistory.findMany({ where: { groupName: 'qa', policyName: POLICY, toRevisionId: v2 } });
    expect(moves).toHaveLength(1);
    expect(moves[0]).toMatchObject({ kind: 'promote', actorEmail: 'system (automatic promotion)' });
    expect(moves[0].reason).toMatch(/^auto-promoted: 2 of 2 node\(s\) in dev converged revision .* checks passed \(ready = 200\)/);
  });

  it("a person's rollback in qa holds the automation until someone who manages qa resumes it", async () => {
    await rollback(await accessFor('admin@example.com'), { policy: POLICY, group: 'qa', toRevisionId: v1, expectedRevisionId: v2, reason: 'qa smoke test found a problem' });
    expect(await db().stageRolloutRule.findUniqueOrThrow({ where: { groupName: 'qa' }, select: { heldByEmail: true, heldSource: true } })).toEqual({ heldByEmail: 'admin@example.com', heldSource: 'rollback' });
    // A pass while held does nothing (a deterministic pass, not a wait).
    expect((await autoPromotePass()).promoted).toEqual([]);
    expect(await revisionIn('qa')).toBe(v1);
    const r = await call(resume, 'POST', { token: await tokenFor('admin@example.com'), params: { group: 'qa' }, body: { reason: 'fixed' } });
    expect(r.status, r.text).toBe(200);
    await until('qa to be promoted again after the resume', async () => (await revisionIn('qa')) === v2);
    expect(await db().pointerHistory.count({ where: { groupName: 'qa', policyName: POLICY, toRevisionId: v2, actorEmail: 'system (automatic promotion)' } })).toBe(2);
  });
});
