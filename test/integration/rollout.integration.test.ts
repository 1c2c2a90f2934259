/**
 * Issue 26: promotion gates on every promotion route (whole policy, bulk,
 * single cookbook, /api/v1 PUT, the Chef PUT that `chef push` sends), the
 * manager's override, and the automatic rollback: applied through movePointer
 * once, with two workers racing (this file also runs on PostgreSQL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '@/lib/db/client';
import { ingestRunMessage, evaluateRollbacks, gateState, rolloutHealth, setStageRolloutRule } from '@/lib/services/runs';
import { promotePolicy } from '@/lib/services/promotion';
const { POST: promote } = apiRoutes('/api/v1/policy_groups/[group]/promote');
const { POST: promoteCookbook } = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]/promote-cookbook');
const { PUT: putStagePolicy } = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]');
const { GET: getRule, PUT: putRule } = apiRoutes('/api/v1/policy_groups/[group]/rollout');
import { startChefHarness, type ChefHarness } from '../chef-harness';
import { apiRoutes, accessFor, call, snapshot, tokenFor, placeNode } from '../helpers';
import { runConvergeMessage } from '../run-message';


let chef: ChefHarness;
let seq = 0;

/** A run_converge as chef-client sends it (the recorded one), for another node, stage, policy and revision, ending now. */
const runMessage = (node: string, stage: string, policy: string, revision: string, status: 'success' | 'failure') =>
  runConvergeMessage({ runId: `00000000-0000-4000-8000-${String(++seq).padStart(12, '0')}`, node, stage, policy, revision, status });
/** Issue 41: runs count in the stage the console has the node in, so the node is placed there first. */
const report = async (node: string, stage: string, policy: string, revision: string, status: 'success' | 'failure') => {
  await placeNode(node, stage, policy);
  return ingestRunMessage({ kind: 'token' }, runMessage(node, stage, policy, revision, status));
};

async function pointer(stage: string, policy: string): Promise<string | null> {
  const p = await db().groupPolicy.findFirst({ where: { group: { name: stage }, policy: { name: policy } }, select: { revision: { select: { revisionId: true } } } });
  return p?.revision.revisionId ?? null;
}

/** What a caller saw in `stage` for every policy `from` runs (the bulk route's `expected`). */
async function expectedAll(stage: string, from: string) {
  const rows = await db().groupPolicy.findMany({ where: { group: { name: { in: [stage, from] } } }, select: { group: { select: { name: true } }, policy: { select: { name: true } }, revision: { select: { revisionId: true } } } });
  const out: Record<string, string | null> = {};
  for (const r of rows) if (r.group.name === from) out[r.policy.name] = rows.find((x) => x.group.name === stage && x.policy.name === r.policy.name)?.revision.revisionId ?? null;
  return out;
}

/** A change to make in `stage`: a policy it runs and another revision of it, not marked bad. */
async function nextChange(stage: string, exclude: string[]) {
  const rows = await db().groupPolicy.findMany({ where: { group: { name: stage } }, select: { policy: { select: { id: true, name: true } }, revision: { select: { revisionId: true } } }, orderBy: { policy: { name: 'asc' } } });
  const bad = (await db().badRevision.findMany({ select: { revisionPk: true } })).map((b) => b.revisionPk);
  // Issue 43: nor one that failed in this stage (a stage verdict: moving it back needs a manager's override).
  const failedHere = (await db().stageVerdict.findMany({ where: { groupName: stage, overriddenAt: null }, select: { revisionId: true } })).map((v) => v.revisionId);
  for (const r of rows) {
    if (exclude.includes(r.policy.name)) continue;
    const other = await db().policyRevision.findFirst({ where: { policyId: r.policy.id, revisionId: { notIn: [r.revision.revisionId, ...failedHere] }, id: { notIn: bad } }, select: { revisionId: true, document: true }, orderBy: { revisionId: 'asc' } });
    if (other) return { name: r.policy.name, before: r.revision.revisionId, after: other.revisionId, document: other.document };
  }
  throw new Error(`no policy in ${stage} has another revision`);
}

/** A policy whose dev and qa revisions differ, with a cookbook whose version differs between them (when `cookbook`). */
async function pickPolicy(exclude: string[] = [], needCookbook = true) {
  const rows = await db().groupPolicy.findMany({ where: { group: { name: { in: ['dev', 'qa'] } } }, select: { group: { select: { name: true } }, policy: { select: { name: true } }, revision: { select: { revisionId: true, document: true } } } });
  const by = new Map<string, Record<string, { revisionId: string; document: string }>>();
  for (const r of rows) (by.get(r.policy.name) ?? by.set(r.policy.name, {}).get(r.policy.name)!)[r.group.name] = r.revision;
  for (const [name, s] of [...by.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (exclude.includes(name) || !s.dev || !s.qa || s.dev.revisionId === s.qa.revisionId) continue;
    const dev = JSON.parse(s.dev.document).cookbook_locks as Record<string, { version: string }>;
    const qa = JSON.parse(s.qa.document).cookbook_locks as Record<string, { version: string }>;
    const cookbook = Object.keys(dev).find((c) => qa[c] && qa[c].version !== dev[c].version) ?? '';
    if (cookbook || !needCookbook) return { name, dev: s.dev, qa: s.qa, cookbook };
  }
  throw new Error('the demo has no policy whose dev and qa differ in a cookbook version');
}

beforeAll(async () => {
  chef = await startChefHarness();
  // The demo's nodes last checked in days ago: missing, so the runs below are what the gate counts.
  await db().node.updateMany({ data: { lastCheckIn: new Date(Date.now() - 3 * 86_400_000) } });
});
afterAll(async () => chef.close());

describe('promotion gates', () => {
  let p: Awaited<ReturnType<typeof pickPolicy>>;
  beforeAll(async () => {
    p = await pickPolicy();
  });

  it('a manager sets the gate into qa through /api/v1; a bad number is a 400 naming it; others are refused', async () => {
    const admin = await tokenFor('admin@example.com');
    const bad = await call(putRule, 'PUT', { token: admin, params: { group: 'qa' }, body: { gate: { enabled: true, min_success_pct: 120 } } });
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0]).toEqual({ path: '/gate/min_success_pct', message: 'min_success_pct must be a whole number from 0 to 100' });
    const refused = await call(putRule, 'PUT', { token: await tokenFor('dev@example.com'), params: { group: 'qa' }, body: { gate: { enabled: true } } });
    expect(refused.status).toBe(403);
    const r = await call(putRule, 'PUT', { token: admin, params: { group: 'qa' }, body: { gate: { enabled: true, min_success_pct: 80, min_nodes: 2, max_failure_pct: 10, soak_minutes: 0 } } });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ stage: 'qa', gate_from_stage: 'dev', gate: { enabled: true, min_success_pct: 80, min_nodes: 2, max_failure_pct: 10, soak_minutes: 0 }, rollback: { enabled: false } });
    const got = await call(getRule, 'GET', { token: await tokenFor('viewer@example.com'), params: { group: 'qa' } });
    expect(got.json.gate).toEqual(r.json.gate);
    expect(await db().auditEvent.count({ where: { action: 'stage.rollout_rule', target: 'qa' } })).toBe(1);
  });

  it('every promotion route into qa refuses an unmet gate with 409 and the numbers, and nothing moves', async () => {
    const token = await tokenFor('dev@example.com'); // promote on qa, not manage
    const SKIP = ['ApiToken', 'ChefKey', 'ChefClient', 'ChefName', 'User', 'AuditEvent'];
    const before = snapshot({ except: SKIP });
    const audits = await db().auditEvent.count({ where: { targetType: { in: ['pointer', 'revision'] } } });
    const attempts = [
      await call(promote, 'POST', { token, params: { group: 'qa' }, body: { from: 'dev', policies: [p.name], expected: { [p.name]: p.qa.revisionId } } }),
      await call(promote, 'POST', { token, params: { group: 'qa' }, body: { from: 'dev', policies: 'all', expected: await expectedAll('qa', 'dev') } }),
      await call(promoteCookbook, 'POST', { token, params: { group: 'qa', name: p.name }, body: { from: 'dev', cookbook: p.cookbook, expected_revision_id: p.qa.revisionId } }),
      await call(putStagePolicy, 'PUT', { token, params: { group: 'qa', name: p.name }, body: p.dev.document }),
    ];
    const chefPut = await chef.request('PUT', `policy_groups/qa/policies/${p.name}`, { as: 'admin', body: p.dev.document });
    for (const r of attempts) {
      expect(r.status, r.text).toBe(409);
      expect(r.json.error[0]).toMatch(/The promotion gate of 'qa' is not met for revision/);
    }
    expect(chefPut.status, chefPut.text).toBe(409);
    expect(attempts[0].json.gate).toMatchObject({ met: false, fromStage: 'dev', revisionId: p.dev.revisionId, converged: 0, rule: { minSuccessPct: 80, minNodes: 2 } });
    expect(snapshot({ except: SKIP }) === before).toBe(true);
    expect(await db().auditEvent.count({ where: { targetType: { in: ['pointer', 'revision'] } } })).toBe(audits);
    expect(await pointer('qa', p.name)).toBe(p.qa.revisionId);
  });

  it('the gate state before the click says what is missing; runs in dev meet it and the promotion goes through', async () => {
    const dev = await accessFor('dev@example.com');
    await report('gate-n1', 'dev', p.name, p.dev.revisionId, 'success');
    let g = await gateState(dev, { stage: 'qa', policy: p.name, fromStage: 'dev' });
    expect(g).toMatchObject({ met: false, converged: 1, counted: 1, required: 2, can_override: false, unmet: [`1 of at least 2 node(s) in dev converged revision ${p.dev.revisionId.slice(0, 10)}`] });
    await report('gate-n2', 'dev', p.name, p.dev.revisionId, 'failure');
    await report('gate-n3', 'dev', p.name, p.dev.revisionId, 'success');
    g = await gateState(dev, { stage: 'qa', policy: p.name, fromStage: 'dev' });
    expect(g).toMatchObject({ met: false, converged: 2, failed: 1, counted: 3, successPct: 66.7, failurePct: 33.3 });
    // The failing node converges on its next run.
    await report('gate-n2', 'dev', p.name, p.dev.revisionId, 'success');
    g = await gateState(dev, { stage: 'qa', policy: p.name, fromStage: 'dev' });
    expect(g).toMatchObject({ met: true, converged: 3, failed: 0, unmet: [] });

    const health = await rolloutHealth(dev);
    expect(health[`dev/${p.name}`]).toMatchObject({ converged: 3, failed: 0 });

    const r = await call(promote, 'POST', { token: await tokenFor('dev@example.com'), params: { group: 'qa' }, body: { from: 'dev', policies: [p.name], expected: { [p.name]: p.qa.revisionId } } });
    expect(r.status, r.text).toBe(200);
    expect(await pointer('qa', p.name)).toBe(p.dev.revisionId);
  });

  it('an unmet gate: a promoter may not override it; a manager may, with a written reason, audited', async () => {
    // A revision of another policy that never ran in dev, started straight into qa (the one-policy dialog's `rev:` source).
    const q = await nextChange('qa', [p.name]);
    const input = { policy: q.name, from: `rev:${q.after}`, to: 'qa', expectedRevisionId: q.before, gateOverrideReason: 'hotfix verified by hand on a dev node' };
    await expect(promotePolicy(await accessFor('dev@example.com'), input)).rejects.toThrow("The promotion gate of 'qa' is not met; only those who manage stage 'qa' may override it.");
    await expect(promotePolicy(await accessFor('dev@example.com'), { ...input, gateOverrideReason: undefined })).rejects.toThrow(/The promotion gate of 'qa' is not met for revision/);
    const ok = await promotePolicy(await accessFor('admin@example.com'), input);
    expect(ok.changed).toBe(true);
    const ev = await db().auditEvent.findFirstOrThrow({ where: { action: 'pointer.promote', target: `qa/${q.name}` }, orderBy: { createdAt: 'desc' } });
    expect(ev.reason).toBe('hotfix verified by hand on a dev node');
    expect(JSON.parse(ev.after!).gate_override).toMatchObject({ reason: 'hotfix verified by hand on a dev node', gate: { met: false, fromStage: 'dev' } });
    const h = await db().pointerHistory.findFirstOrThrow({ where: { groupName: 'qa', policyName: q.name }, orderBy: { createdAt: 'desc' } });
    expect(h.reason).toMatch(/^gate override \(.+\): hotfix verified by hand on a dev node$/);
  });
});

describe('automatic rollback', () => {
  let p: { name: string; before: string; after: string };

  beforeAll(async () => {
    const admin = await accessFor('admin@example.com');
    await db().webhookSubscription.create({ data: { name: 'rollouts', url: 'http://127.0.0.1:9/hook', events: JSON.stringify(['rollout.failed', 'rollout.rolled_back', 'rollout.converged', 'revision.marked_bad']), secretEnc: 'x', createdAt: new Date() } });
    // A change in dev: another revision of a policy is pushed into dev (dev has no gate: the first stage).
    const c = await nextChange('dev', []);
    const moved = await call(putStagePolicy, 'PUT', { token: await tokenFor('admin@example.com'), params: { group: 'dev', name: c.name }, body: c.document });
    expect(moved.status, moved.text).toBe(200);
    p = { name: c.name, before: c.before, after: c.after };
    await setStageRolloutRule(admin, { stage: 'dev', rollback: { enabled: true, window_minutes: 60, failure_pct: 50, min_runs: 3 } });
  });

  const outbox = (event: string) => db().webhookDelivery.count({ where: { event } });

  it('the first failure is announced once (rollout.failed); below the rule nothing moves', async () => {
    await report('rb-n1', 'dev', p.name, p.after, 'failure');
    await report('rb-n2', 'dev', p.name, p.after, 'success');
    await report('rb-n3', 'dev', p.name, p.after, 'failure');
    expect(await outbox('rollout.failed')).toBe(1);
    const d = await db().webhookDelivery.findFirstOrThrow({ where: { event: 'rollout.failed' } });
    expect(JSON.parse(d.payload).data).toMatchObject({ stage: 'dev', policy: p.name, revision_id: p.after, previous_revision_id: p.before, node: 'rb-n1', resource: 'ruby_block[check release]', cookbook: 'rollout' });
    // 2 of 3 runs failed (66.7% ≥ 50%, 3 runs): that third report rolled the stage back already.
    expect(await pointer('dev', p.name)).toBe(p.before);
  });

  it('the rollback went through movePointer and the audit, left a verdict in dev (not a global bad mark) with the evidence, and notified once', async () => {
    const h = await db().pointerHistory.findFirstOrThrow({ where: { groupName: 'dev', policyName: p.name }, orderBy: { createdAt: 'desc' } });
    expect(h).toMatchObject({ kind: 'rollback', fromRevisionId: p.after, toRevisionId: p.before, actorEmail: 'system (automatic rollback)' });
    expect(h.reason).toMatch(/^automatic rollback of .+: 2 of 3 node\(s\) that ran the new revision failed on it within 60 minute\(s\) of the change .* — allowed without approval by the stage's automatic rollback rule/);
    const ev = await db().auditEvent.findFirstOrThrow({ where: { action: 'pointer.rollback', target: `dev/${p.name}` }, orderBy: { createdAt: 'desc' } });
    expect(JSON.parse(ev.after!).automatic_rollback).toMatchObject({ rule: '≥ 50% of at least 3 node(s) failed within 60 minute(s)', evidence: { runs: 3, failed: 2, counted: 'nodes', failed_nodes: ['rb-n1', 'rb-n3'] } });
    // Issue 41: evidence about dev, not a global mark other stages inherit.
    expect(await db().badRevision.count({ where: { policyName: p.name, revisionId: p.after } })).toBe(0);
    const verdict = await db().stageVerdict.findFirstOrThrow({ where: { policyName: p.name, revisionId: p.after } });
    expect(verdict).toMatchObject({ groupName: 'dev', source: 'rollback', nodes: 3, failedNodes: 2, failedResource: 'ruby_block[check release]', failedCookbook: 'rollout', overriddenAt: null });
    expect(verdict.summary).toMatch(/failed in dev \(rolled back by the stage's automatic rollback rule\) on .*: 2 of 3 nodes, ruby_block\[check release\] \(cookbook rollout\)$/);
    expect(await outbox('rollout.rolled_back')).toBe(1);
    expect(await outbox('revision.marked_bad')).toBe(0);
  });

  it('later reports and the worker passes of two instances roll back nothing more', async () => {
    await report('rb-n4', 'dev', p.name, p.after, 'failure');
    const [a, b] = await Promise.all([evaluateRollbacks(), evaluateRollbacks()]);
    expect(a + b).toBe(0);
    expect(await db().pointerHistory.count({ where: { groupName: 'dev', policyName: p.name, kind: 'rollback' } })).toBe(1);
    expect(await outbox('rollout.rolled_back')).toBe(1);
  });

  it('the next runs converge the old revision again: rollout.converged', async () => {
    for (const n of ['rb-n1', 'rb-n2', 'rb-n3', 'rb-n4']) await report(n, 'dev', p.name, p.before, 'success');
    expect(await outbox('rollout.converged')).toBe(1);
    const health = await rolloutHealth(await accessFor('viewer@example.com'));
    expect(health[`dev/${p.name}`]).toMatchObject({ revisionId: p.before, converged: 4, failed: 0, pending: 0 });
  });
});

describe('automatic rollback with two workers at once', () => {
  it('applies exactly once', async () => {
    // Another change in dev, with the rule off while the failures come in; then two workers evaluate at once.
    const admin = await accessFor('admin@example.com');
    await setStageRolloutRule(admin, { stage: 'dev', rollback: { enabled: false } });
    const used = (await db().stageVerdict.findMany({ select: { policyName: true } })).map((b) => b.policyName);
    const c = await nextChange('dev', used);
    const pick = { policy: { name: c.name }, revision: { revisionId: c.after } };
    const before = c.before;
    const moved = await call(putStagePolicy, 'PUT', { token: await tokenFor('admin@example.com'), params: { group: 'dev', name: c.name }, body: c.document });
    expect(moved.status, moved.text).toBe(200);
    for (const n of ['race-1', 'race-2', 'race-3']) await report(n, 'dev', pick.policy.name, pick.revision.revisionId, 'failure');
    expect(await pointer('dev', pick.policy.name)).toBe(pick.revision.revisionId);
    await setStageRolloutRule(admin, { stage: 'dev', rollback: { enabled: true } });
    const results = await Promise.all([evaluateRollbacks(), evaluateRollbacks(), evaluateRollbacks()]);
    expect(results.reduce((a, b) => a + b, 0)).toBe(1);
    expect(await pointer('dev', pick.policy.name)).toBe(before);
    expect(await db().pointerHistory.count({ where: { groupName: 'dev', policyName: pick.policy.name, kind: 'rollback' } })).toBe(1);
    expect(await db().rolloutOutcome.count({ where: { event: 'rollout.rolled_back', policyName: pick.policy.name } })).toBe(1);
  });
});

describe('runs reported at once (group commit, one evaluation for many runs)', () => {
  it('stores every run, announces the failure once and rolls back once', async () => {
    const admin = await accessFor('admin@example.com');
    const used = (await db().stageVerdict.findMany({ select: { policyName: true } })).map((b) => b.policyName);
    const c = await nextChange('dev', used);
    const moved = await call(putStagePolicy, 'PUT', { token: await tokenFor('admin@example.com'), params: { group: 'dev', name: c.name }, body: c.document });
    expect(moved.status, moved.text).toBe(200);
    await setStageRolloutRule(admin, { stage: 'dev', rollback: { enabled: true, window_minutes: 60, failure_pct: 50, min_runs: 3 } });
    const nodes = ['burst-1', 'burst-2', 'burst-3', 'burst-4', 'burst-5', 'burst-6'];
    const answers = await Promise.all(nodes.map((n, i) => report(n, 'dev', c.name, c.after, i % 3 === 2 ? 'success' : 'failure')));
    expect(answers.map((a) => a.status)).toEqual(['failure', 'failure', 'success', 'failure', 'failure', 'success']);
    expect(await db().runReport.count({ where: { nodeName: { in: nodes }, revisionId: c.after } })).toBe(6);
    expect(await db().nodeRunState.count({ where: { nodeName: { in: nodes }, revisionId: c.after } })).toBe(6);
    // Every answer came after an evaluation that saw its run: the stage is back already.
    expect(await pointer('dev', c.name)).toBe(c.before);
    expect(await db().rolloutOutcome.count({ where: { policyName: c.name, revisionId: c.after, event: 'rollout.failed' } })).toBe(1);
    expect(await db().rolloutOutcome.count({ where: { policyName: c.name, revisionId: c.after, event: 'rollout.rolled_back' } })).toBe(1);
    expect(await db().pointerHistory.count({ where: { groupName: 'dev', policyName: c.name, kind: 'rollback' } })).toBe(1);
    await setStageRolloutRule(admin, { stage: 'dev', rollback: { enabled: false } });
  });
});
