/**
 * Issue 26, what the console shows of rollouts: the demo's run history in the
 * board's health (and its statement count as nodes grow), the Admin → Stages
 * server action (same service and audit as /api/v1, field errors, managers
 * only), and which cookbook changes of a promotion its failures fall in, with
 * the automatic rollback's evidence.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createDb, db, installDb } from '@/lib/db/client';
import { databaseUrl } from '@/lib/db/url';
import { runAction } from '@/lib/actions/client';
import type { ActionServerError } from '@/lib/actions/safe-action';
import { ingestRunMessage, rolloutHealth, changeAttributions, rolloutOutcomes, rolloutRulesForAdmin } from '@/lib/services/runs';
import { apiRoutes, accessFor, call, NOW, placeNode, seed, snapshot, tokenFor } from '@/test/helpers';
const putStagePolicy = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]');
import { setStageGrant } from '@/lib/services/stages';
import { runConvergeMessage } from '../run-message';

const session = vi.hoisted(() => ({ current: null as null | { user: { id: string }; sid: string; sv: number } }));
vi.mock('next-auth', async (importOriginal) => ({ ...(await importOriginal<typeof import('next-auth')>()), getServerSession: async () => session.current }));
// /api/v1 on the node:http front reads the session from the cookie (lib/authn/session-cookie.ts): the same session here.
vi.mock('@/lib/authn/session-cookie', async () => {
  const { accessForSessionClaims } = await import('@/lib/authn/session-claims');
  return {
    sessionAccess: async () => {
      const s = session.current;
      const access = s && (await accessForSessionClaims({ id: s.user.id, sid: s.sid, sv: s.sv }));
      return access ? { ...access, via: 'session' } : null;
    },
  };
});
vi.mock('next/cache', () => ({ revalidatePath: () => undefined, revalidateTag: () => undefined }));
const { setStageRolloutRuleAction } = await import('@/lib/actions/admin/rollout-rule-actions');

async function signIn(email: string) {
  const u = await db().user.findUniqueOrThrow({ where: { email }, select: { id: true, sessionVersion: true } });
  session.current = { user: { id: u.id }, sid: randomUUID(), sv: u.sessionVersion };
}

let statements = 0;
beforeAll(async () => {
  await db().$disconnect();
  installDb(createDb(databaseUrl(), { onQuery: () => statements++ }));
  await seed();
});

describe('the demo run history on the board', () => {
  it('webapp is mid-rollout in qa (converged, failed in nginx, not yet run) and a base node in production is missing', async () => {
    const health = await rolloutHealth(await accessFor('viewer@example.com'), new Date(NOW.getTime() + 5 * 60_000));
    expect(health['qa/webapp']).toMatchObject({ nodes: 3, converged: 1, failed: 1, pending: 1, missing: 0, failures: [{ cookbook: 'nginx', resource: 'template[/etc/nginx/nginx.conf]', nodes: 1 }] });
    expect(health['production/base']).toMatchObject({ nodes: 8, missing: 1, failed: 0 });
    expect(await db().runReport.count()).toBeGreaterThan(1000);
  });

  it('costs the same number of SQL statements with 300 more reporting nodes', async () => {
    const viewer = await accessFor('viewer@example.com');
    statements = 0;
    await rolloutHealth(viewer, NOW);
    const small = statements;
    const now = new Date();
    // Issue 41: a node counts where its node row is (the console's fact); its run state says how its last run went.
    const [dev, webapp] = await Promise.all([db().policyGroup.findUniqueOrThrow({ where: { name: 'dev' } }), db().policy.findUniqueOrThrow({ where: { name: 'webapp' } })]);
    await db().node.createMany({ data: Array.from({ length: 300 }, (_, i) => ({ name: `extra-${i}`, groupId: dev.id, policyId: webapp.id, lastCheckIn: now })) });
    await db().nodeRunState.createMany({
      data: Array.from({ length: 300 }, (_, i) => ({ nodeName: `extra-${i}`, groupName: 'dev', policyName: 'webapp', revisionId: null, status: i % 3 ? 'success' : 'failure', runId: `extra-${i}`, endTime: now, receivedAt: now, failedCookbook: i % 3 ? null : 'x', failedResource: i % 3 ? null : 'y[z]' })),
    });
    statements = 0;
    const h = await rolloutHealth(viewer, NOW);
    expect(statements).toBe(small);
    expect(h['dev/webapp'].nodes).toBe(303);
    await db().nodeRunState.deleteMany({ where: { nodeName: { startsWith: 'extra-' } } });
    await db().node.deleteMany({ where: { name: { startsWith: 'extra-' } } });
  });
});

describe('Admin → Stages: the rollout rule action', () => {
  it('a manager saves a gate (audited like the API); a bad number is a field error; a non-manager is refused; nothing stored on refusal', async () => {
    await signIn('admin@example.com');
    const before = snapshot();
    const bad = await runAction(setStageRolloutRuleAction, { stage: 'staging', gate: { enabled: true, min_success_pct: 120 } }).catch((e: ActionServerError) => e);
    expect(bad).toMatchObject({ code: 'bad_request', fieldErrors: { 'gate.min_success_pct': ['min_success_pct must be a whole number from 0 to 100'] } });
    await signIn('dev@example.com');
    const refused = await runAction(setStageRolloutRuleAction, { stage: 'staging', gate: { enabled: true } }).catch((e: ActionServerError) => e);
    expect(refused).toMatchObject({ code: 'forbidden' });
    expect(snapshot()).toBe(before);

    await signIn('admin@example.com');
    const saved = await runAction(setStageRolloutRuleAction, { stage: 'staging', gate: { enabled: true, min_success_pct: 80, min_nodes: 2, max_failure_pct: 5, soak_minutes: 30 }, rollback: { enabled: true, window_minutes: 45, failure_pct: 40, min_runs: 4 } });
    expect(saved).toMatchObject({ stage: 'staging', gate_from_stage: 'qa', gate: { enabled: true, min_success_pct: 80, min_nodes: 2, max_failure_pct: 5, soak_minutes: 30 }, rollback: { enabled: true, window_minutes: 45, failure_pct: 40, min_runs: 4 }, updated_by: 'admin@example.com' });
    const ev = await db().auditEvent.findFirstOrThrow({ where: { action: 'stage.rollout_rule', target: 'staging' }, orderBy: { createdAt: 'asc' } });
    expect(JSON.parse(ev.after!).gate).toEqual(saved.gate);
    const rows = await rolloutRulesForAdmin(await accessFor('dev@example.com'));
    expect(rows.find((r) => r.stage === 'staging')).toMatchObject({ canManage: false, gate: saved.gate });
    expect(rows.find((r) => r.stage === 'dev')).toMatchObject({ gate_from_stage: null, gate: { enabled: false } });
    await runAction(setStageRolloutRuleAction, { stage: 'staging', gate: { enabled: false }, rollback: { enabled: false } });
  });
});

describe('Admin → Stages: outside checks through the rollout rule action (issue 47)', () => {
  it('an administrator adds, edits and removes http and prometheus checks, with field errors from the server; a manager who is not an administrator cannot, yet saves the rest', async () => {
    await signIn('admin@example.com');
    const before = snapshot();
    const http = { name: 'smoke', kind: 'http' as const, url: 'http://127.0.0.1:9/ready', expect_status: [200, 204], timeout_ms: 2000 };
    const prom = { name: 'errors', kind: 'prometheus' as const, url: 'https://prometheus.example.com/', query: 'sum(rate(http_errors[5m]))', max: 0.5 };
    const gate = { enabled: true, min_success_pct: 90, min_nodes: 1, max_failure_pct: 10, soak_minutes: 0 };
    // A private target without the allowance, a prometheus check without bounds, a status out of range: each named by its field.
    const bad = await runAction(setStageRolloutRuleAction, { stage: 'staging', gate: { ...gate, checks: [http] } }).catch((e: ActionServerError) => e);
    expect(bad).toMatchObject({ code: 'bad_request', fieldErrors: { 'gate.checks.0.url': [expect.stringMatching(/loopback, link-local, private .*gate\.checks\[0\]\.allow_private_targets/)] } });
    const noBounds = await runAction(setStageRolloutRuleAction, { stage: 'staging', gate: { ...gate, checks: [{ ...prom, max: undefined }] } }).catch((e: ActionServerError) => e);
    expect(noBounds).toMatchObject({ code: 'bad_request', fieldErrors: { 'gate.checks.0.min': ['a prometheus check needs min, max or both'] } });
    const status = await runAction(setStageRolloutRuleAction, { stage: 'staging', gate: { ...gate, checks: [{ ...http, allow_private_targets: true, expect_status: [700] }] } }).catch((e: ActionServerError) => e);
    expect(status).toMatchObject({ code: 'bad_request', fieldErrors: { 'gate.checks.0.expect_status.0': ['must be an HTTP status'] } });
    expect(snapshot()).toBe(before);

    const added = await runAction(setStageRolloutRuleAction, { stage: 'staging', gate: { ...gate, checks: [{ ...http, allow_private_targets: true }, prom] } });
    expect(added.gate.checks).toEqual([{ ...http, allow_private_targets: true }, prom]);
    const edited = await runAction(setStageRolloutRuleAction, { stage: 'staging', gate: { ...gate, checks: [{ ...http, allow_private_targets: true, expect_status: [200] }] } });
    expect(edited.gate.checks).toEqual([{ ...http, allow_private_targets: true, expect_status: [200] }]);

    // A manager of staging who is not an administrator: the page offers no editing, and the server refuses a change.
    await setStageGrant(await accessFor('admin@example.com'), { stage: 'staging', subject: { type: 'user', email: 'release@example.com' }, level: 'manage' });
    expect((await rolloutRulesForAdmin(await accessFor('release@example.com'))).find((r) => r.stage === 'staging')).toMatchObject({ canManage: true, canEditChecks: false });
    expect((await rolloutRulesForAdmin(await accessFor('admin@example.com'))).find((r) => r.stage === 'staging')).toMatchObject({ canManage: true, canEditChecks: true });
    await signIn('release@example.com');
    const refused = await runAction(setStageRolloutRuleAction, { stage: 'staging', gate: { ...gate, checks: [] } }).catch((e: ActionServerError) => e);
    expect(refused).toMatchObject({ code: 'forbidden' });
    const rest = await runAction(setStageRolloutRuleAction, { stage: 'staging', gate: { ...gate, soak_minutes: 5 } });
    expect(rest.gate).toMatchObject({ soak_minutes: 5, checks: edited.gate.checks });

    await signIn('admin@example.com');
    const removed = await runAction(setStageRolloutRuleAction, { stage: 'staging', gate: { enabled: false, checks: [] } });
    expect(removed.gate.checks).toEqual([]);
  });
});

let seq = 0;
async function report(node: string, stage: string, policy: string, revision: string, status: 'success' | 'failure', cookbook = 'rollout') {
  // Issue 41: runs count in the stage the console has the node in.
  await placeNode(node, stage, policy);
  return ingestRunMessage({ kind: 'token' }, runConvergeMessage({ runId: `00000000-0000-4000-9000-${String(++seq).padStart(12, '0')}`, node, stage, policy, revision, status, failedCookbook: cookbook }));
}

describe('compare and history: where a promotion’s failures fall', () => {
  it('marks failures in a cookbook the promotion changed apart from the others, and keeps the rollback’s evidence', async () => {
    // webapp: dev runs revision 2 (nginx 12.1.0, webapp 1.5.2); put revision 1 (nginx 12.0.1) in dev, then move back to 2: a change of nginx and webapp.
    const revs = await db().policyRevision.findMany({ where: { policy: { name: 'webapp' } }, orderBy: { createdAt: 'asc' }, select: { revisionId: true, document: true } });
    const token = await tokenFor('admin@example.com');
    const admin = await accessFor('admin@example.com');
    const moved1 = await call(putStagePolicy.PUT, 'PUT', { token, params: { group: 'dev', name: 'webapp' }, body: revs[1].document });
    expect(moved1.status, moved1.text).toBe(200);
    await signIn('admin@example.com');
    await runAction(setStageRolloutRuleAction, { stage: 'dev', rollback: { enabled: true, window_minutes: 60, failure_pct: 60, min_runs: 3 } });
    const moved2 = await call(putStagePolicy.PUT, 'PUT', { token, params: { group: 'dev', name: 'webapp' }, body: revs[2].document });
    expect(moved2.status, moved2.text).toBe(200);
    await report('rv-1', 'dev', 'webapp', revs[2].revisionId, 'failure', 'nginx');
    await report('rv-2', 'dev', 'webapp', revs[2].revisionId, 'failure', 'nginx');
    await report('rv-3', 'dev', 'webapp', revs[2].revisionId, 'failure', 'base');

    const [latest] = await changeAttributions(admin, 'dev', 'webapp', 1);
    expect(latest).toMatchObject({ kind: 'set', fromRevisionId: revs[1].revisionId, toRevisionId: revs[2].revisionId, failedRuns: 3, finishedRuns: 3 });
    expect(latest.changed.map((c) => c.cookbook)).toEqual(['nginx', 'webapp']);
    expect(latest.failures).toEqual([
      { cookbook: 'nginx', resource: 'ruby_block[check release]', runs: 2, nodes: 2, inChange: true },
      { cookbook: 'base', resource: 'ruby_block[check release]', runs: 1, nodes: 1, inChange: false },
    ]);
    // 3 of 3 failed: the rule moved dev back, and says so with its evidence.
    const outcomes = await rolloutOutcomes(admin, 'dev', 'webapp');
    const rolled = outcomes.find((o) => o.event === 'rollout.rolled_back');
    expect(rolled).toMatchObject({ changeId: latest.changeId, revisionId: revs[2].revisionId, evidence: { runs: 3, failed: 3, rule: '≥ 60% of at least 3 node(s) failed within 60 minute(s)', failed_nodes: ['rv-1', 'rv-2', 'rv-3'] } });
    expect(outcomes.some((o) => o.event === 'rollout.failed' && o.changeId === latest.changeId)).toBe(true);
    // A viewer of dev reads it; the rule itself is left off for the files after this one.
    await expect(changeAttributions(await accessFor('viewer@example.com'), 'dev', 'webapp')).resolves.toHaveLength(3);
    await runAction(setStageRolloutRuleAction, { stage: 'dev', rollback: { enabled: false } });
  });
});
