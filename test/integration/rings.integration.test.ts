/**
 * Issue 30: canary rings inside a stage. The Chef policy read answers each
 * signing node its ring's revision (the prepared-statement read path), and
 * the ring's life: start through the promotion guard (a protected stage opens
 * a request; its approval starts the ring), widening exactly once with two
 * concurrent callers, pause, freeze, roll back (only the ring's nodes return),
 * and the last step moving the stage's pointer. Runs on SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '@/lib/db/client';
import { inRing, ringSeed } from '@/lib/domain/rings';
import { ringStartChoices, advanceRings } from '@/lib/services/rings';
import { approvePromotionRequest } from '@/lib/services/promotion';
const { GET: listRings, POST: startRing } = apiRoutes('/api/v1/rings');
const { GET: getRing } = apiRoutes('/api/v1/rings/[id]');
const { POST: widen } = apiRoutes('/api/v1/rings/[id]/widen');
const { POST: pause } = apiRoutes('/api/v1/rings/[id]/pause');
const { POST: resume } = apiRoutes('/api/v1/rings/[id]/resume');
const { POST: rollback } = apiRoutes('/api/v1/rings/[id]/rollback');
import { startChefHarness, type ChefHarness } from '../chef-harness';
import { accessFor, call, snapshot, tokenFor } from '../helpers';
import { apiRoutes } from '@/test/helpers';

let chef: ChefHarness;
let admin: string;

/** A policy `stage` runs, and another revision of it. */
async function change(stage: string, exclude: string[] = []) {
  const rows = await db().groupPolicy.findMany({ where: { group: { name: stage } }, select: { policy: { select: { id: true, name: true } }, revision: { select: { revisionId: true } } }, orderBy: { policy: { name: 'asc' } } });
  for (const r of rows) {
    if (exclude.includes(r.policy.name)) continue;
    const other = await db().policyRevision.findFirst({ where: { policyId: r.policy.id, revisionId: { not: r.revision.revisionId } }, select: { revisionId: true }, orderBy: { revisionId: 'asc' } });
    if (other && !(await db().badRevision.findFirst({ where: { policyName: r.policy.name, revisionId: other.revisionId } }))) return { policy: r.policy.name, from: r.revision.revisionId, to: other.revisionId };
  }
  throw new Error(`no policy in ${stage} has another revision`);
}

const pointer = async (stage: string, policy: string) =>
  (await db().groupPolicy.findFirst({ where: { group: { name: stage }, policy: { name: policy } }, select: { revision: { select: { revisionId: true } } } }))?.revision.revisionId ?? null;

/** The revision the Chef policy read answers `node` (signed as its client). */
async function served(stage: string, policy: string, node: string): Promise<string> {
  // Issue 41: a client reads only its node's stage (or one it may enroll into): production is closed to enrollment,
  // so an administrator places the node there first.
  if (stage === 'production' && !(await db().node.findUnique({ where: { name: node }, select: { id: true } }))) {
    expect((await chef.request('POST', 'nodes', { as: 'admin', body: { name: node, policy_name: policy, policy_group: stage } })).status).toBe(201);
  }
  const res = await chef.request('GET', `policy_groups/${stage}/policies/${policy}`, { as: `client:${node}` });
  expect(res.status).toBe(200);
  return res.json.revision_id as string;
}

/** Node names of which exactly `inside` are in the 50% ring of stage × policy and the rest outside. */
function chooseNodes(stage: string, policy: string, prefix: string, inside: number, outside: number): { inRing: string[]; outRing: string[] } {
  const seed = ringSeed(stage, policy);
  const a: string[] = [];
  const b: string[] = [];
  for (let i = 0; a.length < inside || b.length < outside; i++) {
    const n = `${prefix}-${i}`;
    if (inRing({ seed, percent: 50 }, n)) {
      if (a.length < inside) a.push(n);
    } else if (b.length < outside) b.push(n);
  }
  return { inRing: a, outRing: b };
}

beforeAll(async () => {
  chef = await startChefHarness();
  admin = await tokenFor('admin@example.com');
});
afterAll(async () => chef.close());

describe('a ring in an unprotected stage', () => {
  let c: Awaited<ReturnType<typeof change>>;
  let nodes: { inRing: string[]; outRing: string[] };
  let ringId: string;

  beforeAll(async () => {
    c = await change('dev');
    nodes = chooseNodes('dev', c.policy, 'ring-dev', 3, 3);
    const [g, p] = await Promise.all([db().policyGroup.findUniqueOrThrow({ where: { name: 'dev' } }), db().policy.findUniqueOrThrow({ where: { name: c.policy } })]);
    for (const name of [...nodes.inRing, ...nodes.outRing]) await db().node.create({ data: { name, groupId: g.id, policyId: p.id, revisionApplied: c.from } });
  });

  it('refuses bad steps with a 400 naming the field, storing nothing', async () => {
    const before = snapshot({ except: ['ApiToken'] });
    const res = await call(startRing, 'POST', { token: admin, body: { stage: 'dev', policy: c.policy, revision_id: c.to, steps: [50, 25] } });
    expect(res.status).toBe(400);
    expect(res.json.errors[0].path).toMatch(/steps/);
    expect(res.text).toContain('each step widens the ring');
    expect(snapshot({ except: ['ApiToken'] })).toBe(before);
  });

  it('starts a 50% ring: the policy read answers ring nodes the new revision, the others the stage’s', async () => {
    const res = await call(startRing, 'POST', { token: admin, body: { stage: 'dev', policy: c.policy, revision_id: c.to, steps: [50, 100], reason: 'canary' } });
    expect(res.status).toBe(201);
    ringId = res.json.ring.id;
    expect(res.json.ring).toMatchObject({ status: 'active', step: 0, percent: 50, from_revision_id: c.from, to_revision_id: c.to });
    const servedNow = await Promise.all([...nodes.inRing, ...nodes.outRing].map((n) => served('dev', c.policy, n)));
    expect(servedNow).toEqual([...nodes.inRing.map(() => c.to), ...nodes.outRing.map(() => c.from)]);
    // A user (not a node) and the /api/v1 read see the stage's revision; the stage's pointer did not move.
    expect((await chef.request('GET', `policy_groups/dev/policies/${c.policy}`, { as: 'admin' })).json.revision_id).toBe(c.from);
    expect(await pointer('dev', c.policy)).toBe(c.from);
    // The API shows each node and what it is served.
    const detail = (await call(getRing, 'GET', { token: admin, params: { id: ringId } })).json.ring;
    const all = detail.step_nodes.flatMap((s: { nodes: unknown[] }) => s.nodes) as { name: string; serves: string; revision_id: string }[];
    for (const n of nodes.inRing) expect(all.find((x) => x.name === n)).toMatchObject({ serves: 'ring', revision_id: c.from });
    for (const n of nodes.outRing) expect(all.find((x) => x.name === n)).toMatchObject({ serves: 'stage' });
    // The stage's other (demo) nodes are in or out of the ring by the same rule.
    const seed = ringSeed('dev', c.policy);
    expect(detail.health.ring_nodes).toBe(all.filter((x) => inRing({ seed, percent: 50 }, x.name)).length);
    for (const x of all) expect(x.serves).toBe(inRing({ seed, percent: 50 }, x.name) ? 'ring' : 'stage');
    // One open ring per stage × policy.
    const again = await call(startRing, 'POST', { token: admin, body: { stage: 'dev', policy: c.policy, revision_id: c.to } });
    expect(again.status).toBe(409);
    expect(again.text).toContain('open ringed rollout');
    expect((await call(listRings, 'GET', { token: admin, query: 'open=true&stage=dev' })).json.rings.map((r: { id: string }) => r.id)).toEqual([ringId]);
  });

  it('pauses (widening refused) and resumes', async () => {
    expect((await call(pause, 'POST', { token: admin, params: { id: ringId } })).json.ring.status).toBe('paused');
    const refused = await call(widen, 'POST', { token: admin, params: { id: ringId } });
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('paused');
    // A paused ring keeps serving its nodes.
    expect(await served('dev', c.policy, nodes.inRing[0])).toBe(c.to);
    expect((await call(resume, 'POST', { token: admin, params: { id: ringId } })).json.ring.status).toBe('active');
  });

  it('rolls back: only the ring’s nodes return to the stage’s revision; the pointer never moved', async () => {
    const res = await call(rollback, 'POST', { token: admin, params: { id: ringId }, body: { reason: 'canary failed' } });
    expect(res.status).toBe(200);
    expect(res.json.ring.status).toBe('rolled_back');
    const returned: string[] = res.json.ring.returned_nodes;
    for (const n of nodes.inRing) expect(returned).toContain(n);
    for (const n of nodes.outRing) expect(returned).not.toContain(n);
    expect(returned.every((n) => inRing({ seed: ringSeed('dev', c.policy), percent: 50 }, n))).toBe(true);
    for (const n of [...nodes.inRing, ...nodes.outRing]) expect(await served('dev', c.policy, n)).toBe(c.from);
    expect(await pointer('dev', c.policy)).toBe(c.from);
    const events = await db().auditEvent.findMany({ where: { action: { startsWith: 'ring.' }, policyName: c.policy }, select: { action: true } });
    expect(events.map((e) => e.action).sort()).toEqual(['ring.pause', 'ring.resume', 'ring.rollback', 'ring.start']);
  });

  it('widens exactly once when two callers widen the same step at once, and the last step moves the pointer (in history)', async () => {
    const named = nodes.outRing[0];
    const start = await call(startRing, 'POST', { token: admin, body: { stage: 'dev', policy: c.policy, revision_id: c.to, steps: [10, 50, 100], nodes: [named] } });
    expect(start.status).toBe(201);
    const id = start.json.ring.id;
    expect(await served('dev', c.policy, named)).toBe(c.to);
    const both = await Promise.all([0, 1].map(() => call(widen, 'POST', { token: admin, params: { id }, body: { expected_step: 0 } })));
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    const ring = (await call(getRing, 'GET', { token: admin, params: { id } })).json.ring;
    expect(ring).toMatchObject({ step: 1, percent: 50, status: 'active' });
    expect(await db().auditEvent.count({ where: { action: 'ring.widen', policyName: c.policy } })).toBe(1);
    for (const n of nodes.inRing) expect(await served('dev', c.policy, n)).toBe(c.to);

    // A freeze stops widening.
    const g = await db().policyGroup.findUniqueOrThrow({ where: { name: 'dev' } });
    const freeze = await db().freezeWindow.create({ data: { groupId: g.id, startsAt: new Date(Date.now() - 60_000), endsAt: new Date(Date.now() + 3_600_000), reason: 'test freeze', createdByEmail: 'admin@example.com' } });
    const frozen = await call(widen, 'POST', { token: admin, params: { id } });
    expect(frozen.status).toBe(423);
    await db().freezeWindow.delete({ where: { id: freeze.id } });

    const done = await call(widen, 'POST', { token: admin, params: { id }, body: { expected_step: 1 } });
    expect(done.status).toBe(200);
    expect(done.json.ring.status).toBe('completed');
    expect(await pointer('dev', c.policy)).toBe(c.to);
    const history = await db().pointerHistory.findFirst({ where: { groupName: 'dev', policyName: c.policy }, orderBy: { createdAt: 'desc' } });
    expect(history).toMatchObject({ fromRevisionId: c.from, toRevisionId: c.to, kind: 'ring' });
    for (const n of [...nodes.inRing, ...nodes.outRing]) expect(await served('dev', c.policy, n)).toBe(c.to);
  });
});

describe('the rollout worker', () => {
  it('widens a ring once its step soaked, and not a gated ring whose nodes have not converged', async () => {
    const used = (await db().ringRollout.findMany({ select: { policyName: true } })).map((r) => r.policyName);
    const a = await change('dev', used);
    const b = await change('dev', [...used, a.policy]);
    const soaked = await call(startRing, 'POST', { token: admin, body: { stage: 'dev', policy: a.policy, revision_id: a.to, steps: [10, 50, 100], soak_minutes: 30 } });
    const gated = await call(startRing, 'POST', { token: admin, body: { stage: 'dev', policy: b.policy, revision_id: b.to, steps: [100], soak_minutes: 30, gate_on_convergence: true, nodes: ['ring-worker-node'] } });
    expect([soaked.status, gated.status]).toEqual([201, 201]);
    const g = await db().policyGroup.findUniqueOrThrow({ where: { name: 'dev' } });
    const p = await db().policy.findUniqueOrThrow({ where: { name: b.policy } });
    await db().node.create({ data: { name: 'ring-worker-node', groupId: g.id, policyId: p.id, revisionApplied: b.from, lastCheckIn: new Date() } });

    // Not soaked yet: nothing moves.
    expect(await advanceRings(new Date(Date.now() + 10 * 60_000))).toEqual({ widened: [], rolledBack: [] });
    // Soaked: the plain ring widens one step, once, even with two passes at once (two instances).
    const later = new Date(Date.now() + 31 * 60_000);
    const passes = await Promise.all([advanceRings(later), advanceRings(later)]);
    expect(passes.flatMap((x) => x.widened)).toEqual([soaked.json.ring.id]);
    const ring = (await call(getRing, 'GET', { token: admin, params: { id: soaked.json.ring.id } })).json.ring;
    expect(ring).toMatchObject({ step: 1, percent: 50, status: 'active' });
    // The gated ring waits for its node to converge the ring's revision.
    expect((await call(getRing, 'GET', { token: admin, params: { id: gated.json.ring.id } })).json.ring).toMatchObject({ step: 0, status: 'active' });
    const refused = await call(widen, 'POST', { token: admin, params: { id: gated.json.ring.id } });
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('has not converged');
    for (const id of [soaked.json.ring.id, gated.json.ring.id]) expect((await call(rollback, 'POST', { token: admin, params: { id } })).status).toBe(200);
  });
});

describe('a ring in a protected stage', () => {
  it('opens a promotion request sized by the diff; its approval starts the ring, and the last step needs no second approval', async () => {
    // api-gateway has the demo's pending request into production (by release@): another policy.
    const c = await change('production', ['api-gateway']);
    const release = await tokenFor('release@example.com');
    const res = await call(startRing, 'POST', { token: release, body: { stage: 'production', policy: c.policy, revision_id: c.to, steps: [50, 100] } });
    expect(res.status).toBe(202);
    expect(res.json.ring.status).toBe('pending_approval');
    const requestId = res.json.ring.request.id;
    const request = await db().promotionRequest.findUniqueOrThrow({ where: { id: requestId } });
    expect(request).toMatchObject({ kind: 'ring', status: 'pending', fromRevisionId: c.from, toRevisionId: c.to });
    // Not served while waiting.
    const { inRing: ringNodes } = chooseNodes('production', c.policy, 'ring-prod', 1, 0);
    expect(await served('production', c.policy, ringNodes[0])).toBe(c.from);

    await approvePromotionRequest(await accessFor('lead@example.com'), { id: requestId });
    const ring = (await call(getRing, 'GET', { token: release, params: { id: res.json.ring.id } })).json.ring;
    expect(ring).toMatchObject({ status: 'active', step: 0, percent: 50, approved_by: 'lead@example.com' });
    expect(await served('production', c.policy, ringNodes[0])).toBe(c.to);
    expect(await pointer('production', c.policy)).toBe(c.from);

    const done = await call(widen, 'POST', { token: release, params: { id: ring.id } });
    expect(done.status).toBe(200);
    expect(done.json.ring.status).toBe('completed');
    expect(await pointer('production', c.policy)).toBe(c.to);
  });

  it('refuses a viewer', async () => {
    const c = await change('staging');
    const viewer = await tokenFor('viewer@example.com');
    const res = await call(startRing, 'POST', { token: viewer, body: { stage: 'staging', policy: c.policy, revision_id: c.to } });
    expect(res.status).toBe(403);
  });
});

describe('the start form', () => {
  it("offers each policy's own newest revisions (newest first, at most 20), whatever other policies hold", async () => {
    const choices = await ringStartChoices(await accessFor('admin@example.com'));
    const policies = await db().policy.findMany({ select: { id: true, name: true } });
    expect(choices.policies.map((p) => p.name).sort()).toEqual(policies.map((p) => p.name).sort());
    for (const p of policies) {
      const own = await db().policyRevision.findMany({ where: { policyId: p.id }, select: { revisionId: true }, orderBy: [{ createdAt: 'desc' }, { revisionId: 'asc' }], take: 20 });
      expect(choices.policies.find((c) => c.name === p.name)!.revisions.map((r) => r.id), p.name).toEqual(own.map((r) => r.revisionId));
    }
  });
});
