/**
 * Issue 47 with the real tools and two console instances on one PostgreSQL database: the production server started
 * as the README starts it (`npm run serve`, test/deployed/deployment.ts: a throwaway PostgreSQL server, two
 * instances, the second serving HTTPS), each running its own rollout worker (ROLLOUT_WORKER_INTERVAL_MS short by
 * environment). Real chef-client 18 nodes converge a pushed revision in dev (one through each instance); qa has
 * automatic promotion on with a gate of 2 nodes and an HTTP check. While the check answers 500 the automation waits
 * (inconclusive, and says so); once it answers 200, qa moves by itself, exactly once across the two instances (one
 * history row, one audit row, read from the database). A person's rollback in qa holds the automation until someone
 * who manages qa resumes it; then it moves once more. One cookbook, two nodes, converged once. Waits poll the
 * database or the API with deadlines, never sleeps. Needs the production build (scripts/test-chef.ts makes sure of it).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '@/lib/db/client';
import { autoPromotePass } from '@/lib/services/runs';
import { startDeployment, type Deployment, type Instance } from '../deployed/deployment';
import { request, type Answer } from '../deployed/http';
import { run, writeClientRb, writeConfig } from './tools';

const POLICY = 'auto-app';
const SYSTEM = 'system (automatic promotion)';
let d: Deployment;
let dir: string;
let token: string;
let configs: string[];
let trust: string[];
let status = 500;
let checks: http.Server;
let checkUrl = '';

const [A, B] = [() => d.instances[0], () => d.instances[1]];
const api = (inst: Instance, p: string, o: { method?: string; body?: unknown } = {}): Promise<Answer> => request(`${inst.url}/api/v1${p}`, { method: o.method, body: o.body, token, ca: d.ca });

function write(rel: string, text: string) {
  const p = path.join(dir, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
}

const tool = (cmd: string, args: string[], cwd = dir) => run(cmd, args, { cwd, env: { HOME: dir }, timeoutMs: 240_000 });

async function converge(inst: Instance, nodeName: string) {
  const home = path.join(dir, nodeName);
  fs.mkdirSync(home, { recursive: true });
  writeClientRb(home, { serverUrl: `${inst.url}/organizations/console`, org: 'console', nodeName, validatorKey: path.join(dir, 'validator.pem'), group: 'dev', policy: POLICY, extra: inst.https ? trust : [] });
  return tool('chef-client', ['-c', path.join(home, 'client.rb'), '--once', '--no-fork'], home);
}

/** qa's revision of the policy, from the database both instances share. */
const revisionIn = async (stage: string) => (await db().groupPolicy.findFirst({ where: { group: { name: stage }, policy: { name: POLICY } }, select: { revision: { select: { revisionId: true } } } }))?.revision.revisionId ?? null;

/** Waits until `probe` answers truthy (the instances' workers act on their own), failing with `what` after the deadline (a hang guard). */
async function until<T>(what: string, probe: () => Promise<T>, deadlineMs = 120_000): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200)); // polling for the workers' effect, not a timed assertion
  }
}

/** The automatic promotions into qa recorded so far: history rows and audit rows (what "exactly once" counts). */
async function automaticMoves(to: string) {
  const history = await db().pointerHistory.findMany({ where: { groupName: 'qa', policyName: POLICY, toRevisionId: to, actorEmail: SYSTEM }, orderBy: { createdAt: 'asc' } });
  const audits = await db().auditEvent.findMany({ where: { action: 'pointer.promote', target: `qa/${POLICY}`, actorEmail: SYSTEM }, orderBy: { createdAt: 'asc' } });
  return { history, audits };
}

beforeAll(async () => {
  d = await startDeployment('postgres');
  // The test reads (and once runs a pass on) the database the two instances share.
  process.env.DATABASE_URL = d.env.DATABASE_URL;
  const t = await d.npm('token:create', ['admin@example.com', 'auto-promote-test']);
  expect(t.code, t.stdout + t.stderr).toBe(0);
  token = t.stdout.trim().split('\n').pop()!;
  dir = path.join(d.dir, 'chef');
  fs.mkdirSync(path.join(dir, 'trusted'), { recursive: true });
  fs.copyFileSync(d.certFile!, path.join(dir, 'trusted', 'console.crt'));
  trust = ['ssl_verify_mode :verify_peer', `trusted_certs_dir ${JSON.stringify(path.join(dir, 'trusted'))}`];
  const key = await d.npm('chef:user-key', ['admin', '--out', path.join(dir, 'admin.pem')]);
  expect(key.code, key.stderr).toBe(0);
  const validator = await d.npm('chef:validator', ['--out', path.join(dir, 'validator.pem')]);
  expect(validator.code, validator.stderr).toBe(0);
  configs = d.instances.map((inst) => writeConfig(path.join(dir, '.chef'), `${inst.name}.rb`, { serverUrl: `${inst.url}/organizations/console`, nodeName: 'admin', keyFile: path.join(dir, 'admin.pem'), extra: inst.https ? trust : [] }));
  write('cookbooks/auto/metadata.rb', "name 'auto'\nversion '1.0.0'\n");
  write('cookbooks/auto/recipes/default.rb', "log 'auto v1'\n");
  write('Policyfile.rb', `name '${POLICY}'\nrun_list 'auto::default'\ncookbook 'auto', path: 'cookbooks/auto'\n`);
  checks = http.createServer((_req, res) => void res.writeHead(status).end(String(status)));
  await new Promise<void>((r) => checks.listen(0, '127.0.0.1', () => r()));
  checkUrl = `http://127.0.0.1:${(checks.address() as AddressInfo).port}/ready`;
}, 600_000);

afterAll(async () => {
  await new Promise((r) => (checks ? checks.close(r) : r(undefined)));
  await d?.stop();
}, 120_000);

describe('two instances on PostgreSQL: qa promotes itself when real nodes converged in dev and its check passes', () => {
  let v1: string;
  let v2: string;

  it('qa runs v1 (pushed by a person); automation is switched on through the API; dev gets v2 and two nodes converge it, one through each instance', async () => {
    expect((await tool('chef', ['install'])).code).toBe(0);
    v1 = JSON.parse(fs.readFileSync(path.join(dir, 'Policyfile.lock.json'), 'utf8')).revision_id;
    const pushQa = await tool('chef', ['push', 'qa', '-c', configs[1]]);
    expect(pushQa.code, pushQa.stdout + pushQa.stderr).toBe(0);
    const rule = await api(B(), '/policy_groups/qa/rollout', {
      method: 'PUT',
      body: {
        gate: { enabled: true, min_success_pct: 100, min_nodes: 2, max_failure_pct: 0, soak_minutes: 0, checks: [{ name: 'ready', kind: 'http', url: checkUrl, expect_status: [200], timeout_ms: 2000, allow_private_targets: true }] },
        auto_promote: { enabled: true, soak_minutes: 0 },
      },
    });
    expect(rule.status, rule.text).toBe(200);
    expect(rule.json.auto_promote).toMatchObject({ enabled: true });

    write('cookbooks/auto/metadata.rb', "name 'auto'\nversion '1.1.0'\n");
    write('cookbooks/auto/recipes/default.rb', "log 'auto v2'\n");
    fs.rmSync(path.join(dir, 'Policyfile.lock.json'));
    expect((await tool('chef', ['install'])).code).toBe(0);
    const push = await tool('chef', ['push', 'dev', '-c', configs[0]]);
    expect(push.code, push.stdout + push.stderr).toBe(0);
    v2 = JSON.parse(fs.readFileSync(path.join(dir, 'Policyfile.lock.json'), 'utf8')).revision_id;
    expect(v2).not.toBe(v1);
    for (const [i, inst] of d.instances.entries()) {
      const r = await converge(inst, `auto-${i + 1}`);
      expect(r.code, `${inst.name}: ${r.stdout.slice(-3000)}${r.stderr.slice(-2000)}`).toBe(0);
      expect(r.stdout).toContain(`revision '${v2}'`);
    }
  });

  it('the check answering 500 is inconclusive: qa waits, and both the API and the recorded evaluations say why', async () => {
    const waiting = await until('the automation to wait on the check', async () => {
      const r = await api(A(), '/policy_groups/qa/rollout');
      expect(r.status, r.text).toBe(200);
      const w = (r.json.automation?.waiting ?? []).find((x: { policy: string; waiting_for: string }) => x.policy === POLICY && x.waiting_for.includes("check 'ready' is inconclusive: HTTP 500"));
      return r.json.automation?.state === 'waiting' && w;
    });
    expect(waiting).toMatchObject({ policy: POLICY, revision_id: v2 });
    // The pass that wrote this answer decided not to move: qa still runs v1.
    expect(await revisionIn('qa')).toBe(v1);
    expect(await db().checkEvaluation.count({ where: { groupName: 'qa', policyName: POLICY, revisionId: v2, checkName: 'ready', result: 'inconclusive' } })).toBeGreaterThan(0);
  });

  it('once the check answers 200, qa moves to v2 by itself, exactly once across the two instances, as the system, with the evidence', async () => {
    status = 200;
    await until('qa to be promoted', async () => (await revisionIn('qa')) === v2);
    const { history, audits } = await automaticMoves(v2);
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ kind: 'promote', fromRevisionId: v1 });
    expect(history[0].reason).toMatch(/^auto-promoted: 2 of 2 node\(s\) in dev converged revision .* checks passed \(ready = 200\)/);
    expect(audits).toHaveLength(1);
    expect(JSON.parse(audits[0].after!)).toMatchObject({ revision_id: v2, automatic_promotion: { from_stage: 'dev', converged: 2, checks: [{ name: 'ready', result: 'pass', value: 200 }] } });
    expect(await db().automationEvent.count({ where: { groupName: 'qa', policyName: POLICY, kind: 'auto_promoted' } })).toBe(1);
  });

  it("a person's rollback in qa holds the automation (the other instance says so) until someone who manages qa resumes it; then it moves once more", async () => {
    const back = await api(A(), `/policy_groups/qa/policies/${POLICY}/rollback`, { method: 'POST', body: { to_revision_id: v1, expected_revision_id: v2, reason: 'qa smoke test found a problem' } });
    expect(back.status, back.text).toBe(200);
    const rule = await api(B(), '/policy_groups/qa/rollout');
    expect(rule.json.automation).toMatchObject({ state: 'held', held: { by: 'admin@example.com', source: 'rollback' } });
    // A pass while held does nothing (a deterministic pass on the shared database, the instances' own code).
    expect((await autoPromotePass()).promoted).toEqual([]);
    expect(await revisionIn('qa')).toBe(v1);
    const resumed = await api(B(), '/policy_groups/qa/rollout/resume', { method: 'POST', body: { reason: 'fixed' } });
    expect(resumed.status, resumed.text).toBe(200);
    expect(resumed.json.automation.state).not.toBe('held');
    await until('qa to be promoted again after the resume', async () => (await revisionIn('qa')) === v2);
    // Over the whole test (every pass of both workers so far): one automatic promotion per state of qa.
    const { history, audits } = await automaticMoves(v2);
    expect(history).toHaveLength(2);
    expect(audits).toHaveLength(2);
    const kinds = (await db().automationEvent.findMany({ where: { groupName: 'qa' }, orderBy: { createdAt: 'asc' }, select: { kind: true } })).map((e) => e.kind);
    expect(kinds.filter((k) => k !== 'soaked')).toEqual(['auto_promoted', 'held', 'resumed', 'auto_promoted']);
    const timeline = await api(A(), `/policy_groups/qa/timeline?policy=${POLICY}`);
    expect(timeline.status, timeline.text).toBe(200);
    expect(timeline.json.entries.map((e: { kind: string }) => e.kind)).toEqual(expect.arrayContaining(['auto-promoted', 'held', 'resumed', 'rolled back']));
  });

  it("no instance answered a 5xx or logged a failed worker pass (the race's loser rolls back quietly)", () => {
    const errors = d
      .logs()
      .split('\n')
      .filter((l) => /"status":5\d\d|level":"error"|TypeError|ReferenceError|pass failed/.test(l));
    expect(errors).toEqual([]);
  });
});
