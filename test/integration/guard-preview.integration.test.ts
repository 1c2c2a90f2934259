/**
 * Issue 29: the guard's dry run (POST /api/v1/policy_groups/:g/policies/:p/preview)
 * answers what movePointer then does — moves now, a request with N approvals,
 * a freeze with and without the right to override, a bad revision, an unmet
 * gate — and writes nothing; a freeze override given by the last approver is
 * recorded as the approver's (history, audit, the freeze.overridden webhook);
 * an approval of a request whose stage has moved is refused, not recorded.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes, accessFor, call, seed, tokenFor, refusal } from '@/test/helpers';
import { db } from '@/lib/db/client';
import type { Access } from '@/lib/auth/permissions';
import { promotePolicy, previewMove, approvePromotionRequest, getPromotionRequest, pendingApprovalCount } from '@/lib/services/promotion';
import { addFreezeWindow, deleteFreezeWindow, markRevisionBad, unmarkRevisionBad } from '@/lib/services/guards';
import { setStageRolloutRule } from '@/lib/services/runs';
import { createWebhook } from '@/lib/services/webhooks';
import { pointerHistory } from '@/lib/services/stages';
import { composePolicy } from '@/lib/services/compose';
const previewRoute = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]/preview');

const A: Record<string, Access> = {};
let releaseToken = '';

async function active(stage: string, policy: string): Promise<string | null> {
  const row = await db().groupPolicy.findFirst({ where: { group: { name: stage }, policy: { name: policy } }, select: { revision: { select: { revisionId: true } } } });
  return row?.revision.revisionId ?? null;
}
/** A policy whose revision in `from` differs from `to`'s. */
async function differing(from: string, to: string, skip: string[] = []): Promise<string> {
  const rows = await db().groupPolicy.findMany({ where: { group: { name: { in: [from, to] } } }, select: { group: { select: { name: true } }, policy: { select: { name: true } }, revision: { select: { revisionId: true } } } });
  const by = new Map<string, Record<string, string>>();
  for (const r of rows) by.set(r.policy.name, { ...by.get(r.policy.name), [r.group.name]: r.revision.revisionId });
  const name = [...by.entries()].find(([n, v]) => !skip.includes(n) && v[from] && v[to] && v[from] !== v[to])?.[0];
  if (!name) throw new Error(`no policy differs between ${from} and ${to}`);
  return name;
}

beforeAll(async () => {
  await seed();
  for (const u of ['admin', 'release', 'lead', 'viewer', 'dev']) A[u] = await accessFor(`${u}@example.com`);
  releaseToken = await tokenFor('release@example.com');
});

describe('the guard dry run', () => {
  it('into a protected stage: a request with the approvals the real move then asks for, and nothing is written', async () => {
    const policy = await differing('staging', 'production');
    const before = await db().auditEvent.count();
    const res = await call(previewRoute.POST, 'POST', { token: releaseToken, params: { group: 'production', name: policy }, body: { kind: 'promote', from: 'staging' } });
    expect(res.status).toBe(200);
    const p = res.json;
    expect(p).toMatchObject({ stage: 'production', policy, outcome: 'request', protected: true, from_revision_id: await active('production', policy), to_revision_id: await active('staging', policy) });
    expect(p.approvals_required).toBeGreaterThan(0);
    expect(p.action).toBe(`Request ${p.approvals_required} approval${p.approvals_required === 1 ? '' : 's'}`);
    expect(p.reasons.length).toBeGreaterThan(0);
    expect(await db().auditEvent.count()).toBe(before);
    const real = await promotePolicy(A.release, { policy, from: 'staging', to: 'production', expectedRevisionId: p.from_revision_id });
    expect(real.request?.approvals_required).toBe(p.approvals_required);
    expect(real.request?.reasons.map((r) => r.message)).toEqual(p.reasons.map((r: { message: string }) => r.message));
    // A bad field is a 400 naming it.
    const bad = await call(previewRoute.POST, 'POST', { token: releaseToken, params: { group: 'production', name: policy }, body: { kind: 'sideways' } });
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0].path).toBe('/kind');
    // The kind's required field, checked at the edge under the client's names (issue 22: one rule, one home).
    const noTarget = await call(previewRoute.POST, 'POST', { token: releaseToken, params: { group: 'production', name: policy }, body: { kind: 'rollback' } });
    expect(noTarget.status).toBe(400);
    expect(noTarget.json.errors).toEqual([{ path: '/to_revision_id', message: "to_revision_id is required for kind 'rollback'" }]);
    const noCookbook = await call(previewRoute.POST, 'POST', { token: releaseToken, params: { group: 'production', name: policy }, body: { kind: 'promote-cookbook', from: 'staging' } });
    expect(noCookbook.status).toBe(400);
    expect(noCookbook.json.errors.map((e: { path: string }) => e.path)).toEqual(['/cookbook']);
    const unknownField = await call(previewRoute.POST, 'POST', { token: releaseToken, params: { group: 'production', name: policy }, body: { kind: 'rollback', revision_id: 'x' } });
    expect(unknownField.status).toBe(400);
  });

  it('into an unprotected stage: moves now, and it does', async () => {
    const policy = await differing('qa', 'dev');
    const p = await previewMove(A.dev, { policy, stage: 'dev', kind: 'promote', from: 'qa' });
    expect(p).toMatchObject({ outcome: 'move', action: 'Move now', protected: false, approvals_required: 0, blocked_by: [] });
    const real = await promotePolicy(A.dev, { policy, from: 'qa', to: 'dev', expectedRevisionId: p.from_revision_id });
    expect(real.changed).toBe(true);
    expect(await previewMove(A.dev, { policy, stage: 'dev', kind: 'promote', from: 'qa' })).toMatchObject({ outcome: 'unchanged' });
  });

  it('a freeze: refused for those who may not override, an override for a manager; a bad revision; an unmet gate', async () => {
    const policy = await differing('qa', 'staging');
    const w = await addFreezeWindow(A.admin, { stage: 'staging', startsAt: new Date(Date.now() - 60_000), endsAt: new Date(Date.now() + 3_600_000), reason: 'Preview freeze' });
    const release = await previewMove(A.release, { policy, stage: 'staging', kind: 'promote', from: 'qa' });
    expect(release).toMatchObject({ outcome: 'blocked', action: 'Frozen', freeze: { reason: 'Preview freeze', may_override: false } });
    const admin = await previewMove(A.admin, { policy, stage: 'staging', kind: 'promote', from: 'qa' });
    expect(admin).toMatchObject({ needs: ['freeze_override_reason'], freeze: { may_override: true } });
    expect(admin.action).toMatch(/^Override the freeze/);
    // The real guard agrees: refused without a reason (423), moves with one.
    expect((await refusal(promotePolicy(A.admin, { policy, from: 'qa', to: 'staging', expectedRevisionId: admin.from_revision_id }))).status).toBe(423);
    await deleteFreezeWindow(A.admin, { stage: 'staging', id: w.id });

    await markRevisionBad(A.admin, { policy, revisionId: admin.to_revision_id!, reason: 'leaks memory' });
    const bad = await previewMove(A.release, { policy, stage: 'staging', kind: 'promote', from: 'qa' });
    expect(bad).toMatchObject({ outcome: 'blocked', bad_revision: { reason: 'leaks memory', marked_by: 'admin@example.com' } });
    await unmarkRevisionBad(A.admin, { policy, revisionId: admin.to_revision_id! });

    await setStageRolloutRule(A.admin, { stage: 'staging', gate: { enabled: true, min_success_pct: 100, min_nodes: 3, max_failure_pct: 0, soak_minutes: 0 } });
    const gated = await previewMove(A.release, { policy, stage: 'staging', kind: 'promote', from: 'qa' });
    expect(gated.outcome).toBe('blocked');
    expect(gated.action).toBe('Promotion gate not met');
    expect(gated.gate).toMatchObject({ met: false, from_stage: 'qa', may_override: false });
    expect(gated.gate!.unmet.length).toBeGreaterThan(0);
    const managed = await previewMove(A.admin, { policy, stage: 'staging', kind: 'promote', from: 'qa' });
    expect(managed).toMatchObject({ needs: ['gate_override_reason'] });
    expect(managed.action).toMatch(/^Override the gate/);
    expect((await refusal(promotePolicy(A.admin, { policy, from: 'qa', to: 'staging', expectedRevisionId: managed.from_revision_id }))).status).toBe(409);
    await setStageRolloutRule(A.admin, { stage: 'staging', gate: { enabled: false } });
  });
});

describe('requests that cannot mislead', () => {
  it('a freeze override given by the last approver is recorded as the approver’s: history, audit and the freeze.overridden webhook', async () => {
    const { webhook } = await createWebhook(A.admin, { name: 'freeze-watch', url: 'http://127.0.0.1:9/hook', events: ['freeze.overridden'], allow_private_targets: true });
    const policy = await differing('staging', 'production', ['api-gateway']);
    const r = (await promotePolicy(A.release, { policy, from: 'staging', to: 'production', expectedRevisionId: await active('production', policy) })).request!;
    const w = await addFreezeWindow(A.admin, { stage: 'production', startsAt: new Date(Date.now() - 60_000), endsAt: new Date(Date.now() + 3_600_000), reason: 'Attribution freeze' });
    if (r.approvals_required > 1) await approvePromotionRequest(A.lead, { id: r.id });
    await approvePromotionRequest(A.admin, { id: r.id, overrideReason: 'hotfix approved by admin' });
    expect((await getPromotionRequest(A.admin, r.id)).status).toBe('applied');
    const h = (await pointerHistory('production', policy))[0];
    expect(h.reason).toContain('freeze override by admin@example.com (Attribution freeze): hotfix approved by admin');
    const overrideAudit = await db().auditEvent.findFirstOrThrow({ where: { action: 'freeze.override', after: { contains: r.id } } });
    expect(overrideAudit.actorEmail).toBe('admin@example.com');
    const moveAudit = await db().auditEvent.findFirstOrThrow({ where: { action: 'pointer.promote', policyName: policy, groupName: 'production' }, orderBy: { createdAt: 'desc' } });
    expect(JSON.parse(moveAudit.after!).freeze_override.by).toBe('admin@example.com');
    const delivery = await db().webhookDelivery.findFirstOrThrow({ where: { subscriptionId: webhook.id, event: 'freeze.overridden' } });
    const body = JSON.parse(delivery.payload);
    expect(body.summary).toMatch(/^admin@example\.com overrode the freeze of production/);
    expect(body.data.overridden_by).toBe('admin@example.com');
    await deleteFreezeWindow(A.admin, { stage: 'production', id: w.id });
  });

  it('an approval of a request whose stage has moved is refused (409) and not recorded; the request is outdated', async () => {
    const policy = 'api-gateway';
    const pending = await db().promotionRequest.findFirstOrThrow({ where: { policyName: policy, groupName: 'production', status: 'pending' }, select: { id: true, fromRevisionId: true } });
    // Production moves under it: a rollback-free change through the unprotected path (protection off for a moment is not needed: set the pointer directly as another writer would).
    const other = await db().policyRevision.findFirstOrThrow({ where: { policy: { name: policy }, revisionId: { not: pending.fromRevisionId! } }, select: { id: true } });
    await db().groupPolicy.updateMany({ where: { group: { name: 'production' }, policy: { name: policy } }, data: { revisionPk: other.id } });
    const e = await refusal(approvePromotionRequest(A.lead, { id: pending.id }));
    expect(e.status).toBe(409);
    expect(e.message).toMatch(/outdated/);
    const after = await getPromotionRequest(A.admin, pending.id);
    expect(after.status).toBe('outdated');
    expect(after.approvals).toHaveLength(0);
  });
});

describe('compose "save into stage" and the Requests badge', () => {
  it('the compose preview with a stage carries the guard’s dry run, saving does what it said, and the approver’s badge counts the request', async () => {
    const policy = await differing('staging', 'production', ['api-gateway']);
    const staging = await active('staging', policy);
    const [parentRev] = await db().policyRevision.findMany({ where: { policy: { name: policy }, revisionId: staging! }, select: { revisionId: true } });
    const leadBefore = await pendingApprovalCount(A.lead);
    const auditBefore = await db().auditEvent.count();
    const preview = await composePolicy(A.admin, { policy, parent: { revision: parentRev.revisionId }, includes: [], group: 'production' });
    expect(await db().auditEvent.count()).toBe(auditBefore);
    const promote = await previewMove(A.admin, { policy, stage: 'production', kind: 'promote', from: 'staging' });
    expect(preview.guard).toMatchObject({ stage: 'production', policy, outcome: promote.outcome, approvals_required: promote.approvals_required, action: promote.action });
    expect(preview.guard!.outcome).toBe('request');
    // A viewer's dry run says they may not move it; an unknown stage is a 400 naming the field.
    expect((await composePolicy(A.viewer, { policy, parent: { revision: parentRev.revisionId }, includes: [], group: 'production' })).guard!.outcome).toBe('blocked');
    const unknown = await refusal(composePolicy(A.admin, { policy, parent: { revision: parentRev.revisionId }, includes: [], group: 'nowhere' }));
    expect(unknown.status).toBe(400);
    const saved = await composePolicy(A.admin, { policy, parent: { revision: parentRev.revisionId }, includes: [], save: true, group: 'production', expectedRevisionId: await active('production', policy) });
    expect(saved.request?.approvals_required).toBe(preview.guard!.approvals_required);
    expect(await pendingApprovalCount(A.lead)).toBe(leadBefore + 1);
    // The requester's own request is not in their badge; a viewer approves nothing.
    expect(await pendingApprovalCount(A.viewer)).toBe(0);
  });
});
