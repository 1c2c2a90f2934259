/**
 * Issue 29: request notifications carry absolute links to the request, built from PUBLIC_URL, and
 * subscriptions get the body format they asked for — the signed JSON envelope (with `url` and the change
 * summary), Slack (`text` + `blocks`) or Teams (a message with an Adaptive Card) — through the one outbox
 * (the delivery row's payload is the exact body the worker sends). Text from users is escaped for each target.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessFor, call, seed, tokenFor } from '@/test/helpers';
import { db } from '@/lib/db/client';
import type { Access } from '@/lib/auth/permissions';
import { buildDemoLock, type DemoPolicySpec } from '@/lib/seed/demo-data';
import { uploadRevision } from '@/lib/services/upload-revision';
import { promotePolicy } from '@/lib/services/promote-policy';
import { approvePromotionRequest, rejectPromotionRequest } from '@/lib/services/promotion-requests';
import { createWebhook } from '@/lib/services/webhooks';
import { absoluteUrl } from '@/lib/services/internal/outbox';
import * as webhooksRoute from '@/app/api/v1/webhooks/route';

const POLICY = 'notify-app';
const spec: DemoPolicySpec = {
  name: POLICY,
  team: 'core',
  runList: ['recipe[apt::default]'],
  revisions: [
    { cookbooks: { apt: '7.4.0' }, default: { notify: 1 } },
    { cookbooks: { apt: '7.5.0' }, default: { notify: 2 } },
  ],
  stages: {},
  nodes: { platform: 'ubuntu', platform_family: 'debian', platform_version: '22.04' },
};
const [v1, v2] = [0, 1].map((i) => buildDemoLock(spec, i));
const BASE = 'https://console.example.com';
const EVENTS = ['request.opened', 'request.approved', 'request.applied', 'request.rejected'];
const A: Record<string, Access> = {};
const subs: Record<string, string> = {};
const saved = { PUBLIC_URL: process.env.PUBLIC_URL, NEXTAUTH_URL: process.env.NEXTAUTH_URL };
let requestId = '';
let rejectedId = '';

async function payloads(sub: string, event: string) {
  const rows = await db().webhookDelivery.findMany({ where: { subscriptionId: subs[sub], event }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], select: { payload: true } });
  return rows.map((r) => JSON.parse(r.payload) as any);
}

beforeAll(async () => {
  await seed();
  process.env.PUBLIC_URL = `${BASE}/`;
  delete process.env.NEXTAUTH_URL;
  for (const u of ['admin', 'lead', 'release']) A[u] = await accessFor(`${u}@example.com`);
  for (const format of ['json', 'slack', 'teams'] as const) {
    subs[format] = (await createWebhook(A.admin, { name: `notify-${format}`, url: `https://hooks.example.com/${format}`, events: EVENTS as never, format })).webhook.id;
  }
  await uploadRevision(A.admin, { policyName: POLICY, text: v1.text });
  await uploadRevision(A.admin, { policyName: POLICY, text: v2.text });
  const asked = await promotePolicy(A.release, { policy: POLICY, from: `rev:${v1.lock.revision_id}`, to: 'production', expectedRevisionId: null, reason: 'ship it [now](https://evil.example) <!channel>' });
  requestId = asked.request!.id;
  await approvePromotionRequest(A.lead, { id: requestId, comment: 'fine by me' });
  await approvePromotionRequest(A.admin, { id: requestId });
  const again = await promotePolicy(A.release, { policy: POLICY, from: `rev:${v2.lock.revision_id}`, to: 'production', expectedRevisionId: v1.lock.revision_id });
  rejectedId = again.request!.id;
  await rejectPromotionRequest(A.lead, { id: rejectedId, comment: 'not during <@U123> *sale* [week](https://evil.example)' });
});

afterAll(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
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
    expect(opened.blocks[0].text.text).toBe(`Approval needed: ${POLICY} into production`);
    const fields = opened.blocks[2].fields.map((f: { text: string }) => f.text);
    expect(fields).toEqual(expect.arrayContaining(['*Stage*\nproduction', `*Policy*\n${POLICY}`, '*Requested by*\nrelease@example.com', '*Approvals required*\n2']));
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
