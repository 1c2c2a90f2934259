/**
 * Issue 29: a revision's journey across stages — where it was first stored (by whom, through which
 * tool), each promotion (who, when, the request and its approvals, a freeze override and who gave it),
 * the time spent in each stage, how the stage's nodes converged it (run reports), and only the stages
 * the reader may view — from one service used by the revision page and GET …/revisions/:rev/journey.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { accessFor, call, seed, tokenFor } from '@/test/helpers';
import { db } from '@/lib/db/client';
import type { Access } from '@/lib/auth/permissions';
import { buildDemoLock, type DemoPolicySpec } from '@/lib/seed/demo-data';
import { setGroupPolicy } from '@/lib/services/set-group-policy';
import { uploadRevision } from '@/lib/services/upload-revision';
import { promotePolicy } from '@/lib/services/promote-policy';
import { approvePromotionRequest } from '@/lib/services/promotion-requests';
import { addFreezeWindow, deleteFreezeWindow } from '@/lib/services/stage-guards';
import { revisionJourney } from '@/lib/services/revision-journey';
import * as journeyRoute from '@/app/api/v1/policies/[name]/revisions/[rev]/journey/route';

const POLICY = 'journey-app';
const spec: DemoPolicySpec = {
  name: POLICY,
  team: 'core',
  runList: ['recipe[apt::default]', 'recipe[ntp::default]'],
  revisions: [
    { cookbooks: { apt: '7.4.0', ntp: '3.7.0' }, default: { journey: 1 } },
    { cookbooks: { apt: '7.5.0', ntp: '3.8.0' }, default: { journey: 2 } },
  ],
  stages: {},
  nodes: { platform: 'ubuntu', platform_family: 'debian', platform_version: '22.04' },
};
const [v1, v2] = [0, 1].map((i) => buildDemoLock(spec, i));
const A: Record<string, Access> = {};
let narrow: Access;

beforeAll(async () => {
  await seed();
  for (const u of ['admin', 'lead', 'release']) A[u] = await accessFor(`${u}@example.com`);
  // A reader who may view dev and qa only.
  const user = await db().user.create({ data: { email: 'journey-reader@example.com', name: 'Journey Reader', passwordHash: 'x' } });
  for (const stage of ['dev', 'qa']) {
    const g = await db().policyGroup.findUniqueOrThrow({ where: { name: stage } });
    await db().groupPermission.create({ data: { groupId: g.id, userId: user.id, level: 'view' } });
  }
  narrow = await accessFor('journey-reader@example.com');

  // v1 arrives by chef push (the Chef API's PUT, authenticated by a user key) into dev; v2 through /api/v1 with a token.
  const pushed = { ...A.admin, via: 'chef-key:admin/default' };
  await setGroupPolicy(pushed, { group: 'dev', policy: POLICY, text: v1.text, requestId: 'journey-push-1' });
  await uploadRevision({ ...A.admin, via: 'token' }, { policyName: POLICY, text: v2.text });
  // dev → qa (during a freeze, overridden by the admin) → staging → production (a request one approver approves).
  const freeze = await addFreezeWindow(A.admin, { stage: 'qa', startsAt: new Date(Date.now() - 60_000).toISOString(), endsAt: new Date(Date.now() + 3_600_000).toISOString(), reason: 'Journey freeze' });
  await promotePolicy(A.admin, { policy: POLICY, from: 'dev', to: 'qa', expectedRevisionId: null, freezeOverrideReason: 'hotfix for the journey' });
  await deleteFreezeWindow(A.admin, { stage: 'qa', id: freeze.id });
  await promotePolicy(A.admin, { policy: POLICY, from: 'qa', to: 'staging', expectedRevisionId: null });
  const asked = await promotePolicy(A.release, { policy: POLICY, from: 'staging', to: 'production', expectedRevisionId: null, reason: 'journey to production' });
  expect(asked.request).toBeTruthy();
  await approvePromotionRequest(A.lead, { id: asked.request!.id, comment: 'looks good' });
  await approvePromotionRequest(A.admin, { id: asked.request!.id });
  // dev moves on to v2: v1's stay in dev ends.
  await promotePolicy(A.admin, { policy: POLICY, from: `rev:${v2.lock.revision_id}`, to: 'dev', expectedRevisionId: v1.lock.revision_id });
  // Run reports: two staging nodes converged v1 (one after a failure), one only failed; a production node converged it.
  const base = Date.now();
  const run = (node: string, group: string, status: string, offsetS: number) => ({
    runId: crypto.randomUUID(),
    nodeName: node,
    groupName: group,
    policyName: POLICY,
    revisionId: v1.lock.revision_id,
    status,
    startTime: new Date(base + offsetS * 1000 - 5000),
    endTime: new Date(base + offsetS * 1000),
    receivedAt: new Date(base + offsetS * 1000),
  });
  await db().runReport.createMany({
    data: [run('j-stg-1', 'staging', 'failure', 60), run('j-stg-1', 'staging', 'success', 120), run('j-stg-2', 'staging', 'success', 180), run('j-stg-3', 'staging', 'failure', 90), run('j-prd-1', 'production', 'success', 240), run('j-prd-1', 'production', 'started', 300)],
  });
});

describe("a revision's journey", () => {
  it('tells where it was stored, through which tool, each promotion with its approvals and overrides, the soak time and the convergence', async () => {
    const j = await revisionJourney(A.admin, POLICY, v1.lock.revision_id);
    expect(j.created).toMatchObject({ by: 'admin@example.com', origin: 'upload', tool: 'chef-push', via: 'chef-key:admin/default' });
    expect(j.created.tool_label).toBe('chef push (Chef API, key admin/default)');
    expect(j.steps.map((s) => [s.stage, s.kind, s.from_revision_id])).toEqual([
      ['dev', 'set', null],
      ['qa', 'promote', null],
      ['staging', 'promote', null],
      ['production', 'promote', null],
    ]);
    const [dev, qa, staging, production] = j.steps;
    expect(dev).toMatchObject({ by: 'admin@example.com', tool: 'chef-push', via: 'chef-key:admin/default', current: false, left: { kind: 'promote', to_revision_id: v2.lock.revision_id, by: 'admin@example.com' } });
    expect(Date.parse(dev.left_at!) - Date.parse(dev.entered_at)).toBe(dev.soak_ms);
    expect(qa).toMatchObject({ current: true, left_at: null, overrides: { freeze: { reason: 'hotfix for the journey', by: 'admin@example.com' } } });
    expect(staging).toMatchObject({ by: 'admin@example.com', overrides: {}, request: null, current: true });
    expect(production).toMatchObject({ by: 'release@example.com', tool: 'request', current: true, reason: 'journey to production', request: { requester: 'release@example.com', approvals_required: 2 } });
    expect(production.request!.approvals).toEqual([
      { by: 'lead@example.com', at: expect.any(String), decision: 'approve', comment: 'looks good' },
      { by: 'admin@example.com', at: expect.any(String), decision: 'approve', comment: null },
    ]);
    expect(production.request!.reasons.length).toBeGreaterThan(0);
    expect(j.current_stages).toEqual(['qa', 'staging', 'production']);
    expect(j.convergence).toEqual([
      expect.objectContaining({ stage: 'staging', nodes_converged: 2, nodes_failed: 1, successful_runs: 2, failed_runs: 2 }),
      expect.objectContaining({ stage: 'production', nodes_converged: 1, nodes_failed: 0, successful_runs: 1, failed_runs: 0 }),
    ]);
    const stg = j.convergence[0];
    expect(Date.parse(stg.last_first_success_at!) - Date.parse(stg.first_success_at!)).toBe(60_000);

    // v2: uploaded through /api/v1 with a token, then set into dev.
    const j2 = await revisionJourney(A.admin, POLICY, v2.lock.revision_id);
    expect(j2.created).toMatchObject({ tool: 'api', via: 'token', by: 'admin@example.com' });
    expect(j2.steps).toEqual([expect.objectContaining({ stage: 'dev', from_revision_id: v1.lock.revision_id, current: true })]);
  });

  it('shows a reader only the stages they may view, and the API answers the same journey', async () => {
    const j = await revisionJourney(narrow, POLICY, v1.lock.revision_id);
    expect(j.steps.map((s) => s.stage)).toEqual(['dev', 'qa']);
    expect(j.convergence).toEqual([]);
    expect(j.current_stages).toEqual(['qa']);
    expect(JSON.stringify(j)).not.toContain('production');

    const token = await tokenFor('admin@example.com');
    const res = await call(journeyRoute.GET, 'GET', { token, params: { name: POLICY, rev: v1.lock.revision_id } });
    expect(res.status).toBe(200);
    expect(res.json.steps.map((s: { stage: string }) => s.stage)).toEqual(['dev', 'qa', 'staging', 'production']);
    expect(res.json.created.tool).toBe('chef-push');
    const missing = await call(journeyRoute.GET, 'GET', { token, params: { name: POLICY, rev: 'f'.repeat(64) } });
    expect(missing.status).toBe(404);
    const anonymous = await call(journeyRoute.GET, 'GET', { params: { name: POLICY, rev: v1.lock.revision_id } });
    expect(anonymous.status).toBe(401);
  });
});
