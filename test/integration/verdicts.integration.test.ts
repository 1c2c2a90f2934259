/**
 * Issues 41 (item 2), 43 and 40 (its ring item): run reports count in the stage the console has the node in;
 * automatic rollback counts distinct nodes; a failure is a verdict about ONE stage (a canary ring rolled back
 * for its nodes' failures, or the stage's automatic rollback), which the guard judges in that stage (a manager's
 * written override) and tells elsewhere; rings roll back when the failed run is reported, leave true facts, and
 * announce themselves; ring requests say what approval does; outdated requests are nowhere pending; a change's
 * events go out in order; a node's text is bounded. Each `it` fails on the main before this work (the first
 * assertion of each is the behaviour that was wrong). Runs on SQLite and PostgreSQL.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes, pollUntil } from '@/test/helpers';
import { db } from '@/lib/db/client';
import { inRing, ringSeed } from '@/lib/domain/rings';
import { ingestRunMessage, gateState, setStageRolloutRule, stageHealth } from '@/lib/services/runs';
import { previewMove, approvePromotionRequest, getPromotionRequest, listPromotionRequests, promotePolicy } from '@/lib/services/promotion';
import { createWebhook, deliverDue } from '@/lib/services/webhooks';
import { emitEvent } from '@/lib/services/funnel';
const { POST: startRing } = apiRoutes('/api/v1/rings');
const { GET: getRing } = apiRoutes('/api/v1/rings/[id]');
const { POST: widen } = apiRoutes('/api/v1/rings/[id]/widen');
const { PUT: putStagePolicy } = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]');
import { startChefHarness, type ChefHarness } from '../chef-harness';
import { accessFor, call, tokenFor } from '../helpers';
import { runConvergeMessage } from '../run-message';


let chef: ChefHarness;
let admin: string;
let seq = 0;

/** A run_converge as chef-client 18 sends it, for `node`, naming `stage` and `policy`, on `revision`. */
const runMessage = (node: string, stage: string, policy: string, revision: string, status: 'success' | 'failure', error?: string) =>
  runConvergeMessage({ runId: `00000000-0000-4000-a000-${String(++seq).padStart(12, '0')}`, node, stage, policy, revision, status, error });

/** Places a node in a stage running a policy: the console's fact (its node row), as a user or the importer would. */
async function place(name: string, stage: string, policy: string) {
  const [g, p] = await Promise.all([db().policyGroup.findUniqueOrThrow({ where: { name: stage } }), db().policy.findUniqueOrThrow({ where: { name: policy } })]);
  await db().node.upsert({ where: { name }, create: { name, groupId: g.id, policyId: p.id, lastCheckIn: new Date() }, update: { groupId: g.id, policyId: p.id, lastCheckIn: new Date() } });
}

/** A run reported by the node's own client (signed), as chef-client sends it. */
const reportAs = (node: string, stage: string, policy: string, revision: string, status: 'success' | 'failure', error?: string) =>
  chef.request('POST', 'data-collector', { as: `client:${node}`, body: runMessage(node, stage, policy, revision, status, error) });

const pointer = async (stage: string, policy: string) =>
  (await db().groupPolicy.findFirst({ where: { group: { name: stage }, policy: { name: policy } }, select: { revision: { select: { revisionId: true } } } }))?.revision.revisionId ?? null;

const used: string[] = [];
/** A policy `stage` runs (not used by another test here) and another revision of it, with its document. */
async function change(stage: string) {
  const rows = await db().groupPolicy.findMany({ where: { group: { name: stage } }, select: { policy: { select: { id: true, name: true } }, revision: { select: { revisionId: true } } }, orderBy: { policy: { name: 'asc' } } });
  for (const r of rows) {
    if (used.includes(r.policy.name)) continue;
    const other = await db().policyRevision.findFirst({ where: { policyId: r.policy.id, revisionId: { not: r.revision.revisionId } }, select: { revisionId: true, document: true }, orderBy: { createdAt: 'desc' } });
    if (!other) continue;
    used.push(r.policy.name);
    return { policy: r.policy.name, from: r.revision.revisionId, to: other.revisionId, document: other.document };
  }
  throw new Error(`no unused policy in ${stage} has another revision`);
}

/** Moves `stage` to the change's new revision (the /api/v1 PUT, as admin). */
async function moveTo(stage: string, c: { policy: string; document: string }) {
  const r = await call(putStagePolicy, 'PUT', { token: admin, params: { group: stage, name: c.policy }, body: c.document });
  expect(r.status, r.text).toBe(200);
}

let server: http.Server;
let base: string;
const received: { path: string; body: string }[] = [];

beforeAll(async () => {
  chef = await startChefHarness();
  admin = await tokenFor('admin@example.com');
  // The demo's nodes last checked in days ago: missing, so the nodes placed here are the ones that count.
  await db().node.updateMany({ data: { lastCheckIn: new Date(Date.now() - 3 * 86_400_000) } });
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url!, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await chef.close();
  await new Promise<void>((r) => server.close(() => r()));
});

describe('run reports count in the stage the console has the node in (issue 41, item 2)', () => {
  it("a client's report naming another stage than its node's is refused, and nothing of it counts there", async () => {
    const c = await change('qa');
    await place('spy-dev', 'dev', c.policy);
    const r = await reportAs('spy-dev', 'qa', c.policy, c.from, 'failure');
    expect(r.status, r.text).toBe(403);
    expect(r.json.error[0]).toContain("Node 'spy-dev' is in stage 'dev'");
    expect(await db().runReport.count({ where: { nodeName: 'spy-dev' } })).toBe(0);
    expect(await db().nodeRunState.count({ where: { nodeName: 'spy-dev' } })).toBe(0);
    // Its own stage's reports count, in its stage.
    const own = await reportAs('spy-dev', 'dev', c.policy, c.from, 'success');
    expect(own.status, own.text).toBe(201);
    expect(await db().runReport.findFirst({ where: { nodeName: 'spy-dev' }, select: { groupName: true, policyName: true } })).toEqual({ groupName: 'dev', policyName: c.policy });
  });

  it('three failures from one dev client naming another stage do not roll that stage back', async () => {
    const c = await change('qa');
    await setStageRolloutRule(await accessFor('admin@example.com'), { stage: 'qa', rollback: { enabled: true, window_minutes: 60, failure_pct: 50, min_runs: 3 } });
    try {
      await moveTo('qa', c);
      await place('spy-dev-2', 'dev', c.policy);
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push((await reportAs('spy-dev-2', 'qa', c.policy, c.to, 'failure')).status);
      expect(await pointer('qa', c.policy)).toBe(c.to);
      expect(answers).toEqual([403, 403, 403]);
      expect(await db().stageVerdict.count({ where: { policyName: c.policy } })).toBe(0);
    } finally {
      await setStageRolloutRule(await accessFor('admin@example.com'), { stage: 'qa', rollback: { enabled: false } });
    }
  });

  it('one spoofed failure does not close a promotion gate', async () => {
    const c = await change('qa');
    const adminAccess = await accessFor('admin@example.com');
    await setStageRolloutRule(adminAccess, { stage: 'staging', gate: { enabled: true, min_success_pct: 100, min_nodes: 1, max_failure_pct: 0, soak_minutes: 0 } });
    try {
      await place('gate-qa-1', 'qa', c.policy);
      expect((await reportAs('gate-qa-1', 'qa', c.policy, c.from, 'success')).status).toBe(201);
      expect(await gateState(adminAccess, { stage: 'staging', policy: c.policy, revisionId: c.from })).toMatchObject({ met: true });
      await place('spy-dev-3', 'dev', c.policy);
      await reportAs('spy-dev-3', 'qa', c.policy, c.from, 'failure');
      expect(await gateState(adminAccess, { stage: 'staging', policy: c.policy, revisionId: c.from })).toMatchObject({ met: true, failed: 0, converged: 1 });
    } finally {
      await setStageRolloutRule(adminAccess, { stage: 'staging', gate: { enabled: false } });
    }
  });

  it('automatic rollback counts distinct nodes, not runs: one node failing three times is one node', async () => {
    const c = await change('qa');
    await setStageRolloutRule(await accessFor('admin@example.com'), { stage: 'qa', rollback: { enabled: true, window_minutes: 60, failure_pct: 50, min_runs: 3 } });
    try {
      await moveTo('qa', c);
      await place('one-qa', 'qa', c.policy);
      for (let i = 0; i < 3; i++) expect((await reportAs('one-qa', 'qa', c.policy, c.to, 'failure')).status).toBe(201);
      expect(await pointer('qa', c.policy)).toBe(c.to);
      // Two more nodes fail: 3 of 3 nodes, the rule rolls qa back.
      for (const n of ['two-qa', 'three-qa']) {
        await place(n, 'qa', c.policy);
        expect((await reportAs(n, 'qa', c.policy, c.to, 'failure')).status).toBe(201);
      }
      expect(await pointer('qa', c.policy)).toBe(c.from);
      const outcome = await db().rolloutOutcome.findFirstOrThrow({ where: { policyName: c.policy, event: 'rollout.rolled_back' } });
      expect(JSON.parse(outcome.evidence)).toMatchObject({ runs: 3, failed: 3, counted: 'nodes', failed_nodes: ['one-qa', 'three-qa', 'two-qa'] });
    } finally {
      await setStageRolloutRule(await accessFor('admin@example.com'), { stage: 'qa', rollback: { enabled: false } });
    }
  });

  it("an automatic rollback's failure is evidence about that stage: other stages still take the revision; that stage needs a manager's written override", async () => {
    // qa moves to a revision that fails on three nodes: the rule moves qa back.
    const c = await change('qa');
    await setStageRolloutRule(await accessFor('admin@example.com'), { stage: 'qa', rollback: { enabled: true, window_minutes: 60, failure_pct: 50, min_runs: 3 } });
    try {
      await moveTo('qa', c);
      for (const n of ['rb-qa-1', 'rb-qa-2', 'rb-qa-3']) {
        await place(n, 'qa', c.policy);
        expect((await reportAs(n, 'qa', c.policy, c.to, 'failure')).status).toBe(201);
      }
      expect(await pointer('qa', c.policy)).toBe(c.from);
    } finally {
      await setStageRolloutRule(await accessFor('admin@example.com'), { stage: 'qa', rollback: { enabled: false } });
    }
    // Another stage takes it (on main the rollback marked it bad for every stage: 409 here).
    const elsewhere = await call(putStagePolicy, 'PUT', { token: admin, params: { group: 'staging', name: c.policy }, body: c.document });
    expect([200, 202]).toContain(elsewhere.status);
    // A preview into a stage that does not run it tells of the failure in qa, without refusing for it.
    const target = (await pointer('dev', c.policy)) !== c.to ? 'dev' : 'production';
    const preview = await previewMove(await accessFor('admin@example.com'), { policy: c.policy, stage: target, kind: 'promote', from: `rev:${c.to}` });
    expect(preview.verdicts.elsewhere.map((v) => v.stage)).toEqual(['qa']);
    expect(preview.verdicts.here).toEqual([]);
    // Into qa: refused in words; a promoter cannot override; a manager can, with a reason that is kept.
    const dev = await accessFor('dev@example.com');
    await expect(promotePolicy(dev, { policy: c.policy, from: `rev:${c.to}`, to: 'qa', expectedRevisionId: c.from })).rejects.toThrow(/failed in qa \(rolled back by the stage's automatic rollback rule\).*3 of 3 nodes.*someone who manages qa moves it with a written reason/);
    await expect(promotePolicy(dev, { policy: c.policy, from: `rev:${c.to}`, to: 'qa', expectedRevisionId: c.from, verdictOverrideReason: 'fixed on the nodes' })).rejects.toThrow(/only those who manage qa may move it there again/);
    const qaPreview = await previewMove(dev, { policy: c.policy, stage: 'qa', kind: 'promote', from: `rev:${c.to}` });
    expect(qaPreview).toMatchObject({ outcome: 'blocked', action: 'Failed in qa before' });
    const managerPreview = await previewMove(await accessFor('admin@example.com'), { policy: c.policy, stage: 'qa', kind: 'promote', from: `rev:${c.to}` });
    expect(managerPreview.needs).toContain('verdict_override_reason');
    const ok = await promotePolicy(await accessFor('admin@example.com'), { policy: c.policy, from: `rev:${c.to}`, to: 'qa', expectedRevisionId: c.from, verdictOverrideReason: 'the disk was full on those three; fixed' });
    expect(ok.changed).toBe(true);
    const v = await db().stageVerdict.findFirstOrThrow({ where: { policyName: c.policy, revisionId: c.to } });
    expect(v).toMatchObject({ groupName: 'qa', overriddenByEmail: 'admin@example.com', overrideReason: 'the disk was full on those three; fixed' });
    const h = await db().pointerHistory.findFirstOrThrow({ where: { groupName: 'qa', policyName: c.policy }, orderBy: { createdAt: 'desc' } });
    expect(h.reason).toMatch(/^failure override by admin@example.com \(.*failed in qa.*\): the disk was full on those three; fixed$/);
  });

  it("a node's text is bounded where it is kept, and one line (escaped) in the events", async () => {
    const c = await change('qa');
    const { webhook } = await createWebhook(await accessFor('admin@example.com'), { name: 'chat', url: `${base}/slack`, events: ['rollout.failed'], format: 'slack', allow_private_targets: true });
    try {
      await moveTo('qa', c);
      await place('loud-qa', 'qa', c.policy);
      const text = `<!channel>\n*Approved by the CISO*\n${'x'.repeat(4000)}`;
      expect((await reportAs('loud-qa', 'qa', c.policy, c.to, 'failure', text)).status).toBe(201);
      const run = await db().runReport.findFirstOrThrow({ where: { nodeName: 'loud-qa' }, select: { errorMessage: true } });
      expect(run.errorMessage!.length).toBeLessThanOrEqual(1000);
      const d = await db().webhookDelivery.findFirstOrThrow({ where: { subscriptionId: webhook.id, event: 'rollout.failed' } });
      const body = JSON.parse(d.payload) as { text: string; blocks: { type: string; elements?: { url?: string }[] }[] };
      expect(body.text.length).toBeLessThan(800);
      expect(body.text).toContain('&lt;!channel&gt; *Approved by the CISO*');
      expect(body.text).not.toContain('\n');
      // Issue 43: a rollout event carries a link (to the stage's history).
      expect(body.blocks.find((b) => b.type === 'actions')?.elements?.[0]?.url).toMatch(/\/history\?policy=.+&stage=qa$/);
    } finally {
      await db().webhookSubscription.update({ where: { id: webhook.id }, data: { active: false } });
    }
  });
});

/** Node names of which `inside` are in the `percent`% ring of stage × policy and `outside` are not. */
function chooseNodes(stage: string, policy: string, prefix: string, percent: number, inside: number, outside: number) {
  const seed = ringSeed(stage, policy);
  const a: string[] = [];
  const b: string[] = [];
  for (let i = 0; a.length < inside || b.length < outside; i++) {
    const n = `${prefix}-${i}`;
    if (inRing({ seed, percent }, n)) {
      if (a.length < inside) a.push(n);
    } else if (b.length < outside) b.push(n);
  }
  return { inRing: a, outRing: b };
}

describe('canary rings: the verdict is kept where the next decision is made (issues 40 and 43)', () => {
  let c: Awaited<ReturnType<typeof change>>;
  let nodes: { inRing: string[]; outRing: string[] };
  let ringId: string;

  beforeAll(async () => {
    c = await change('dev');
    // Only this test's nodes run the policy in dev: the ring's numbers are theirs.
    await db().node.deleteMany({ where: { group: { name: 'dev' }, policy: { name: c.policy } } });
    nodes = chooseNodes('dev', c.policy, 'canary', 50, 3, 3);
    for (const n of [...nodes.inRing, ...nodes.outRing]) await place(n, 'dev', c.policy);
  });

  it("counts the ring's nodes apart in the stage's health, not as 'not yet run'", async () => {
    const res = await call(startRing, 'POST', { token: admin, body: { stage: 'dev', policy: c.policy, revision_id: c.to, steps: [50, 100], gate_on_convergence: true } });
    expect(res.status, res.text).toBe(201);
    ringId = res.json.ring.id;
    for (const n of nodes.outRing) expect((await reportAs(n, 'dev', c.policy, c.from, 'success')).status).toBe(201);
    // A ring node that converged the ring's revision is converged (on the ring's revision), not "not yet run".
    expect((await reportAs(nodes.inRing[2], 'dev', c.policy, c.to, 'success')).status).toBe(201);
    const h = await stageHealth(await accessFor('viewer@example.com'), 'dev', c.policy);
    expect(h).toMatchObject({ converged: 4, pending: 2 });
    expect(h).toMatchObject({ in_ring: 3, ring: { id: ringId, percent: 50 } });
  });

  it('a gated ring without a soak time whose ring node fails is rolled back as the run is reported: nobody clicks, no worker pass', async () => {
    expect((await reportAs(nodes.inRing[0], 'dev', c.policy, c.to, 'success')).status).toBe(201);
    expect((await reportAs(nodes.inRing[1], 'dev', c.policy, c.to, 'failure')).status).toBe(201);
    const ring = (await call(getRing, 'GET', { token: admin, params: { id: ringId } })).json.ring;
    expect(ring.status).toBe('rolled_back');
    expect(ring.end_reason).toMatch(/^automatic: 1 of 3 ring nodes failed on revision .+ \(ruby_block\[check release\]\)$/);
    // The ended ring shows the facts of its end, not what its former nodes run now.
    expect(ring).toMatchObject({ ended_facts: true, health: { ring_nodes: 3, converged: 2, failed: 1, pending: 0 } });
    const failedNode = ring.step_nodes.flatMap((s: { nodes: unknown[] }) => s.nodes).find((n: { name: string }) => n.name === nodes.inRing[1]);
    expect(failedNode).toMatchObject({ serves: 'ring', standing: 'failed', failed_resource: 'ruby_block[check release]', failed_cookbook: 'rollout' });
    expect(ring.verdict).toMatchObject({ stage: 'dev', source: 'ring', ring_id: ringId, nodes: 3, failed_nodes: 1, failed_resource: 'ruby_block[check release]', failed_node_names: [nodes.inRing[1]] });
  });

  it("promoting the ring's revision into that stage again needs a manager's written override; the guard says so before the click; other stages are told", async () => {
    const dev = await accessFor('dev@example.com');
    const before = await previewMove(dev, { policy: c.policy, stage: 'dev', kind: 'promote', from: `rev:${c.to}` });
    expect(before.outcome).toBe('blocked');
    expect(before.blocked_by.join(' ')).toMatch(/failed in a canary ring in dev on .+: 1 of 3 nodes, ruby_block\[check release\] \(cookbook rollout\)/);
    await expect(promotePolicy(dev, { policy: c.policy, from: `rev:${c.to}`, to: 'dev', expectedRevisionId: c.from })).rejects.toThrow(/failed in a canary ring in dev/);
    const qa = await previewMove(dev, { policy: c.policy, stage: 'qa', kind: 'promote', from: `rev:${c.to}` });
    expect(qa.verdicts.elsewhere).toMatchObject([{ stage: 'dev', source: 'ring', failed_nodes: 1, nodes: 3 }]);
    expect(qa.blocked_by.join(' ')).not.toMatch(/canary/);
    // Starting a ring of it again is the same move into the stage: the same judgement.
    const again = await call(startRing, 'POST', { token: await tokenFor('dev@example.com'), body: { stage: 'dev', policy: c.policy, revision_id: c.to, steps: [50, 100] } });
    expect(again.status).toBe(409);
    expect(again.json.error[0]).toMatch(/failed in a canary ring in dev/);
    expect(again.json.error[0]).not.toMatch(/_reason/);
  });

  it('announces every step of a ring (ring.started, ring.widened, ring.completed, ring.rolled_back), each with a link to it', async () => {
    const { webhook } = await createWebhook(await accessFor('admin@example.com'), { name: 'rings', url: `${base}/rings`, events: ['ring.started', 'ring.widened', 'ring.completed', 'ring.rolled_back'], allow_private_targets: true });
    try {
      const d = await change('dev');
      const res = await call(startRing, 'POST', { token: admin, body: { stage: 'dev', policy: d.policy, revision_id: d.to, steps: [10, 50, 100] } });
      expect(res.status, res.text).toBe(201);
      const id = res.json.ring.id;
      for (let step = 0; step < 2; step++) expect((await call(widen, 'POST', { token: admin, params: { id }, body: { expected_step: step } })).status).toBe(200);
      const rows = await db().webhookDelivery.findMany({ where: { subscriptionId: webhook.id }, orderBy: { id: 'asc' }, select: { event: true, payload: true } });
      expect(rows.map((r) => r.event)).toEqual(['ring.started', 'ring.widened', 'ring.completed']);
      for (const r of rows) expect(JSON.parse(r.payload)).toMatchObject({ url: expect.stringMatching(new RegExp(`/rings/${id}$`)), data: { ring: id, stage: 'dev', policy: d.policy } });
      expect(JSON.parse(rows[0].payload).summary).toMatch(/started a ringed rollout of .+ in dev: 10% of dev \(\d+ of \d+ nodes?\) gets .+\. dev still runs/);
      // The ring that failed above announced its rollback too (before this subscription: none); a new one does.
      const e = await change('dev');
      const r2 = await call(startRing, 'POST', { token: admin, body: { stage: 'dev', policy: e.policy, revision_id: e.to, steps: [50, 100] } });
      const back = await call(apiRoutes('/api/v1/rings/[id]/rollback').POST, 'POST', { token: admin, params: { id: r2.json.ring.id }, body: { reason: 'not today' } });
      expect(back.status, back.text).toBe(200);
      expect((await db().webhookDelivery.findMany({ where: { subscriptionId: webhook.id, event: 'ring.rolled_back' } })).length).toBe(1);
    } finally {
      await db().webhookSubscription.update({ where: { id: webhook.id }, data: { active: false } });
    }
  });
});

describe('ring requests say what approval does (issue 43)', () => {
  it('the request, its webhooks and its apply say a ring starts and the stage still runs the old revision', async () => {
    const c = await change('production');
    const { webhook } = await createWebhook(await accessFor('admin@example.com'), { name: 'requests', url: `${base}/requests`, events: ['request.opened', 'request.applied'], allow_private_targets: true });
    try {
      const res = await call(startRing, 'POST', { token: await tokenFor('release@example.com'), body: { stage: 'production', policy: c.policy, revision_id: c.to, steps: [50, 100], gate_on_convergence: true } });
      expect(res.status, res.text).toBe(202);
      const requestId = res.json.ring.request.id;
      const opened = await db().webhookDelivery.findFirstOrThrow({ where: { subscriptionId: webhook.id, event: 'request.opened' } });
      expect(JSON.parse(opened.payload).summary).toMatch(/asks to roll .+ out in rings in production: approval starts a ringed rollout: 50% of production \(\d+ of \d+ nodes?\) gets .+, widening by hand once converged/);
      const req = await getPromotionRequest(await accessFor('lead@example.com'), requestId);
      expect(req.effect.on_approval).toMatch(/^starts a ringed rollout: 50% of production \(\d+ of \d+ nodes?\) gets [0-9a-f]{10}, widening by hand once converged; rolled back automatically as soon as a ring node fails$/);
      let after = await approvePromotionRequest(await accessFor('lead@example.com'), { id: requestId });
      // The change may need two approvals (a major bump): the second approver's.
      if (after.status === 'pending') after = await approvePromotionRequest(await accessFor('admin@example.com'), { id: requestId });
      expect(after.status).toBe('applied');
      expect(after.effect.applied).toMatch(new RegExp(`^the ring started; production still runs ${c.from.slice(0, 10)} `));
      expect(await pointer('production', c.policy)).toBe(c.from);
      const applied = await db().webhookDelivery.findFirstOrThrow({ where: { subscriptionId: webhook.id, event: 'request.applied' } });
      expect(JSON.parse(applied.payload).summary).toContain(`the ring started; production still runs ${c.from.slice(0, 10)}`);
    } finally {
      await db().webhookSubscription.update({ where: { id: webhook.id }, data: { active: false } });
    }
  });
});

describe('an outdated request is pending nowhere (issue 43)', () => {
  it('once the stage moved, "awaiting my approval", the API and the board no longer show it as pending', async () => {
    const c = await change('production');
    const lead = await accessFor('lead@example.com');
    const first = await promotePolicy(await accessFor('admin@example.com'), { policy: c.policy, from: `rev:${c.to}`, to: 'production', expectedRevisionId: c.from });
    expect(first.request).toBeTruthy();
    // Another person's request for the same change is approved (by both approvers when it needs two) and applied: production moves.
    const second = await promotePolicy(await accessFor('release@example.com'), { policy: c.policy, from: `rev:${c.to}`, to: 'production', expectedRevisionId: c.from });
    expect(second.request).toBeTruthy();
    let applied = await approvePromotionRequest(lead, { id: second.request!.id });
    if (applied.status === 'pending') applied = await approvePromotionRequest(await accessFor('admin@example.com'), { id: second.request!.id });
    expect(applied.status).toBe('applied');
    expect(await pointer('production', c.policy)).not.toBe(c.from);
    const awaiting = await listPromotionRequests(lead, { scope: 'to_approve' });
    expect(awaiting.map((r) => r.id)).not.toContain(first.request!.id);
    expect((await getPromotionRequest(lead, first.request!.id)).status).toBe('outdated');
    expect(await db().promotionRequest.count({ where: { id: first.request!.id, status: 'pending' } })).toBe(0);
  });
});

describe("a change's events go out in the order they were written (issue 43)", () => {
  it('delivers the events of one transaction in order', async () => {
    const { webhook } = await createWebhook(await accessFor('admin@example.com'), { name: 'order', url: `${base}/order`, events: ['rollout.failed'], allow_private_targets: true });
    try {
      const at = new Date();
      await db().$transaction(async (tx) => {
        for (let i = 0; i < 20; i++) await emitEvent(tx, 'test', `event ${i}`, { i }, { at, onlySubscriptionId: webhook.id });
      });
      received.length = 0;
      await pollUntil('20 ordered deliveries', async () => (await deliverDue({ timeoutMs: 20_000, batch: 50 }), received.filter((r) => r.path === '/order').length >= 20), { everyMs: 0 });
      expect(received.filter((r) => r.path === '/order').map((r) => JSON.parse(r.body).data.i)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    } finally {
      await db().webhookSubscription.update({ where: { id: webhook.id }, data: { active: false } });
    }
  });
});

describe('reports of a node the console has in no stage', () => {
  it('are stored and count in no stage', async () => {
    const c = await db().groupPolicy.findFirstOrThrow({ where: { group: { name: 'staging' } }, select: { policy: { select: { name: true } }, revision: { select: { revisionId: true } } } });
    const r = await ingestRunMessage({ kind: 'token' }, runMessage('unplaced-node', 'staging', c.policy.name, c.revision.revisionId, 'failure'));
    expect(r.status).toBe('failure');
    expect(await db().runReport.findFirstOrThrow({ where: { nodeName: 'unplaced-node' }, select: { groupName: true, policyName: true } })).toEqual({ groupName: null, policyName: null });
  });
});
