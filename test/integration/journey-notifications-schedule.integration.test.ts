/**
 * Issue 29, one seeded database for both parts:
 *
 * 1. A revision's journey across stages — where it was first stored (by whom, through which tool), each
 *    promotion (who, when, the request and its approvals, a freeze override and who gave it), the time
 *    spent in each stage, how the stage's nodes converged it (run reports), and only the stages the reader
 *    may view — from one service used by the revision page and GET …/revisions/:rev/journey.
 * 2. Request notifications carry absolute links to the request, built from PUBLIC_URL, and subscriptions
 *    get the body format they asked for — the signed JSON envelope (with `url` and the change summary),
 *    Slack (`text` + `blocks`) or Teams (a message with an Adaptive Card) — through the one outbox (the
 *    delivery row's payload is the exact body the worker sends). Text from users is escaped for each target.
 * 3. Scheduled promotion ("apply at", "apply when the freeze ends"): through the same movePointer guard at
 *    the time it applies, with the scheduler's rights then, exactly once across two concurrent workers, audited;
 *    and the console's server actions (the promote dialog's "schedule", the Requests page's cancel): parsed once,
 *    authorized by the service, nothing stored on a refusal.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiRoutes, accessFor, call, seed, snapshot, tokenFor } from '@/test/helpers';
import { runAction } from '@/lib/actions/client';
import type { ActionServerError } from '@/lib/actions/safe-action';
import { db } from '@/lib/db/client';
import type { Access } from '@/lib/auth/permissions';
import { buildDemoLock, type DemoPolicySpec } from '@/lib/seed/demo-data';
import { setGroupPolicy } from '@/lib/services/stages';
import { uploadRevision, revisionJourney } from '@/lib/services/policies';
import {
  promotePolicy,
  approvePromotionRequest,
  rejectPromotionRequest,
  applyDueScheduledPromotions,
  cancelScheduledPromotion,
  listScheduledPromotions,
  schedulePromotion,
} from '@/lib/services/promotion';
import { addFreezeWindow, deleteFreezeWindow, markRevisionBad, unmarkRevisionBad } from '@/lib/services/guards';
import { createWebhook } from '@/lib/services/webhooks';
import { absoluteUrl } from '@/lib/services/funnel';
const journeyRoute = apiRoutes('/api/v1/policies/[name]/revisions/[rev]/journey');
const webhooksRoute = apiRoutes('/api/v1/webhooks');
const scheduleRoute = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]/schedule');
const scheduledListRoute = apiRoutes('/api/v1/scheduled_promotions');
const scheduledRoute = apiRoutes('/api/v1/scheduled_promotions/[id]');
import { HOME_MEMBERSHIP } from '@/lib/services/organizations';

// The server actions read the session through next-auth: the signed-in user is set per test.
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
const { cancelScheduledPromotionAction, schedulePromotionAction } = await import('@/lib/actions/promotion/schedule-actions');

async function signIn(email: string) {
  const u = await db().user.findUniqueOrThrow({ where: { email }, select: { id: true, sessionVersion: true } });
  session.current = { user: { id: u.id }, sid: randomUUID(), sv: u.sessionVersion };
}

const nodes = { platform: 'ubuntu', platform_family: 'debian', platform_version: '22.04' };
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
  nodes,
};
const [v1, v2] = [0, 1].map((i) => buildDemoLock(spec, i));
const NOTIFY = 'notify-app';
const notifySpec: DemoPolicySpec = {
  name: NOTIFY,
  team: 'core',
  runList: ['recipe[apt::default]'],
  revisions: [
    { cookbooks: { apt: '7.4.0' }, default: { notify: 1 } },
    { cookbooks: { apt: '7.5.0' }, default: { notify: 2 } },
  ],
  stages: {},
  nodes,
};
const [n1, n2] = [0, 1].map((i) => buildDemoLock(notifySpec, i));
const BASE = 'https://console.example.com';
const EVENTS = ['request.opened', 'request.approved', 'request.applied', 'request.rejected'];
const A: Record<string, Access> = {};
const subs: Record<string, string> = {};
const saved = { PUBLIC_URL: process.env.PUBLIC_URL, NEXTAUTH_URL: process.env.NEXTAUTH_URL };
let narrow: Access;
let requestId = '';
let rejectedId = '';

async function payloads(sub: string, event: string) {
  const rows = await db().webhookDelivery.findMany({ where: { subscriptionId: subs[sub], event }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], select: { payload: true } });
  return rows.map((r) => JSON.parse(r.payload) as any).filter((b) => JSON.stringify(b).includes(NOTIFY));
}

beforeAll(async () => {
  await seed();
  process.env.PUBLIC_URL = `${BASE}/`;
  delete process.env.NEXTAUTH_URL;
  for (const u of ['admin', 'lead', 'release']) A[u] = await accessFor(`${u}@example.com`);
  // ---- notifications: subscriptions first, so the journey's requests are announced too (filtered out by policy)
  for (const format of ['json', 'slack', 'teams'] as const) {
    subs[format] = (await createWebhook(A.admin, { name: `notify-${format}`, url: `https://hooks.example.com/${format}`, events: EVENTS as never, format })).webhook.id;
  }
  await uploadRevision(A.admin, { policyName: NOTIFY, text: n1.text });
  await uploadRevision(A.admin, { policyName: NOTIFY, text: n2.text });
  const asked = await promotePolicy(A.release, { policy: NOTIFY, from: `rev:${n1.lock.revision_id}`, to: 'production', expectedRevisionId: null, reason: 'ship it [now](https://evil.example) <!channel>' });
  requestId = asked.request!.id;
  await approvePromotionRequest(A.lead, { id: requestId, comment: 'fine by me' });
  await approvePromotionRequest(A.admin, { id: requestId });
  const again = await promotePolicy(A.release, { policy: NOTIFY, from: `rev:${n2.lock.revision_id}`, to: 'production', expectedRevisionId: n1.lock.revision_id });
  rejectedId = again.request!.id;
  await rejectPromotionRequest(A.lead, { id: rejectedId, comment: 'not during <@U123> *sale* [week](https://evil.example)' });
  // ---- the journey
  // A reader who may view dev and qa only.
  const user = await db().user.create({ data: { email: 'journey-reader@example.com', name: 'Journey Reader', passwordHash: 'x', orgMemberships: HOME_MEMBERSHIP } });
  for (const stage of ['dev', 'qa']) {
    const g = await db().policyGroup.findUniqueOrThrow({ where: { name: stage } });
    await db().groupPermission.create({ data: { groupId: g.id, userId: user.id, level: 'view' } });
  }
  narrow = await accessFor('journey-reader@example.com');

  // v1 arrives by chef push (the Chef API's PUT, authenticated by a user key) into dev; v2 through /api/v1 with a token.
  const pushed = { ...A.admin, via: 'chef-key:admin/default' };
  await setGroupPolicy(pushed, { group: 'dev', policy: POLICY, text: v1.text, requestId: 'journey-push-1' });
  await uploadRevision({ ...A.admin, via: 'token' }, { policyName: POLICY, text: v2.text });
  // dev → qa (during a freeze, overridden by the admin) → staging → production (a request two approvers approve).
  const freeze = await addFreezeWindow(A.admin, { stage: 'qa', startsAt: new Date(Date.now() - 60_000), endsAt: new Date(Date.now() + 3_600_000), reason: 'Journey freeze' });
  await promotePolicy(A.admin, { policy: POLICY, from: 'dev', to: 'qa', expectedRevisionId: null, freezeOverrideReason: 'hotfix for the journey' });
  await deleteFreezeWindow(A.admin, { stage: 'qa', id: freeze.id });
  await promotePolicy(A.admin, { policy: POLICY, from: 'qa', to: 'staging', expectedRevisionId: null });
  const toProduction = await promotePolicy(A.release, { policy: POLICY, from: 'staging', to: 'production', expectedRevisionId: null, reason: 'journey to production' });
  expect(toProduction.request).toBeTruthy();
  await approvePromotionRequest(A.lead, { id: toProduction.request!.id, comment: 'looks good' });
  await approvePromotionRequest(A.admin, { id: toProduction.request!.id });
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

afterAll(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
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

describe('request notifications', () => {
  it('the JSON envelope carries the absolute link to the request and the change summary, for every request event', async () => {
    const link = `${BASE}/requests/${requestId}`;
    for (const event of ['request.opened', 'request.approved', 'request.applied']) {
      const [body] = await payloads('json', event);
      expect(body, event).toMatchObject({ event, url: link });
      expect(body.summary, event).toContain(link);
      expect(body.changes, event).toEqual(expect.arrayContaining(['cookbook apt added 7.4.0', 'run list: recipe[apt::default] added']));
    }
    expect((await payloads('json', 'request.approved')).map((b) => b.data.approver)).toEqual(['lead@example.com', 'admin@example.com']);
    const [rejected] = await payloads('json', 'request.rejected');
    expect(rejected.url).toBe(`${BASE}/requests/${rejectedId}`);
    expect(rejected.changes).toEqual(expect.arrayContaining(['cookbook apt 7.4.0 → 7.5.0 (upgraded, minor)']));
  });

  it('Slack gets text and blocks: a header, the facts, the changes and a button to the request; user text is escaped', async () => {
    const [opened] = await payloads('slack', 'request.opened');
    expect(Object.keys(opened)).toEqual(['text', 'blocks']);
    expect(opened.text).toContain(`${BASE}/requests/${requestId}`);
    const types = opened.blocks.map((b: { type: string }) => b.type);
    expect(types).toEqual(['header', 'section', 'section', 'section', 'actions', 'context']);
    expect(opened.blocks[0].text.text).toBe(`Approval needed: ${NOTIFY} into production`);
    const fields = opened.blocks[2].fields.map((f: { text: string }) => f.text);
    expect(fields).toEqual(expect.arrayContaining(['*Stage*\nproduction', `*Policy*\n${NOTIFY}`, '*Requested by*\nrelease@example.com', '*Approvals required*\n2']));
    expect(fields.find((f: string) => f.startsWith('*Reason*'))).toBe('*Reason*\nship it [now](https://evil.example) &lt;!channel&gt;');
    expect(opened.blocks[3].text.text).toContain('• cookbook apt added 7.4.0');
    expect(opened.blocks[4].elements[0]).toEqual({ type: 'button', text: { type: 'plain_text', text: 'Open the request' }, url: `${BASE}/requests/${requestId}` });
    const [rejected] = await payloads('slack', 'request.rejected');
    expect(rejected.text).not.toContain('<@U123>');
    expect(rejected.text).toContain('&lt;@U123&gt;');
  });

  it('Teams gets a message with an Adaptive Card: facts, changes and an OpenUrl action to the request; markdown from users is escaped', async () => {
    const [applied] = await payloads('teams', 'request.applied');
    expect(applied).toMatchObject({ type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null }] });
    const card = applied.attachments[0].content;
    expect(card).toMatchObject({ type: 'AdaptiveCard', version: '1.4', actions: [{ type: 'Action.OpenUrl', title: 'Open the request', url: `${BASE}/requests/${requestId}` }] });
    const facts = card.body.find((b: { type: string }) => b.type === 'FactSet').facts;
    expect(facts).toEqual(expect.arrayContaining([{ title: 'Stage', value: 'production' }, { title: 'Approved by', value: 'lead@example.com, admin@example.com' }]));
    expect(facts.find((f: { title: string }) => f.title === 'Reason').value).toBe('ship it \\[now\\]\\(https://evil.example\\) \\<\\!channel\\>');
    expect(card.body.map((b: { text?: string }) => b.text ?? '').join('\n')).toContain('- cookbook apt added 7.4.0');
    const [rejected] = await payloads('teams', 'request.rejected');
    const comment = rejected.attachments[0].content.body.find((b: { type: string }) => b.type === 'FactSet').facts.find((f: { title: string }) => f.title === 'Comment').value;
    expect(comment).toBe('not during \\<@U123\\> \\*sale\\* \\[week\\]\\(https://evil.example\\)');
  });

  it('the format is chosen at registration (slack: true means slack; a contradiction is a 400 naming the field); links stay absolute without PUBLIC_URL', async () => {
    const token = await tokenFor('admin@example.com');
    const teams = await call(webhooksRoute.POST, 'POST', { token, body: { name: 'teams', url: 'https://hooks.example.com/t', events: ['request.opened'], format: 'teams' } });
    expect(teams.status).toBe(201);
    expect(teams.json.webhook).toMatchObject({ format: 'teams', slack: false });
    const legacy = await call(webhooksRoute.POST, 'POST', { token, body: { name: 'slack', url: 'https://hooks.example.com/s', events: ['request.opened'], slack: true } });
    expect(legacy.json.webhook).toMatchObject({ format: 'slack', slack: true });
    const both = await call(webhooksRoute.POST, 'POST', { token, body: { name: 'both', url: 'https://hooks.example.com/b', events: ['request.opened'], slack: true, format: 'teams' } });
    expect(both.status).toBe(400);
    expect(both.json.errors[0].path).toBe('/format');
    const odd = await call(webhooksRoute.POST, 'POST', { token, body: { name: 'odd', url: 'https://hooks.example.com/o', events: ['request.opened'], format: 'discord' } });
    expect(odd.status).toBe(400);
    expect(odd.json.errors[0].path).toBe('/format');

    delete process.env.PUBLIC_URL;
    try {
      expect(absoluteUrl('/requests/x')).toMatch(/^http:\/\/localhost:\d+\/requests\/x$/);
    } finally {
      process.env.PUBLIC_URL = `${BASE}/`;
    }
  });
});

describe('scheduled promotion', () => {
  const SCHED = 'sched-app';
  const schedSpec: DemoPolicySpec = {
    name: SCHED,
    team: 'core',
    runList: ['recipe[apt::default]'],
    revisions: [
      { cookbooks: { apt: '7.4.0' }, default: { sched: 1 } },
      { cookbooks: { apt: '7.5.0' }, default: { sched: 2 } },
    ],
    stages: {},
    nodes,
  };
  const [s1, s2] = [0, 1].map((i) => buildDemoLock(schedSpec, i));
  const HOUR = 3_600_000;
  let dev: Access;
  let viewer: Access;
  const running = async (stage: string) =>
    (await db().groupPolicy.findFirst({ where: { group: { name: stage }, policy: { name: SCHED } }, select: { revision: { select: { revisionId: true } } } }))?.revision.revisionId ?? null;

  beforeAll(async () => {
    dev = await accessFor('dev@example.com');
    viewer = await accessFor('viewer@example.com');
    await uploadRevision(A.admin, { policyName: SCHED, text: s1.text });
    await uploadRevision(A.admin, { policyName: SCHED, text: s2.text });
  });

  it('"apply at": nothing before its time; then once, through the guard, even with two workers at once; audited as the scheduler through the schedule', async () => {
    const now = new Date();
    const at = new Date(now.getTime() + HOUR);
    const s = await schedulePromotion(dev, { stage: 'dev', policy: SCHED, from: `rev:${s1.lock.revision_id}`, when: 'at', at, expectedRevisionId: null, reason: 'nightly' }, now);
    expect(s).toMatchObject({ status: 'pending', when: 'at', run_at: at.toISOString(), to_revision_id: s1.lock.revision_id, scheduled_by: 'dev@example.com' });
    expect(await db().auditEvent.count({ where: { action: 'promotion.schedule', after: { contains: s.id } } })).toBe(1);
    expect((await applyDueScheduledPromotions(new Date(at.getTime() - 1000))).applied).not.toContain(s.id);
    expect(await running('dev')).toBeNull();
    const later = new Date(at.getTime() + 1000);
    const [a, b] = await Promise.all([applyDueScheduledPromotions(later), applyDueScheduledPromotions(later)]);
    expect([...a.applied, ...b.applied].filter((id) => id === s.id)).toHaveLength(1);
    expect(await running('dev')).toBe(s1.lock.revision_id);
    const moves = await db().auditEvent.findMany({ where: { action: 'pointer.promote', groupName: 'dev', policyName: SCHED }, select: { actorEmail: true, via: true, reason: true } });
    expect(moves).toEqual([{ actorEmail: 'dev@example.com', via: `schedule:${s.id}`, reason: 'nightly' }]);
    const [listed] = await listScheduledPromotions(dev, { policy: SCHED, stage: 'dev' });
    expect(listed).toMatchObject({ id: s.id, status: 'applied', outcome: { audit_id: expect.any(String) } });
  });

  it('"when the freeze ends": runs at the end of the freeze, and waits again when the stage is frozen anew', async () => {
    const now = new Date();
    const end = new Date(now.getTime() + HOUR);
    const first = await addFreezeWindow(A.admin, { stage: 'qa', startsAt: new Date(now.getTime() - 60_000), endsAt: end, reason: 'Schedule freeze' });
    const s = await schedulePromotion(dev, { stage: 'qa', policy: SCHED, from: 'dev', when: 'freeze_end', expectedRevisionId: null }, now);
    expect(s).toMatchObject({ when: 'freeze_end', status: 'pending', from_stage: 'dev', run_at: end.toISOString() });
    // Frozen anew by the time it is due: it waits for that freeze's end.
    const anew = await addFreezeWindow(A.admin, { stage: 'qa', startsAt: new Date(end.getTime() - 60_000), endsAt: new Date(end.getTime() + HOUR), reason: 'Frozen anew' });
    await deleteFreezeWindow(A.admin, { stage: 'qa', id: first.id });
    const waited = await applyDueScheduledPromotions(new Date(end.getTime() + 1000));
    expect(waited.waiting).toContain(s.id);
    const [pending] = await listScheduledPromotions(dev, { policy: SCHED, stage: 'qa' });
    expect(pending).toMatchObject({ status: 'pending', run_at: new Date(end.getTime() + HOUR).toISOString() });
    expect(await running('qa')).toBeNull();
    await deleteFreezeWindow(A.admin, { stage: 'qa', id: anew.id });
    expect((await applyDueScheduledPromotions(new Date(end.getTime() + HOUR + 1000))).applied).toContain(s.id);
    expect(await running('qa')).toBe(s1.lock.revision_id);
  });

  it('refused by the guard at the time it applies (a bad revision): failed with the guard’s words, audited; a protected stage opens a request', async () => {
    const now = new Date();
    const at = new Date(now.getTime() + HOUR).toISOString();
    const s = await schedulePromotion(dev, { stage: 'dev', policy: SCHED, from: `rev:${s2.lock.revision_id}`, when: 'at', at: new Date(at), expectedRevisionId: s1.lock.revision_id }, now);
    await markRevisionBad(A.admin, { policy: SCHED, revisionId: s2.lock.revision_id, reason: 'breaks apt' });
    const r = await applyDueScheduledPromotions(new Date(Date.parse(at) + 1000));
    expect(r.failed).toContain(s.id);
    const [failed] = (await listScheduledPromotions(dev, { policy: SCHED, stage: 'dev' })).filter((x) => x.id === s.id);
    expect(failed.status).toBe('failed');
    expect(String(failed.outcome!.error)).toContain('breaks apt');
    expect(await running('dev')).toBe(s1.lock.revision_id);
    expect(await db().auditEvent.count({ where: { action: 'promotion.schedule_failed', after: { contains: s.id } } })).toBe(1);
    await unmarkRevisionBad(A.admin, { policy: SCHED, revisionId: s2.lock.revision_id });

    const p = await schedulePromotion(A.release, { stage: 'production', policy: SCHED, from: `rev:${s1.lock.revision_id}`, when: 'at', at: new Date(at), expectedRevisionId: null }, now);
    expect((await applyDueScheduledPromotions(new Date(Date.parse(at) + 1000))).requested).toContain(p.id);
    const [requested] = (await listScheduledPromotions(A.release, { policy: SCHED, stage: 'production' })).filter((x) => x.id === p.id);
    expect(requested).toMatchObject({ status: 'requested', outcome: { request_id: expect.any(String), approvals_required: 2 } });
    expect(await running('production')).toBeNull();
  });

  it('bad input is a 400 naming the field; only promoters schedule; the scheduler or a manager cancels, and a cancelled one never applies', async () => {
    const token = await tokenFor('dev@example.com');
    const past = await call(scheduleRoute.POST, 'POST', { token, params: { group: 'dev', name: SCHED }, body: { from: 'qa', when: 'at', at: '2020-01-01T00:00:00Z', expected_revision_id: s1.lock.revision_id } });
    expect(past.status).toBe(400);
    expect(past.json.errors[0].path).toBe('/at');
    const notFrozen = await call(scheduleRoute.POST, 'POST', { token, params: { group: 'dev', name: SCHED }, body: { from: `rev:${s2.lock.revision_id}`, when: 'freeze_end', expected_revision_id: s1.lock.revision_id } });
    expect(notFrozen.status).toBe(400);
    expect(notFrozen.json.errors[0].path).toBe('/when');
    await expect(schedulePromotion(viewer, { stage: 'dev', policy: SCHED, from: `rev:${s2.lock.revision_id}`, when: 'at', at: new Date(Date.now() + HOUR), expectedRevisionId: s1.lock.revision_id })).rejects.toMatchObject({ status: 403 });

    const at = new Date(Date.now() + HOUR).toISOString();
    const created = await call(scheduleRoute.POST, 'POST', { token, params: { group: 'dev', name: SCHED }, body: { from: `rev:${s2.lock.revision_id}`, when: 'at', at, expected_revision_id: s1.lock.revision_id } });
    expect(created.status).toBe(201);
    const id = created.json.id as string;
    const listed = await call(scheduledListRoute.GET, 'GET', { token, query: `policy=${SCHED}&status=pending` });
    expect(listed.json.scheduled_promotions.map((x: { id: string }) => x.id)).toEqual([id]);
    // The revision's journey shows what is scheduled for it.
    expect((await revisionJourney(dev, SCHED, s2.lock.revision_id)).scheduled).toEqual([{ id, stage: 'dev', when: 'at', run_at: new Date(at).toISOString(), scheduled_by: 'dev@example.com' }]);
    await expect(cancelScheduledPromotion(A.release, { id })).rejects.toMatchObject({ status: 403 });
    const cancelled = await call(scheduledRoute.DELETE, 'DELETE', { token, params: { id } });
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toMatchObject({ status: 'cancelled', outcome: { cancelled_by: 'dev@example.com' } });
    expect((await applyDueScheduledPromotions(new Date(Date.parse(at) + 1000))).applied).not.toContain(id);
    expect(await running('dev')).toBe(s1.lock.revision_id);
  });
  it("the console's server actions: a user without promote on the stage is refused and nothing is stored; times are checked once, naming `at`; the author cancels", async () => {
    const input = { stage: 'dev', policy: SCHED, from: `rev:${s2.lock.revision_id}`, when: 'at' as const, at: new Date(Date.now() + 2 * HOUR).toISOString(), expectedRevisionId: s1.lock.revision_id, reason: 'from the dialog' };
    const fail = (p: Promise<unknown>) => p.then(() => null, (e: ActionServerError) => e);
    await signIn('viewer@example.com');
    const before = snapshot();
    expect(await fail(runAction(schedulePromotionAction, input))).toMatchObject({ code: 'forbidden' });
    session.current = null;
    expect(await fail(runAction(schedulePromotionAction, input))).toMatchObject({ code: 'unauthorized' });
    await signIn('dev@example.com');
    // Bad input, named by field: checked at the action's edge (the schema the API body is derived from), or by the service's clock.
    expect(await fail(runAction(schedulePromotionAction, { ...input, at: '2026-02-30T02:00Z' }))).toMatchObject({ code: 'bad_request', fieldErrors: { at: ['is not a real time (check the day, hour and minute)'] } });
    expect(await fail(runAction(schedulePromotionAction, { ...input, at: '27/11/2026 02:00' }))).toMatchObject({ code: 'bad_request', fieldErrors: { at: ['must be an ISO 8601 time with its zone, e.g. 2026-11-27T02:00:00Z'] } });
    expect(await fail(runAction(schedulePromotionAction, { ...input, at: undefined }))).toMatchObject({ code: 'bad_request', fieldErrors: { at: ["is required when 'when' is 'at'"] } });
    const past = await fail(runAction(schedulePromotionAction, { ...input, at: '2020-01-01T00:00:00Z' }));
    expect(past).toMatchObject({ code: 'bad_request', fieldErrors: { at: [expect.stringMatching(/^must be in the future \(it is .* UTC now\)$/)] } });
    expect(await fail(runAction(schedulePromotionAction, { ...input, when: 'freeze_end', at: undefined }))).toMatchObject({ code: 'bad_request', fieldErrors: { when: ["is 'freeze_end' but the stage is not frozen now"] } });
    expect(snapshot()).toBe(before);

    const scheduled = await runAction(schedulePromotionAction, input);
    expect(scheduled).toMatchObject({ stage: 'dev', policy: SCHED, status: 'pending', when: 'at', run_at: input.at, reason: 'from the dialog', scheduled_by: 'dev@example.com', may_cancel: true });
    expect(await db().auditEvent.count({ where: { action: 'promotion.schedule', after: { contains: scheduled.id } } })).toBe(1);
    // The release manager neither scheduled this nor manages dev: sees it, may not cancel it.
    await signIn('release@example.com');
    const seen = (await listScheduledPromotions(await accessFor('release@example.com'), { policy: SCHED, status: 'pending' })).find((x) => x.id === scheduled.id);
    expect(seen?.may_cancel).toBe(false);
    expect(await fail(runAction(cancelScheduledPromotionAction, { id: scheduled.id }))).toMatchObject({ code: 'forbidden' });
    await signIn('dev@example.com');
    expect(await runAction(cancelScheduledPromotionAction, { id: scheduled.id })).toMatchObject({ status: 'cancelled', may_cancel: false, outcome: { cancelled_by: 'dev@example.com' } });
    expect(await fail(runAction(cancelScheduledPromotionAction, { id: scheduled.id }))).toMatchObject({ code: 'conflict' });
  });
});
