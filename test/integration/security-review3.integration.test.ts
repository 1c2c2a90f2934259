/**
 * Issue 28: the third security review's findings, one test (or more) each,
 * over the surfaces the red team used (signed Chef requests, /api/v1 with
 * tokens, the services behind the console's actions). Every test here
 * failed on the build before the fix (see the closing note).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessFor, seed } from '@/test/helpers';
import { startChefHarness, type ChefHarness } from '@/test/chef-harness';
import { db } from '@/lib/db/client';
import type { Access } from '@/lib/auth/permissions';
import { computeRevisionId, type PolicyLock } from '@/lib/domain';
import { approvePromotionRequest, getPromotionRequest } from '@/lib/services/promotion-requests';
import { requestDetailForPage } from '@/lib/services/requests-page';
import { setGroupPolicy } from '@/lib/services/set-group-policy';
import { uploadRevision } from '@/lib/services/upload-revision';
import { setStageApprover } from '@/lib/services/stage-guards';
import { updateUser } from '@/lib/services/manage-users';

let chef: ChefHarness;
const A: Record<string, Access> = {};

async function active(stage: string, policy: string): Promise<{ revisionId: string; lock: PolicyLock } | null> {
  const row = await db().groupPolicy.findFirst({ where: { group: { name: stage }, policy: { name: policy } }, select: { revision: { select: { revisionId: true, document: true } } } });
  return row ? { revisionId: row.revision.revisionId, lock: JSON.parse(row.revision.document) as PolicyLock } : null;
}

/** A stored revision of `policy` whose lock pins `cookbook` at `version`. */
async function revisionPinning(policy: string, cookbook: string, version: string): Promise<{ revisionId: string; text: string; lock: PolicyLock }> {
  const rows = await db().policyRevision.findMany({ where: { policy: { name: policy } }, select: { revisionId: true, document: true } });
  const row = rows.find((r) => (JSON.parse(r.document) as PolicyLock).cookbook_locks[cookbook]?.version === version);
  if (!row) throw new Error(`no revision of ${policy} pins ${cookbook} ${version}`);
  return { revisionId: row.revisionId, text: row.document, lock: JSON.parse(row.document) as PolicyLock };
}

function withId(lock: PolicyLock): string {
  const l = { ...lock, revision_id: '' };
  l.revision_id = computeRevisionId(JSON.stringify(l));
  return JSON.stringify(l);
}

/** release@ (promote on staging and production, no upload rights) sets a revision admin@ uploaded. */
async function releaseSets(stage: string, policy: string, text: string) {
  await uploadRevision(A.admin, { policyName: policy, text });
  return setGroupPolicy(A.release, { group: stage, policy, text });
}

beforeAll(async () => {
  await seed();
  chef = await startChefHarness();
  for (const u of ['admin', 'release', 'dev', 'viewer', 'lead']) A[u] = await accessFor(`${u}@example.com`);
});
afterAll(async () => chef?.close());

describe('high: guards judge the change, not the step', () => {
  it('staging: removing webapp (Chef DELETE) opens a request; setting nginx 12 afterwards is still the major bump from 11.5.0', async () => {
    // Staging back on nginx 11.5.0 (a downgrade: staging's only rule, major bumps, does not apply).
    const eleven = await revisionPinning('webapp', 'nginx', '11.5.0');
    expect((await setGroupPolicy(A.release, { group: 'staging', policy: 'webapp', text: eleven.text })).status).toBe(200);
    const before = await active('staging', 'webapp');
    expect(before!.lock.cookbook_locks.nginx.version).toBe('11.5.0');
    const removed = await chef.request('DELETE', 'policy_groups/staging/policies/webapp', { as: 'release' });
    expect(removed.status, removed.text).toBe(403);
    expect(removed.text).toContain('/requests/');
    expect((await active('staging', 'webapp'))!.revisionId).toBe(before!.revisionId);
    // The removal approved (lead@ approves staging), the stage runs nothing of webapp...
    const request = await db().promotionRequest.findFirstOrThrow({ where: { groupName: 'staging', policyName: 'webapp', status: 'pending', toRevisionId: null }, select: { id: true } });
    expect((await approvePromotionRequest(A.lead, { id: request.id })).status).toBe('applied');
    expect(await active('staging', 'webapp')).toBeNull();
    // ...and setting the nginx 12.0.1 revision is judged against what it last ran: the major bump needs its approval.
    const next = await revisionPinning('webapp', 'nginx', '12.0.1');
    const put = await chef.request('PUT', 'policy_groups/staging/policies/webapp', { as: 'release', body: next.text });
    expect(put.status, put.text).toBe(403);
    expect(await active('staging', 'webapp')).toBeNull();
    const opened = await db().promotionRequest.findFirstOrThrow({ where: { groupName: 'staging', policyName: 'webapp', status: 'pending', toRevisionId: next.revisionId }, select: { id: true } });
    const dto = await getPromotionRequest(A.lead, opened.id);
    expect(dto.approvals_required).toBe(1);
    expect(dto.reasons[0].message).toMatch(/nginx 11\.5\.0 → 12\.0\.1 is a major bump/);
  });

  it('production: removing a cookbook, then adding it back at the next major, needs the two approvals of the major bump', async () => {
    const now = await active('production', 'webapp');
    expect(now!.lock.cookbook_locks.nginx.version).toBe('11.5.0');
    const twelve = await revisionPinning('webapp', 'nginx', '12.0.1');
    const withoutNginx: PolicyLock = { ...now!.lock, cookbook_locks: Object.fromEntries(Object.entries(now!.lock.cookbook_locks).filter(([n]) => n !== 'nginx')) };
    const step1 = await releaseSets('production', 'webapp', withId(withoutNginx));
    expect(step1.request!.approvals_required).toBe(1);
    expect((await approvePromotionRequest(A.lead, { id: step1.request!.id })).status).toBe('applied');
    const withTwelve: PolicyLock = { ...withoutNginx, cookbook_locks: { ...withoutNginx.cookbook_locks, nginx: twelve.lock.cookbook_locks.nginx } };
    const step2 = await releaseSets('production', 'webapp', withId(withTwelve));
    expect(step2.status).toBe(202);
    expect(step2.request!.approvals_required).toBe(2);
    expect(step2.request!.reasons[0].message).toMatch(/nginx 11\.5\.0 → 12\.0\.1 is a major bump/);
    expect((await approvePromotionRequest(A.lead, { id: step2.request!.id })).status).toBe('pending');
  });
});

describe('medium: approvals are re-checked when a request applies', () => {
  async function twoApprovalRequest(policy: string) {
    // A run-list change into production: 2 approvals.
    const now = await active('production', policy);
    const changed: PolicyLock = { ...now!.lock, run_list: [...now!.lock.run_list].reverse() };
    const r = await releaseSets('production', policy, withId(changed));
    expect(r.request!.approvals_required).toBe(2);
    return { id: r.request!.id, before: now!.revisionId };
  }

  it('an approval by someone whose approver grant was removed no longer counts, and the request page says why', async () => {
    const req = await twoApprovalRequest('haproxy-lb');
    await approvePromotionRequest(A.lead, { id: req.id });
    await setStageApprover(A.admin, { stage: 'production', subject: { type: 'user', email: 'lead@example.com' }, approver: false });
    try {
      await setStageApprover(A.admin, { stage: 'production', subject: { type: 'user', email: 'admin@example.com' }, approver: true });
      const after = await approvePromotionRequest(A.admin, { id: req.id });
      expect(after.status).toBe('pending');
      expect((await active('production', 'haproxy-lb'))!.revisionId).toBe(req.before);
      const lead = after.approvals.find((a) => a.email === 'lead@example.com')!;
      expect(lead).toMatchObject({ counts: false, not_counted_reason: "no longer an approver of 'production'" });
      const page = await requestDetailForPage(A.admin, req.id);
      expect(page!.request.approvalCount).toBe(1);
      expect(page!.request.approvals.find((a) => a.user === 'lead@example.com')!.notCounted).toBe("no longer an approver of 'production'");
    } finally {
      await setStageApprover(A.admin, { stage: 'production', subject: { type: 'user', email: 'lead@example.com' }, approver: true });
    }
  });

  it('an approval by a user deactivated since does not count', async () => {
    const req = await twoApprovalRequest('redis-cache');
    await approvePromotionRequest(A.lead, { id: req.id });
    await updateUser(A.admin, { email: 'lead@example.com', active: false });
    try {
      const after = await approvePromotionRequest(A.admin, { id: req.id });
      expect(after.status).toBe('pending');
      expect(after.approvals.find((a) => a.email === 'lead@example.com')).toMatchObject({ counts: false, not_counted_reason: 'the account was deactivated' });
      expect((await active('production', 'redis-cache'))!.revisionId).toBe(req.before);
    } finally {
      await updateUser(A.admin, { email: 'lead@example.com', active: true });
    }
  });
});
