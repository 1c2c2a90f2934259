/**
 * Issue 47: automatic promotion through the guard, exactly once; holds and resume; outside checks (an HTTP check
 * and a Prometheus stand-in answering the `/api/v1/query` JSON shape); bad input; the timeline. Runs on SQLite and
 * on PostgreSQL, where two processes (test/fixtures/race-worker.ts) race the worker's pass.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '@/lib/db/client';
import { databaseProvider } from '@/lib/db/url';
import { ingestRunMessage, autoPromotePass, stageTimeline } from '@/lib/services/runs';
import { rollback, promotePolicy } from '@/lib/services/promotion';
import { createWebhook } from '@/lib/services/webhooks';
import { addFreezeWindow } from '@/lib/services/guards';
import { setStageGrant } from '@/lib/services/stages';
import { runCheck } from '@/lib/services/funnel';
const { GET: getRule, PUT: putRule } = apiRoutes('/api/v1/policy_groups/[group]/rollout');
const { POST: resume } = apiRoutes('/api/v1/policy_groups/[group]/rollout/resume');
const { GET: timeline } = apiRoutes('/api/v1/policy_groups/[group]/timeline');
const { GET: gate } = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]/gate');
import { apiRoutes, accessFor, call, placeNode, seed, snapshot, tokenFor } from '../helpers';
import { runConvergeMessage } from '../run-message';

const ROOT = path.resolve(import.meta.dirname, '../..');
const onPostgres = databaseProvider() === 'postgresql';

let seq = 0;
/** A successful run_converge as chef-client sends it, for a node, stage, policy and revision, ending now. */
const runMessage = (node: string, stage: string, policy: string, revision: string) => runConvergeMessage({ runId: `00000000-0000-4000-9000-${String(++seq).padStart(12, '0')}`, node, stage, policy, revision });
const converge = async (node: string, stage: string, policy: string, revision: string) => {
  await placeNode(node, stage, policy);
  await ingestRunMessage({ kind: 'token' }, runMessage(node, stage, policy, revision));
};

async function pointer(stage: string, policy: string): Promise<string | null> {
  const p = await db().groupPolicy.findFirst({ where: { group: { name: stage }, policy: { name: policy } }, select: { revision: { select: { revisionId: true } } } });
  return p?.revision.revisionId ?? null;
}

/** A policy whose dev and qa revisions differ. */
async function pickPolicy() {
  const rows = await db().groupPolicy.findMany({ where: { group: { name: { in: ['dev', 'qa'] } } }, select: { group: { select: { name: true } }, policy: { select: { name: true } }, revision: { select: { revisionId: true } } } });
  const by = new Map<string, Record<string, string>>();
  for (const r of rows) (by.get(r.policy.name) ?? by.set(r.policy.name, {}).get(r.policy.name)!)[r.group.name] = r.revision.revisionId;
  for (const [name, s] of [...by.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) if (s.dev && s.qa && s.dev !== s.qa) return { name, dev: s.dev, qa: s.qa };
  throw new Error('the demo has no policy whose dev and qa differ');
}

/** Marks a revision bad as the bad-revision service would (the guard reads the row). */
async function markBad(policy: string, revisionId: string) {
  const rev = await db().policyRevision.findFirstOrThrow({ where: { revisionId, policy: { name: policy } }, select: { id: true, policyId: true } });
  await db().badRevision.create({ data: { policyId: rev.policyId, policyName: policy, revisionId, revisionPk: rev.id, reason: 'broken', markedByEmail: 'admin@example.com' } });
}

/** The outbox rows of an event (one per subscription; the test has one subscription for every event). */
const outbox = (event: string) => db().webhookDelivery.findMany({ where: { event }, orderBy: { id: 'asc' }, select: { payload: true } });

// ------------------------------------------------------------------ the stand-ins
let health = 500;
let prom: unknown = { status: 'success', data: { resultType: 'vector', result: [] } };
let server: http.Server;
let base = '';
const hanging: http.ServerResponse[] = [];

beforeAll(async () => {
  await seed();
  server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.pathname === '/health') return void res.writeHead(health).end('ok');
    if (u.pathname === '/hang') return void hanging.push(res); // never answers
    if (u.pathname === '/prom/api/v1/query') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(typeof prom === 'function' ? (prom as (q: string) => unknown)(u.searchParams.get('query') ?? '') : prom));
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The demo's nodes last checked in days ago: missing, so the runs below are what the gate counts.
  await db().node.updateMany({ data: { lastCheckIn: new Date(Date.now() - 3 * 86_400_000) } });
  const admin = await accessFor('admin@example.com');
  await createWebhook(admin, { name: 'all', url: 'https://hooks.example.com/x', events: ['promotion.automatic', 'automation.held', 'automation.resumed', 'check.failed'] });
});
afterAll(async () => {
  for (const r of hanging) r.destroy();
  await new Promise((r) => server.close(r));
});

describe('bad input to the rollout rule', () => {
  it('refuses soak_minutes out of range, auto_promote without a gate, a check URL from a non-administrator, a private target without the allowance; nothing stored', async () => {
    const admin = await tokenFor('admin@example.com');
    // A manager of qa who is not an administrator.
    await setStageGrant(await accessFor('admin@example.com'), { stage: 'qa', subject: { type: 'user', email: 'dev@example.com' }, level: 'manage' });
    const manager = await tokenFor('dev@example.com');
    const before = snapshot({ except: ['ApiToken'] });
    const soak = await call(putRule, 'PUT', { token: admin, params: { group: 'qa' }, body: { gate: { enabled: true }, auto_promote: { enabled: true, soak_minutes: 50_000 } } });
    expect(soak.status).toBe(400);
    expect(soak.json.errors[0]).toEqual({ path: '/auto_promote/soak_minutes', message: 'soak_minutes must be a whole number from 0 to 43200' });
    const negative = await call(putRule, 'PUT', { token: admin, params: { group: 'qa' }, body: { gate: { enabled: true }, auto_promote: { enabled: true, soak_minutes: -1 } } });
    expect(negative.json.errors[0].path).toBe('/auto_promote/soak_minutes');
    const noGate = await call(putRule, 'PUT', { token: admin, params: { group: 'qa' }, body: { auto_promote: { enabled: true } } });
    expect(noGate.status).toBe(400);
    expect(noGate.json.errors[0].path).toBe('/auto_promote/enabled');
    const first = await call(putRule, 'PUT', { token: admin, params: { group: 'dev' }, body: { gate: { enabled: true }, auto_promote: { enabled: true } } });
    expect(first.json.errors[0]).toEqual({ path: '/auto_promote/enabled', message: 'the first stage has no stage before it to promote from' });
    const byManager = await call(putRule, 'PUT', { token: manager, params: { group: 'qa' }, body: { gate: { enabled: true, checks: [{ name: 'smoke', kind: 'http', url: 'https://status.example.com/ok' }] } } });
    expect(byManager.status, byManager.text).toBe(403);
    expect(byManager.text).toMatch(/only administrators may/);
    const privateTarget = await call(putRule, 'PUT', { token: admin, params: { group: 'qa' }, body: { gate: { enabled: true, checks: [{ name: 'smoke', kind: 'http', url: `${base}/health` }] } } });
    expect(privateTarget.status).toBe(400);
    expect(privateTarget.json.errors[0]).toEqual({ path: '/gate/checks/0/url', message: 'url must not point at a loopback, link-local, private or unspecified address (set gate.checks[0].allow_private_targets to allow it explicitly)' });
    const noBounds = await call(putRule, 'PUT', { token: admin, params: { group: 'qa' }, body: { gate: { enabled: true, checks: [{ name: 'err', kind: 'prometheus', url: 'https://prom.example.com', query: 'up' }] } } });
    expect(noBounds.json.errors[0].path).toBe('/gate/checks/0/min');
    const badTimeout = await call(putRule, 'PUT', { token: admin, params: { group: 'qa' }, body: { gate: { enabled: true, checks: [{ name: 'smoke', kind: 'http', url: 'https://status.example.com/ok', timeout_ms: 600_000 }] } } });
    expect(badTimeout.status).toBe(400);
    expect(badTimeout.json.errors[0].path).toBe('/gate/checks/0/timeout_ms');
    expect(snapshot({ except: ['ApiToken'] })).toBe(before);
  });
});

describe('outside checks', () => {
  it('a Prometheus check reads the query answer: thresholds both ways, no sample, a matrix or a string are inconclusive', async () => {
    const c = { name: 'errors', kind: 'prometheus' as const, url: `${base}/prom`, query: 'rate(errors[5m])', min: 0.1, max: 0.5, allow_private_targets: true };
    const vector = (v: string) => ({ status: 'success', data: { resultType: 'vector', result: [{ metric: {}, value: [1733230000, v] }] } });
    let seen = '';
    prom = (q: string) => ((seen = q), vector('0.2'));
    expect(await runCheck(c)).toMatchObject({ result: 'pass', value: 0.2 });
    expect(seen).toBe('rate(errors[5m])');
    prom = vector('0.7');
    expect(await runCheck(c)).toMatchObject({ result: 'fail', value: 0.7, detail: '0.7 above the maximum 0.5' });
    prom = vector('0.05');
    expect(await runCheck(c)).toMatchObject({ result: 'fail', value: 0.05, detail: '0.05 below the minimum 0.1' });
    prom = { status: 'success', data: { resultType: 'vector', result: [] } };
    expect(await runCheck(c)).toMatchObject({ result: 'inconclusive', value: null, detail: 'no sample' });
    prom = { status: 'success', data: { resultType: 'matrix', result: [{ metric: {}, values: [[1, '0.2']] }] } };
    expect(await runCheck(c)).toMatchObject({ result: 'inconclusive', detail: 'the query returned a matrix, not a vector or a scalar' });
    prom = { status: 'success', data: { resultType: 'string', result: [1, 'hello'] } };
    expect(await runCheck(c)).toMatchObject({ result: 'inconclusive', detail: 'the query returned a string, not a vector or a scalar' });
    prom = { status: 'success', data: { resultType: 'scalar', result: [1, '0.3'] } };
    expect(await runCheck(c)).toMatchObject({ result: 'pass', value: 0.3 });
  });

  it('a check that hangs ends at its timeout, inconclusive; a 5xx is inconclusive, another status fails', async () => {
    const hang = await runCheck({ name: 'hang', kind: 'http', url: `${base}/hang`, timeout_ms: 200, allow_private_targets: true });
    expect(hang).toMatchObject({ result: 'inconclusive', detail: 'timed out after 200 ms' });
    health = 503;
    expect(await runCheck({ name: 'smoke', kind: 'http', url: `${base}/health`, allow_private_targets: true })).toMatchObject({ result: 'inconclusive', value: 503 });
    expect(await runCheck({ name: 'smoke', kind: 'http', url: `${base}/health`, expect_status: [200], allow_private_targets: true })).toMatchObject({ result: 'inconclusive' });
    health = 404;
    expect(await runCheck({ name: 'smoke', kind: 'http', url: `${base}/health`, allow_private_targets: true })).toMatchObject({ result: 'fail', detail: 'HTTP 404, expected 2xx' });
    // Without the allowance the target is refused on delivery too (a name resolving to a private address).
    expect(await runCheck({ name: 'smoke', kind: 'http', url: `http://localhost:${new URL(base).port}/health` })).toMatchObject({ result: 'fail' });
  });
});

describe('automatic promotion into qa', () => {
  let p: Awaited<ReturnType<typeof pickPolicy>>;
  beforeAll(async () => {
    p = await pickPolicy();
    const admin = await tokenFor('admin@example.com');
    health = 500;
    const r = await call(putRule, 'PUT', {
      token: admin,
      params: { group: 'qa' },
      body: {
        gate: { enabled: true, min_success_pct: 100, min_nodes: 2, max_failure_pct: 0, soak_minutes: 0, checks: [{ name: 'smoke', kind: 'http', url: `${base}/health`, expect_status: [200], timeout_ms: 2000, allow_private_targets: true }] },
        auto_promote: { enabled: true, soak_minutes: 0 },
      },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ auto_promote: { enabled: true, soak_minutes: 0 }, automation: { state: 'on', held: null }, gate: { checks: [{ name: 'smoke', kind: 'http', allow_private_targets: true }] } });
  });

  it('waits for the nodes, then holds on an inconclusive check (HTTP 500), then promotes once the check passes: once, as the system, with the evidence', async () => {
    expect((await autoPromotePass()).promoted).toEqual([]);
    let rule = await call(getRule, 'GET', { token: await tokenFor('viewer@example.com'), params: { group: 'qa' } });
    expect(rule.json.automation.state).toBe('waiting');
    expect(rule.json.automation.waiting.find((w: { policy: string }) => w.policy === p.name).waiting_for).toMatch(/^the gate: 0 of at least 2 node\(s\) in dev converged/);

    await converge('ap-dev-1', 'dev', p.name, p.dev);
    await converge('ap-dev-2', 'dev', p.name, p.dev);
    expect((await autoPromotePass()).promoted).toEqual([]);
    expect(await pointer('qa', p.name)).toBe(p.qa);
    rule = await call(getRule, 'GET', { token: await tokenFor('viewer@example.com'), params: { group: 'qa' } });
    expect(rule.json.automation.waiting.find((w: { policy: string }) => w.policy === p.name).waiting_for).toMatch(/check 'smoke' is inconclusive: HTTP 500/);
    const failed = await outbox('check.failed');
    expect(failed).toHaveLength(1);
    expect(JSON.parse(failed[0].payload).data).toMatchObject({ stage: 'qa', policy: p.name, revision_id: p.dev, check: { name: 'smoke', result: 'inconclusive', value: 500 } });

    // The promote dialog's answer: the gate with each check's result, value and duration (evaluated now).
    const answer = await call(gate, 'GET', { token: await tokenFor('dev@example.com'), params: { group: 'qa', name: p.name }, query: 'from=dev' });
    expect(answer.json.gate).toMatchObject({ met: false, converged: 2, checks: [{ name: 'smoke', result: 'inconclusive', value: 500 }] });
    expect(answer.json.gate.checks[0].duration_ms).toBeGreaterThanOrEqual(0);

    health = 200;
    const done = await autoPromotePass();
    expect(done.promoted).toEqual([`qa/${p.name}`]);
    expect(await pointer('qa', p.name)).toBe(p.dev);
    expect((await autoPromotePass()).promoted).toEqual([]);
    const moves = await db().pointerHistory.findMany({ where: { groupName: 'qa', policyName: p.name, toRevisionId: p.dev } });
    expect(moves).toHaveLength(1);
    expect(moves[0]).toMatchObject({ kind: 'promote', actorEmail: 'system (automatic promotion)' });
    expect(moves[0].reason).toMatch(new RegExp(`^auto-promoted: 2 of 2 node\\(s\\) in dev converged revision ${p.dev.slice(0, 10)} \\d+ min ago, checks passed \\(smoke = 200\\)`));
    const audit = await db().auditEvent.findFirstOrThrow({ where: { action: 'pointer.promote', target: `qa/${p.name}` }, orderBy: { createdAt: 'desc' } });
    expect(audit.actorEmail).toBe('system (automatic promotion)');
    expect(JSON.parse(audit.after!)).toMatchObject({ revision_id: p.dev, automatic_promotion: { from_stage: 'dev', converged: 2, counted: 2, checks: [{ name: 'smoke', result: 'pass', value: 200 }] } });
    const auto = await outbox('promotion.automatic');
    expect(auto).toHaveLength(1);
    expect(JSON.parse(auto[0].payload).data).toMatchObject({ stage: 'qa', policy: p.name, from_revision_id: p.qa, to_revision_id: p.dev });

    const t = await call(timeline, 'GET', { token: await tokenFor('viewer@example.com'), params: { group: 'qa' }, query: `policy=${p.name}` });
    expect(t.status).toBe(200);
    const kinds = (t.json.entries as { kind: string }[]).map((e) => e.kind);
    expect(kinds[0]).toBe('auto-promoted');
    expect(kinds).toContain('soaked');
    expect(kinds.filter((k) => k === 'checked')).toHaveLength(2); // inconclusive, then passed
    expect(kinds.filter((k) => k === 'auto-promoted')).toHaveLength(1);
  });

  it("a person's rollback holds the automation (who and why) until someone who manages qa resumes it", async () => {
    const admin = await accessFor('admin@example.com');
    await rollback(admin, { policy: p.name, group: 'qa', toRevisionId: p.qa, expectedRevisionId: p.dev, reason: 'smoke tests red in qa' });
    let rule = await call(getRule, 'GET', { token: await tokenFor('viewer@example.com'), params: { group: 'qa' } });
    expect(rule.json.automation).toMatchObject({ state: 'held', held: { by: 'admin@example.com', source: 'rollback' } });
    expect(rule.json.automation.held.reason).toMatch(/rolled .* back .*smoke tests red in qa/);
    expect(await outbox('automation.held')).toHaveLength(1);
    expect((await autoPromotePass()).promoted).toEqual([]);
    expect(await pointer('qa', p.name)).toBe(p.qa);

    const viewer = await call(resume, 'POST', { token: await tokenFor('viewer@example.com'), params: { group: 'qa' } });
    expect(viewer.status).toBe(403);
    const r = await call(resume, 'POST', { token: await tokenFor('admin@example.com'), params: { group: 'qa' }, body: { reason: 'fixed the smoke tests' } });
    expect(r.status, r.text).toBe(200);
    expect(r.json.automation.state).not.toBe('held');
    expect((await call(resume, 'POST', { token: await tokenFor('admin@example.com'), params: { group: 'qa' } })).status).toBe(409);
    expect(await outbox('automation.resumed')).toHaveLength(1);
    expect(await db().auditEvent.count({ where: { action: 'automation.resume', target: 'qa' } })).toBe(1);

    // Resumed: the evidence still holds, so the revision moves again (a new state of the stage), once.
    expect((await autoPromotePass()).promoted).toEqual([`qa/${p.name}`]);
    expect(await pointer('qa', p.name)).toBe(p.dev);
    const kinds = (await stageTimeline(admin, { stage: 'qa', policy: p.name })).entries.map((e) => e.kind);
    expect(kinds.slice(0, 4)).toEqual(['auto-promoted', 'resumed', 'held', 'rolled back']);
  });

  it("a person's promotion of another revision holds it; promoting the revision the stage before runs does not", async () => {
    const admin = await accessFor('admin@example.com');
    // Another revision than dev runs, by hand: held (the resume test above showed the same revision moving without a hold).
    await promotePolicy(admin, { policy: p.name, from: `rev:${p.qa}`, to: 'qa', expectedRevisionId: p.dev, reason: 'pin the old one', gateOverrideReason: 'the old revision is what qa tests now' });
    const rule = await call(getRule, 'GET', { token: await tokenFor('viewer@example.com'), params: { group: 'qa' } });
    expect(rule.json.automation).toMatchObject({ state: 'held', held: { by: 'admin@example.com', source: 'promotion' } });
    await call(resume, 'POST', { token: await tokenFor('admin@example.com'), params: { group: 'qa' } });
    // A freeze: the automation waits, and says until when.
    const now = Date.now();
    await addFreezeWindow(admin, { stage: 'qa', startsAt: new Date(now - 60_000), endsAt: new Date(now + 3600_000), reason: 'release week' });
    expect((await autoPromotePass()).promoted).toEqual([]);
    const waiting = (await call(getRule, 'GET', { token: await tokenFor('viewer@example.com'), params: { group: 'qa' } })).json.automation.waiting.find((w: { policy: string }) => w.policy === p.name);
    expect(waiting.waiting_for).toMatch(/frozen/);
    expect(Date.parse(waiting.until)).toBeGreaterThan(now);
    expect(await pointer('qa', p.name)).toBe(p.qa);
    await db().freezeWindow.deleteMany({ where: { group: { name: 'qa' } } });
    // A revision marked bad never moves.
    await markBad(p.name, p.dev);
    expect((await autoPromotePass()).promoted).toEqual([]);
    expect(await pointer('qa', p.name)).toBe(p.qa);
    await db().badRevision.deleteMany({ where: { revisionId: p.dev } });
  });

  it.runIf(onPostgres)('two instances racing the pass promote exactly once', { timeout: 120_000 }, async () => {
    // qa runs p.qa again and is not held: two processes run the pass 5 times each, all at once.
    expect(await pointer('qa', p.name)).toBe(p.qa);
    const outcomes = await race('autopromote', 5);
    expect(outcomes.filter((o) => o.status === 200)).toHaveLength(1);
    expect(outcomes.filter((o) => o.status >= 400)).toEqual([]);
    expect(await pointer('qa', p.name)).toBe(p.dev);
    expect(await db().pointerHistory.count({ where: { groupName: 'qa', policyName: p.name, toRevisionId: p.dev, actorEmail: 'system (automatic promotion)' } })).toBe(3);
    expect(await db().automationEvent.count({ where: { groupName: 'qa', policyName: p.name, kind: 'auto_promoted' } })).toBe(3);
    expect(await outbox('promotion.automatic')).toHaveLength(3);
  });
});

/** Two race-worker processes running `scenario` `count` times each, started together. */
async function race(scenario: string, count: number): Promise<{ status: number; message?: string }[]> {
  const children = [0, 1].map(() => spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/race-worker.ts', scenario, String(count), '{}'], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn' }, stdio: ['pipe', 'pipe', 'pipe'] }));
  try {
    const lines = children.map((c) => readline.createInterface({ input: c.stdout! }));
    const wait = (i: number, pred: (l: string) => boolean) =>
      new Promise<string>((resolve, reject) => {
        let err = '';
        children[i].stderr!.on('data', (d) => (err += d));
        lines[i].on('line', (l) => pred(l) && resolve(l));
        children[i].on('exit', (code) => reject(new Error(`worker exited ${code}: ${err}`)));
      });
    const results = [0, 1].map((i) => wait(i, (l) => l.startsWith('{"results"')));
    await Promise.all([0, 1].map((i) => wait(i, (l) => l.includes('"ready"'))));
    for (const c of children) c.stdin!.write('go\n');
    return (await Promise.all(results)).flatMap((l) => JSON.parse(l).results);
  } finally {
    await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.on('exit', r)) : null)));
  }
}
