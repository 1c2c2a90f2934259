/**
 * Issue 15: protected stages, promotion requests and approvals, freezes and
 * bad revisions, through every path into a stage (services, /api/v1 routes,
 * the Chef organization routes over signed HTTP).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes, accessFor, call, seed, tokenFor, refusal } from '@/test/helpers';
import { startChefHarness, type ChefHarness } from '@/test/chef-harness';
import { db } from '@/lib/db/client';
import type { Access } from '@/lib/auth/permissions';
import { isAppError } from '@/lib/errors';
import {
  promotePolicy,
  promotePolicies,
  rollback,
  approvePromotionRequest,
  getPromotionRequest,
  listPromotionRequests,
  rejectPromotionRequest,
  withdrawPromotionRequest,
  pendingRequestsByCell,
} from '@/lib/services/promotion';
import {
  addFreezeWindow,
  deleteFreezeWindow,
  liftStageProtection,
  setStageApprover,
  setStageProtection,
  markRevisionBad,
  unmarkRevisionBad,
  badRevisions,
} from '@/lib/services/guards';
import { stageGuardStates } from '@/lib/db/queries/stage-guard-state';
import { loadBoard } from '@/lib/db/queries/board';

/** Every visible stage's guard state, by name. */
const stageStatuses = async (a: Access) => Object.fromEntries((await stageGuardStates(a)).map((s) => [s.stage, s]));
import { pointerHistory } from '@/lib/services/stages';
import { DEMO_PROTECTION } from '@/lib/seed/demo-data';
const promoteRoute = apiRoutes('/api/v1/policy_groups/[group]/promote');
const cookbookRoute = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]/promote-cookbook');
const rollbackRoute = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]/rollback');
const groupPolicyRoute = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]');
const protectionRoute = apiRoutes('/api/v1/policy_groups/[group]/protection');
const guardRoute = apiRoutes('/api/v1/policy_groups/[group]/guard');
const freezesRoute = apiRoutes('/api/v1/policy_groups/[group]/freezes');
const freezeRoute = apiRoutes('/api/v1/policy_groups/[group]/freezes/[id]');
const requestsRoute = apiRoutes('/api/v1/promotion_requests');
const requestRoute = apiRoutes('/api/v1/promotion_requests/[id]');
const approveRoute = apiRoutes('/api/v1/promotion_requests/[id]/approve');
const rejectRoute = apiRoutes('/api/v1/promotion_requests/[id]/reject');
const withdrawRoute = apiRoutes('/api/v1/promotion_requests/[id]/withdraw');
const badRoute = apiRoutes('/api/v1/policies/[name]/revisions/[rev]/bad');
import { HOME_MEMBERSHIP } from '@/lib/services/organizations';

let chef: ChefHarness;
const A: Record<string, Access> = {};
const T: Record<string, string> = {};

async function active(stage: string, policy: string): Promise<string | null> {
  const row = await db().groupPolicy.findFirst({ where: { group: { name: stage }, policy: { name: policy } }, select: { revision: { select: { revisionId: true } } } });
  return row?.revision.revisionId ?? null;
}
async function documentOf(stage: string, policy: string): Promise<string> {
  const row = await db().groupPolicy.findFirstOrThrow({ where: { group: { name: stage }, policy: { name: policy } }, select: { revision: { select: { document: true } } } });
  return row.revision.document;
}
const pointerEvents = (requestId: string) =>
  db()
    .auditEvent.findMany({ where: { action: { startsWith: 'pointer.' } }, select: { after: true } })
    .then((rows) => rows.filter((r) => r.after && JSON.parse(r.after).promotion_request === requestId));

beforeAll(async () => {
  await seed();
  chef = await startChefHarness(); // the demo is already seeded: the harness leaves it as it is
  for (const u of ['admin', 'release', 'dev', 'viewer', 'lead']) {
    A[u] = await accessFor(`${u}@example.com`);
    T[u] = await tokenFor(`${u}@example.com`);
  }
  // With production unprotected for a moment: a second revision of monitoring there, so a rollback has somewhere to go.
  await liftStageProtection(A.admin, { stage: 'production' });
  await promotePolicy(A.admin, { policy: 'monitoring', from: 'staging', to: 'production', expectedRevisionId: await active('production', 'monitoring') });
  await setStageProtection(A.admin, { stage: 'production', approvalsRequired: 0, rules: DEMO_PROTECTION.production.rules, approvers: ['user:lead@example.com', 'user:admin@example.com', 'user:release@example.com'] });
});
afterAll(async () => chef?.close());

describe('the demo seed', () => {
  it('protects staging and production, with lead@ and admin@ approving, one pending request and one past freeze', async () => {
    const status = await stageStatuses(A.admin);
    expect(status.production.protected).toBe(true);
    expect(status.staging).toMatchObject({ protected: true, approvals_required: 0, rules: [{ kind: 'major_bump', approvals: 1 }] });
    expect(status.dev.protected).toBe(false);
    expect(status.production.frozen).toBeNull();
    const lead = await stageStatuses(A.lead);
    expect(lead.production.viewer_is_approver && lead.staging.viewer_is_approver).toBe(true);
    const seeded = await listPromotionRequests(A.lead, { status: 'pending', stage: 'production', policy: 'api-gateway' });
    expect(seeded).toHaveLength(1);
    expect(seeded[0]).toMatchObject({ requested_by: { email: 'release@example.com' }, viewer: { can_approve: true } });
    expect(await db().freezeWindow.count({ where: { endsAt: { lt: new Date() } } })).toBe(1);
  });
});

describe('one guard state for every reader (issue 22)', () => {
  it('the API, the board and the protection and freeze routes answer the same state', async () => {
    const viaApi = await call(guardRoute.GET, 'GET', { token: T.lead, params: { group: 'production' } });
    expect(viaApi.status).toBe(200);
    const [state] = await stageGuardStates(A.lead, { stages: ['production'] });
    expect(viaApi.json).toEqual(JSON.parse(JSON.stringify(state)));
    expect(viaApi.json).toMatchObject({ stage: 'production', protected: true, viewer_is_approver: true, pending_requests: 1 });
    const protection = await call(protectionRoute.GET, 'GET', { token: T.lead, params: { group: 'production' } });
    for (const k of ['protected', 'approvals_required', 'rules', 'approvers', 'updated_by', 'updated_at']) expect(protection.json[k]).toEqual(viaApi.json[k]);
    const freezes = await call(freezesRoute.GET, 'GET', { token: T.lead, params: { group: 'production' } });
    expect(freezes.json.freezes).toEqual(viaApi.json.freezes);
    const board = await loadBoard(A.lead);
    expect(JSON.parse(JSON.stringify(board.guards!.stages.production))).toEqual(viaApi.json);
    expect((await call(guardRoute.GET, 'GET', { token: T.admin, params: { group: 'nowhere' } })).status).toBe(404);
  });
});

describe('every path into a protected stage opens a request and moves nothing', () => {
  it('whole policy (service): webapp staging → production needs 2 approvals for the nginx major bump', async () => {
    const before = await active('production', 'webapp');
    const r = await promotePolicy(A.release, { policy: 'webapp', from: 'staging', to: 'production', expectedRevisionId: before, reason: 'nginx 12' });
    expect(r.changed).toBe(false);
    expect(r.request).toMatchObject({ status: 'pending', approvals_required: 2, approvals: [], stage: 'production', policy: 'webapp', from_revision_id: before, to_revision_id: await active('staging', 'webapp') });
    expect(r.request!.reasons[0].message).toMatch(/^2 approvals: .*nginx 11\.5\.0 → 12\.\d+\.\d+.* major bump/);
    expect(r.request!.blast_radius.nodes).toBe(8);
    expect(await active('production', 'webapp')).toBe(before);
    // Asking again answers the same open request.
    const again = await promotePolicy(A.release, { policy: 'webapp', from: 'staging', to: 'production', expectedRevisionId: before });
    expect(again.request!.id).toBe(r.request!.id);
  });

  it('single cookbook (API): 202 { request }, the derived revision stored, the pointer unchanged', async () => {
    const before = await active('production', 'api-gateway');
    const res = await call(cookbookRoute.POST, 'POST', { token: T.release, params: { group: 'production', name: 'api-gateway' }, body: { from: 'staging', cookbook: 'nginx', expected_revision_id: before } });
    expect(res.status).toBe(202);
    expect(res.json.request).toMatchObject({ status: 'pending', approvals: [], kind: 'promote-cookbook', origin: { cookbook: 'nginx', from_stage: 'staging' } });
    expect(res.json.request.approvals_required).toBeGreaterThanOrEqual(1);
    expect(Array.isArray(res.json.request.reasons)).toBe(true);
    expect(await active('production', 'api-gateway')).toBe(before);
  });

  it('bulk (API): 202 with one request per policy', async () => {
    const before = await active('production', 'haproxy-lb');
    const res = await call(promoteRoute.POST, 'POST', { token: T.release, params: { group: 'production' }, body: { from: 'staging', policies: ['haproxy-lb'], expected: { 'haproxy-lb': before } } });
    expect(res.status).toBe(202);
    expect(res.json.requests).toHaveLength(1);
    expect(res.json.request).toMatchObject({ status: 'pending', policy: 'haproxy-lb' });
    expect(await active('production', 'haproxy-lb')).toBe(before);
  });

  it('rollback (API): 202 { request }', async () => {
    const now = await active('production', 'monitoring');
    const history = await pointerHistory('production', 'monitoring');
    const previous = history.find((h) => h.toRevisionId && h.toRevisionId !== now)!.toRevisionId!;
    const res = await call(rollbackRoute.POST, 'POST', { token: T.release, params: { group: 'production', name: 'monitoring' }, body: { to_revision_id: previous, expected_revision_id: now, reason: 'alerts broke' } });
    expect(res.status).toBe(202);
    expect(res.json.request).toMatchObject({ status: 'pending', kind: 'rollback', to_revision_id: previous });
    expect(await active('production', 'monitoring')).toBe(now);
  });

  it('PUT on /api/v1 (a lock body): 202 { request }', async () => {
    const before = await active('production', 'redis-cache');
    const doc = await documentOf('staging', 'redis-cache');
    // redis-cache's staging lock into production via the Chef-style PUT of the console API.
    const res = await call(groupPolicyRoute.PUT, 'PUT', { token: T.release, params: { group: 'production', name: 'redis-cache' }, body: doc });
    expect(res.status).toBe(202);
    expect(res.json.request).toMatchObject({ status: 'pending', kind: 'set', policy: 'redis-cache' });
    expect(await active('production', 'redis-cache')).toBe(before);
  });

  it('DELETE on /api/v1: 202 { request }, the policy stays', async () => {
    const before = await active('production', 'bastion');
    const res = await call(groupPolicyRoute.DELETE, 'DELETE', { token: T.release, params: { group: 'production', name: 'bastion' } });
    expect(res.status).toBe(202);
    expect(res.json.request).toMatchObject({ kind: 'remove', to_revision_id: null });
    expect(await active('production', 'bastion')).toBe(before);
  });

  it('Chef PUT (chef push): 403 naming the request URL, nothing moves', async () => {
    const before = await active('production', 'webapp');
    const doc = await documentOf('qa', 'webapp');
    const r = await chef.request('PUT', 'policy_groups/production/policies/webapp', { as: 'release', body: doc });
    expect(r.status).toBe(403);
    expect(r.json.error[0]).toMatch(/requires approval .*Promotion request \S+ was opened .*\/requests\//);
    // Chef's body is exactly { error: [message] }: the request's id and URL are in the message chef push prints.
    const id = /Promotion request (\S+) was opened/.exec(r.json.error[0])![1];
    expect(r.json.error[0]).toContain(`/requests/${id}`);
    expect((await getPromotionRequest(A.release, id)).status).toBe('pending');
    expect(await active('production', 'webapp')).toBe(before);
    // And DELETE through Chef is a request too.
    const d = await chef.request('DELETE', 'policy_groups/production/policies/bastion', { as: 'release' });
    expect(d.status).toBe(403);
    expect(await active('production', 'bastion')).not.toBeNull();
  });

  it('deleting a policy or a stage cannot remove a policy from a protected stage without approval (409, nothing changes)', async () => {
    const { deletePolicy } = await import('@/lib/services/policies');
    const { deleteStage } = await import('@/lib/services/stages');
    const e = await refusal(deletePolicy(A.admin, 'ntp-server'));
    expect(e.status).toBe(409);
    expect(e.message).toMatch(/protected stage/);
    expect(await active('production', 'ntp-server')).not.toBeNull();
    expect((await refusal(deleteStage(A.admin, 'production'))).status).toBe(409);
    expect(await db().policyGroup.count({ where: { name: 'production' } })).toBe(1);
  });

  it('an unprotected stage moves at once; staging (major bumps only) moves a minor change at once', async () => {
    const r = await promotePolicy(A.dev, { policy: 'jenkins-ci', from: 'dev', to: 'qa', expectedRevisionId: await active('qa', 'jenkins-ci') });
    expect(r.request).toBeUndefined();
    const s = await promotePolicy(A.release, { policy: 'api-gateway', from: 'qa', to: 'staging', expectedRevisionId: await active('staging', 'api-gateway') });
    expect(s.request).toBeUndefined();
  });
});

describe('approvals', () => {
  let id: string;
  let target: string;
  beforeAll(async () => {
    const r = await promotePolicy(A.release, { policy: 'webapp', from: 'staging', to: 'production', expectedRevisionId: await active('production', 'webapp') });
    id = r.request!.id;
    target = r.request!.to_revision_id!;
  });

  it('the requester cannot approve their own request, even as an approver', async () => {
    const res = await call(approveRoute.POST, 'POST', { token: T.release, params: { id } });
    expect(res.status).toBe(403);
    expect(res.json.error[0]).toMatch(/You asked for this change/);
  });

  it('a non-approver is refused', async () => {
    const res = await call(approveRoute.POST, 'POST', { token: T.dev, params: { id }, body: {} });
    expect(res.status).toBe(403);
    expect(res.json.error[0]).toMatch(/only its approvers may/);
    const hidden = await call(requestRoute.GET, 'GET', { token: T.viewer, params: { id } });
    expect(hidden.status).toBe(200); // viewer sees production
  });

  it('two approvals apply it through movePointer: one pointer event, the history names the request', async () => {
    const first = await call(approveRoute.POST, 'POST', { token: T.lead, params: { id }, body: { comment: 'looks right' } });
    expect(first.status).toBe(200);
    expect(first.json.request).toMatchObject({ status: 'pending', approvals: [{ email: 'lead@example.com', comment: 'looks right' }] });
    const twice = await call(approveRoute.POST, 'POST', { token: T.lead, params: { id }, body: {} });
    expect(twice.status).toBe(409);
    const second = await call(approveRoute.POST, 'POST', { token: T.admin, params: { id }, body: {} });
    expect(second.status).toBe(200);
    expect(second.json.request.status).toBe('applied');
    expect(await active('production', 'webapp')).toBe(target);
    const events = await pointerEvents(id);
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0].after!).approved_by).toEqual(['lead@example.com', 'admin@example.com']);
    const h = (await pointerHistory('production', 'webapp'))[0];
    expect(h.actor).toBe('release@example.com');
    expect(h.reason).toContain(`approved request ${id}`);
    const late = await call(approveRoute.POST, 'POST', { token: T.lead, params: { id }, body: {} });
    expect(late.status).toBe(409);
  });

  it('an outdated request never applies', async () => {
    // base: production runs revision 1, qa revision 2. Request A: 1 → 2. Request B: 1 → 0, approved first.
    const base = (await active('production', 'base'))!;
    const a = (await promotePolicy(A.release, { policy: 'base', from: 'qa', to: 'production', expectedRevisionId: base })).request!;
    const rev0 = (await db().policyRevision.findFirstOrThrow({ where: { policy: { name: 'base' }, revisionId: { notIn: [base, a.to_revision_id!] } }, select: { revisionId: true } })).revisionId;
    const b = (await promotePolicy(A.release, { policy: 'base', from: `rev:${rev0}`, to: 'production', expectedRevisionId: base })).request!;
    expect(b.id).not.toBe(a.id);
    for (const u of ['lead', 'admin'].slice(0, b.approvals_required)) await approvePromotionRequest(A[u], { id: b.id });
    expect(await active('production', 'base')).toBe(rev0);
    // Issue 29: the first approval finds production moved: refused (409), not recorded, the request outdated.
    expect((await refusal(approvePromotionRequest(A.lead, { id: a.id }))).status).toBe(409);
    const after = await getPromotionRequest(A.release, a.id);
    expect(after.status).toBe('outdated');
    expect(after.approvals).toHaveLength(0);
    expect(await active('production', 'base')).toBe(rev0);
    expect(await pointerEvents(a.id)).toHaveLength(0);
    expect(await db().auditEvent.count({ where: { action: 'request.outdated', after: { contains: a.id } } })).toBe(1);
  });

  it('reject closes the request (comment required); withdraw by the requester', async () => {
    const r = (await promotePolicy(A.release, { policy: 'logstash-shipper', from: 'qa', to: 'production', expectedRevisionId: await active('production', 'logstash-shipper') })).request!;
    const noComment = await call(rejectRoute.POST, 'POST', { token: T.lead, params: { id: r.id }, body: {} });
    expect(noComment.status).toBe(400);
    expect(noComment.json.errors[0].path).toBe('/comment');
    const rejected = await call(rejectRoute.POST, 'POST', { token: T.lead, params: { id: r.id }, body: { comment: 'not before the audit' } });
    expect(rejected.status).toBe(200);
    expect(rejected.json.request).toMatchObject({ status: 'rejected', rejections: [{ email: 'lead@example.com', comment: 'not before the audit' }] });
    const w = (await promotePolicy(A.release, { policy: 'logstash-shipper', from: 'qa', to: 'production', expectedRevisionId: await active('production', 'logstash-shipper') })).request!;
    expect(w.id).not.toBe(r.id);
    expect((await call(withdrawRoute.POST, 'POST', { token: T.lead, params: { id: w.id } })).status).toBe(403);
    const done = await call(withdrawRoute.POST, 'POST', { token: T.release, params: { id: w.id } });
    expect(done.json.request.status).toBe('withdrawn');
  });

  it('a stale request expires (lazily) and can no longer be approved', async () => {
    const r = (await promotePolicy(A.release, { policy: 'mysql-replica', from: 'qa', to: 'production', expectedRevisionId: await active('production', 'mysql-replica') })).request!;
    await db().promotionRequest.update({ where: { id: r.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await getPromotionRequest(A.lead, r.id)).status).toBe('expired');
    const res = await call(approveRoute.POST, 'POST', { token: T.lead, params: { id: r.id }, body: {} });
    expect(res.status).toBe(409);
    expect(res.json.error[0]).toMatch(/expired/);
  });

  it('lists with filters and scopes', async () => {
    const res = await call(requestsRoute.GET, 'GET', { token: T.lead, query: 'stage=production&status=applied&policy=webapp' });
    expect(res.status).toBe(200);
    expect(res.json.requests.length).toBeGreaterThanOrEqual(1);
    expect(res.json.requests.every((r: any) => r.status === 'applied' && r.policy === 'webapp' && r.stage === 'production')).toBe(true);
    const toApprove = await listPromotionRequests(A.lead, { scope: 'to_approve' });
    expect(toApprove.every((r) => r.status === 'pending' && r.viewer!.can_approve)).toBe(true);
    const mine = await listPromotionRequests(A.release, { scope: 'mine' });
    expect(mine.length).toBeGreaterThan(3);
    expect(mine.every((r) => r.requested_by.email === 'release@example.com')).toBe(true);
    const badStatus = await call(requestsRoute.GET, 'GET', { token: T.lead, query: 'status=nope' });
    expect(badStatus.status).toBe(400);
    const cells = await pendingRequestsByCell(A.lead);
    expect(Object.keys(cells).every((k) => k.includes('/'))).toBe(true);
  });

  it('20 concurrent approvals apply a request exactly once, with one pointer audit event', async () => {
    const team = await db().team.create({ data: { name: 'approvers20' } });
    const users = [];
    for (let i = 0; i < 20; i++) {
      const u = await db().user.create({ data: { email: `appr${i}@example.com`, name: `Approver ${i}`, passwordHash: 'x', orgMemberships: HOME_MEMBERSHIP } });
      await db().teamMember.create({ data: { teamId: team.id, userId: u.id } });
      await db().groupPermission.create({ data: { groupId: (await db().policyGroup.findUniqueOrThrow({ where: { name: 'production' } })).id, userId: u.id, level: 'view' } });
      users.push(u);
    }
    await setStageApprover(A.admin, { stage: 'production', subject: { type: 'team', name: 'approvers20' }, approver: true });
    const r = (await promotePolicy(A.release, { policy: 'mysql-primary', from: 'staging', to: 'production', expectedRevisionId: await active('production', 'mysql-primary') })).request;
    expect(r).toBeDefined();
    const accesses = await Promise.all(users.map((u) => accessFor(u.email)));
    const results = await Promise.allSettled(accesses.map((a) => approvePromotionRequest(a, { id: r!.id })));
    const ok = results.filter((x) => x.status === 'fulfilled').length;
    expect(ok).toBeGreaterThanOrEqual(r!.approvals_required);
    for (const x of results) if (x.status === 'rejected') expect((x.reason as { status?: number }).status).toBe(409);
    const final = await getPromotionRequest(A.admin, r!.id);
    expect(final.status).toBe('applied');
    expect(final.approvals).toHaveLength(r!.approvals_required);
    expect(await pointerEvents(r!.id)).toHaveLength(1);
    expect(await active('production', 'mysql-primary')).toBe(r!.to_revision_id);
    const applied = await db().auditEvent.count({ where: { action: 'request.approve', after: { contains: r!.id } } });
    expect(applied).toBe(r!.approvals_required);
  });
});

describe('administrators approve only where granted', () => {
  it('an admin who is not an approver of the stage is refused; granted, they may approve', async () => {
    await setStageProtection(A.admin, { stage: 'qa', approvalsRequired: 1, rules: [], approvers: ['user:lead@example.com'] });
    try {
      const r = (await promotePolicy(A.dev, { policy: 'mysql-replica', from: 'staging', to: 'qa', expectedRevisionId: await active('qa', 'mysql-replica') })).request!;
      expect(r.approvals_required).toBe(1);
      const refused = await refusal(approvePromotionRequest(A.admin, { id: r.id }));
      expect(refused.status).toBe(403);
      expect(refused.message).toMatch(/only its approvers may/);
      await setStageApprover(A.admin, { stage: 'qa', subject: { type: 'user', email: 'admin@example.com' }, approver: true });
      expect((await approvePromotionRequest(A.admin, { id: r.id })).status).toBe('applied');
    } finally {
      await liftStageProtection(A.admin, { stage: 'qa' });
    }
  });
});

describe('protection API', () => {
  it('PUT validates the rules and needs manage', async () => {
    const bad = await call(protectionRoute.PUT, 'PUT', { token: T.admin, params: { group: 'qa' }, body: { approvals_required: 1, rules: [{ kind: 'attribute_path', approvals: 2, patterns: [] }] } });
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0].path).toBe('/rules/0/patterns');
    const missing = await call(protectionRoute.PUT, 'PUT', { token: T.admin, params: { group: 'qa' }, body: { rules: [] } });
    expect(missing.status).toBe(400);
    expect(missing.json.errors[0].path).toBe('/approvals_required');
    const refused = await call(protectionRoute.PUT, 'PUT', { token: T.dev, params: { group: 'qa' }, body: { approvals_required: 1, rules: [] } });
    expect(refused.status).toBe(403);
    const ok = await call(protectionRoute.PUT, 'PUT', { token: T.admin, params: { group: 'qa' }, body: { approvals_required: 1, rules: [{ kind: 'major_bump', approvals: 2 }], approvers: ['user:lead@example.com'] } });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ protected: true, approvals_required: 1, approvers: [{ principal: 'user:lead@example.com' }] });
    const off = await call(protectionRoute.DELETE, 'DELETE', { token: T.admin, params: { group: 'qa' } });
    expect(off.json.protected).toBe(false);
  });
});

describe('freezes', () => {
  it('a freeze refuses promotions with 423 (reason and end); a manager overrides with a reason, audited and in the history', async () => {
    const now = Date.now();
    const created = await call(freezesRoute.POST, 'POST', { token: T.admin, params: { group: 'qa' }, body: { starts_at: new Date(now - 60_000).toISOString(), ends_at: new Date(now + 3_600_000).toISOString(), reason: 'Load test running' } });
    expect(created.status).toBe(201);
    const id = created.json.freeze.id;
    expect(created.json.freeze.active).not.toBeNull();
    const expected = await active('qa', 'logstash-shipper');
    expect(expected).not.toBe(await active('staging', 'logstash-shipper'));
    const refused = await call(promoteRoute.POST, 'POST', { token: T.dev, params: { group: 'qa' }, body: { from: 'staging', policies: ['logstash-shipper'], expected: { 'logstash-shipper': expected } } });
    expect(refused.status).toBe(423);
    expect(refused.json.error[0]).toMatch(/frozen until .*Load test running/);
    expect(refused.json.freeze).toMatchObject({ reason: 'Load test running', id });
    const status = await stageStatuses(A.dev);
    expect(status.qa.frozen).toMatchObject({ reason: 'Load test running', window_id: id });
    // dev promotes into qa but does not manage it: no override.
    const notManager = await call(promoteRoute.POST, 'POST', { token: T.dev, params: { group: 'qa' }, body: { from: 'staging', policies: ['logstash-shipper'], expected: { 'logstash-shipper': expected }, override_reason: 'urgent' } });
    expect(notManager.status).toBe(403);
    const overridden = await call(promoteRoute.POST, 'POST', { token: T.admin, params: { group: 'qa' }, body: { from: 'staging', policies: ['logstash-shipper'], expected: { 'logstash-shipper': expected }, override_reason: 'hotfix for the load test' } });
    expect(overridden.status).toBe(200);
    const event = await db().auditEvent.findUniqueOrThrow({ where: { id: overridden.json.promoted[0].auditId } });
    expect(JSON.parse(event.after!).freeze_override).toMatchObject({ reason: 'hotfix for the load test', window: { reason: 'Load test running' } });
    expect((await pointerHistory('qa', 'logstash-shipper'))[0].reason).toMatch(/freeze override \(Load test running\): hotfix for the load test/);
    // Rollback and Chef PUT are refused too.
    const chefPut = await chef.request('PUT', 'policy_groups/qa/policies/webapp', { as: 'admin', body: await documentOf('staging', 'webapp') });
    expect(chefPut.status).toBe(423);
    const del = await call(freezeRoute.DELETE, 'DELETE', { token: T.admin, params: { group: 'qa', id } });
    expect(del.status).toBe(200);
    expect((await stageStatuses(A.dev)).qa.frozen).toBeNull();
  });

  it('an approval that would apply during a freeze is refused (423) and not recorded; a managing approver overrides', async () => {
    // collectd-agent runs revision 1 everywhere: ask for revision 0 in production.
    const current = (await active('production', 'collectd-agent'))!;
    const rev0 = (await db().policyRevision.findFirstOrThrow({ where: { policy: { name: 'collectd-agent' }, revisionId: { not: current } }, select: { revisionId: true } })).revisionId;
    const r = (await promotePolicy(A.release, { policy: 'collectd-agent', from: `rev:${rev0}`, to: 'production', expectedRevisionId: current })).request!;
    const w = await addFreezeWindow(A.admin, { stage: 'production', startsAt: new Date(Date.now() - 1000), endsAt: new Date(Date.now() + 3_600_000), reason: 'Black Friday' });
    let approvedSoFar = 0;
    if (r.approvals_required > 1) {
      await approvePromotionRequest(A.lead, { id: r.id });
      approvedSoFar = 1;
    }
    const last = r.approvals_required > 1 ? A.admin : A.lead;
    const e = await refusal(approvePromotionRequest(last, { id: r.id }));
    expect(e.status).toBe(423);
    expect((await getPromotionRequest(A.admin, r.id)).approvals).toHaveLength(approvedSoFar);
    if (last === A.lead) {
      // lead does not manage production: no override.
      expect((await refusal(approvePromotionRequest(A.lead, { id: r.id, overrideReason: 'please' }))).status).toBe(403);
      await approvePromotionRequest(A.admin, { id: r.id, overrideReason: 'customer outage fix' });
    } else {
      await approvePromotionRequest(A.admin, { id: r.id, overrideReason: 'customer outage fix' });
    }
    expect((await getPromotionRequest(A.admin, r.id)).status).toBe('applied');
    // Issue 29: the override is the approver's (admin), not the requester's (release): history and audit name admin.
    expect((await pointerHistory('production', r.policy))[0].reason).toMatch(/freeze override by admin@example\.com \(Black Friday\): customer outage fix/);
    const overrideEvent = await db().auditEvent.findFirstOrThrow({ where: { action: 'freeze.override', after: { contains: r.id } } });
    expect(overrideEvent.actorEmail).toBe('admin@example.com');
    await deleteFreezeWindow(A.admin, { stage: 'production', id: w.id });
  });

  it('weekly windows and validation', async () => {
    const bad = await call(freezesRoute.POST, 'POST', { token: T.admin, params: { group: 'dev' }, body: { starts_at: '2026-01-02T00:00:00Z', ends_at: '2026-01-01T00:00:00Z', reason: 'x' } });
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0].path).toBe('/ends_at');
    const noReason = await call(freezesRoute.POST, 'POST', { token: T.admin, params: { group: 'dev' }, body: { starts_at: '2026-01-01T00:00:00Z', ends_at: '2026-01-02T00:00:00Z' } });
    expect(noReason.status).toBe(400);
    expect(noReason.json.errors[0].path).toBe('/reason');
    const notManager = await call(freezesRoute.POST, 'POST', { token: T.dev, params: { group: 'dev' }, body: { starts_at: '2026-01-01T00:00:00Z', ends_at: '2026-01-02T00:00:00Z', reason: 'x' } });
    expect(notManager.status).toBe(403);
    const weekly = await call(freezesRoute.POST, 'POST', { token: T.admin, params: { group: 'dev' }, body: { starts_at: '2026-01-02T16:00:00Z', ends_at: '2026-01-05T06:00:00Z', reason: 'weekend', weekly: true } });
    expect(weekly.status).toBe(201);
    expect(weekly.json.freeze.next).not.toBeNull();
    await deleteFreezeWindow(A.admin, { stage: 'dev', id: weekly.json.freeze.id });
  });
});

describe('bad revisions', () => {
  it('a bad revision cannot be promoted or rolled back to anywhere, on any route (409 naming who and why)', async () => {
    const rev = (await active('qa', 'webapp'))!;
    // viewer may not mark; dev (owner team web) may.
    expect((await call(badRoute.PUT, 'PUT', { token: T.viewer, params: { name: 'webapp', rev }, body: { reason: 'x' } })).status).toBe(403);
    const noReason = await call(badRoute.PUT, 'PUT', { token: T.dev, params: { name: 'webapp', rev }, body: {} });
    expect(noReason.status).toBe(400);
    const marked = await call(badRoute.PUT, 'PUT', { token: T.dev, params: { name: 'webapp', rev }, body: { reason: 'memory leak in webapp 1.5.2' } });
    expect(marked.status).toBe(200);
    expect(marked.json.bad_revision).toMatchObject({ marked_by: 'dev@example.com', reason: 'memory leak in webapp 1.5.2' });
    expect((await call(badRoute.PUT, 'PUT', { token: T.dev, params: { name: 'webapp', rev }, body: { reason: 'again' } })).status).toBe(409);
    expect((await badRevisions(['webapp']))[`webapp@${rev}`]).toBeDefined();

    const e1 = await refusal(promotePolicy(A.release, { policy: 'webapp', from: 'qa', to: 'staging', expectedRevisionId: await active('staging', 'webapp') }));
    expect(e1.status).toBe(409);
    expect(e1.message).toMatch(/marked bad by dev@example.com .*memory leak/);
    expect((await refusal(promotePolicy(A.admin, { policy: 'webapp', from: `rev:${rev}`, to: 'production', expectedRevisionId: await active('production', 'webapp') }))).status).toBe(409);
    const api = await call(groupPolicyRoute.PUT, 'PUT', { token: T.release, params: { group: 'staging', name: 'webapp' }, body: await documentOf('qa', 'webapp') });
    expect(api.status).toBe(409);
    const c = await chef.request('PUT', 'policy_groups/staging/policies/webapp', { as: 'release', body: await documentOf('qa', 'webapp') });
    expect(c.status).toBe(409);
    expect(c.json.error[0]).toMatch(/marked bad/);
    // Rollback to it: dev's qa moved away from it first (unguarded stage), then back is refused.
    await promotePolicy(A.dev, { policy: 'webapp', from: 'staging', to: 'dev', expectedRevisionId: await active('dev', 'webapp') });
    const rb = await refusal(rollback(A.dev, { policy: 'webapp', group: 'dev', toRevisionId: rev, expectedRevisionId: await active('dev', 'webapp'), reason: 'back' }));
    expect(rb.status).toBe(409);

    const un = await call(badRoute.DELETE, 'DELETE', { token: T.dev, params: { name: 'webapp', rev } });
    expect(un.status).toBe(200);
    const r = await rollback(A.dev, { policy: 'webapp', group: 'dev', toRevisionId: rev, expectedRevisionId: await active('dev', 'webapp'), reason: 'back' });
    expect(r.changed).toBe(true);
    await unmarkRevisionBad(A.dev, { policy: 'webapp', revisionId: rev }).catch((e) => expect(e.status).toBe(404));
  });

  it('a request made before the mark does not apply a bad revision', async () => {
    const r = (await promotePolicy(A.release, { policy: 'redis-cache', from: 'staging', to: 'production', expectedRevisionId: await active('production', 'redis-cache') })).request!;
    expect(r.status).toBe('pending');
    await markRevisionBad(A.admin, { policy: 'redis-cache', revisionId: r.to_revision_id!, reason: 'broken cache config' });
    const approvals = r.approvals_required > 1 ? [A.lead, A.admin] : [A.lead];
    let refused = 0;
    for (const a of approvals) await approvePromotionRequest(a, { id: r.id }).catch((e) => (refused += isAppError(e) && e.status === 409 ? 1 : 0));
    expect(refused).toBe(1);
    expect(await active('production', 'redis-cache')).toBe(r.from_revision_id);
    await unmarkRevisionBad(A.admin, { policy: 'redis-cache', revisionId: r.to_revision_id! });
    await withdrawPromotionRequest(A.release, { id: r.id });
    await rejectPromotionRequest(A.lead, { id: r.id, comment: 'x' }).catch((e) => expect(e.status).toBe(409));
  });
});

describe('OpenAPI', () => {
  it('documents every guarded-stage endpoint and the 202/423 answers', async () => {
    const openapi = apiRoutes('/api/v1/openapi.json');
    const doc = await (await openapi.GET(new Request('http://localhost/api/v1/openapi.json'), { params: Promise.resolve({}) })).json();
    for (const p of [
      '/policy_groups/{group}/protection',
      '/policy_groups/{group}/freezes',
      '/policy_groups/{group}/freezes/{id}',
      '/promotion_requests',
      '/promotion_requests/{id}',
      '/promotion_requests/{id}/approve',
      '/promotion_requests/{id}/reject',
      '/promotion_requests/{id}/withdraw',
      '/policies/{name}/revisions/{rev}/bad',
      '/webhooks',
      '/webhooks/{id}',
      '/webhooks/{id}/deliveries',
    ]) {
      expect(doc.paths[p], p).toBeDefined();
    }
    expect(doc.paths['/policy_groups/{group}/promote'].post.responses['202']).toBeDefined();
    expect(doc.paths['/policy_groups/{group}/policies/{name}'].put.responses['423']).toBeDefined();
    const accepted = doc.paths['/policy_groups/{group}/policies/{name}/rollback'].post.responses['202'].content['application/json'].schema;
    expect(accepted.properties.request.required).toEqual(['id', 'status', 'approvals_required', 'approvals', 'reasons']);
  });
});
