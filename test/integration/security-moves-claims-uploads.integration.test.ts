/**
 * Guards judge a whole move (not its steps), approvals are checked again when a request applies, a node's name is
 * claimed once, webhook targets and uploads are bounded. Issue 28: the third security review's findings, one test (or more) each,
 * over the surfaces the red team used (signed Chef requests, /api/v1 with
 * tokens, the services behind the console's actions). Every test here
 * failed on the build before the fix (see the closing note).
 */
import { createHash } from 'node:crypto';
import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes, accessFor, call, pollUntil, seed, tokenFor } from '@/test/helpers';
import { startChefHarness, type ChefHarness } from '@/test/chef-harness';
import { db } from '@/lib/db/client';
import type { Access } from '@/lib/auth/permissions';
import { computeRevisionId, type PolicyLock } from '@/lib/domain';
import { approvePromotionRequest, getPromotionRequest, requestDetailForPage, requestsForPage } from '@/lib/services/promotion';
import { setGroupPolicy, putStage } from '@/lib/services/stages';
import { uploadRevision, deleteRevision } from '@/lib/services/policies';
import { reportNode, createChefNode } from '@/lib/services/nodes';
import { badRevisions, markRevisionBad, setStageApprover, setStageProtection } from '@/lib/services/guards';
const composeRoute = apiRoutes('/api/v1/policies/[name]/compose');
const nodeRoute = apiRoutes('/api/v1/nodes/[name]');
const webhooksRoute = apiRoutes('/api/v1/webhooks');
import { createWebhook, sendTestWebhook, deliverDue } from '@/lib/services/webhooks';
import {
  commitSandbox,
  createSandbox,
  deleteArtifact,
  putArtifact,
  readPresignedCookbookFile,
  uploadSandboxFile,
  collectFiles,
  GRACE_MS,
  artifactPage,
} from '@/lib/services/cookbooks';
import { createApiToken, updateUser } from '@/lib/services/users';
const boardRoute = apiRoutes('/api/v1/board');

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

describe("medium: a node's name is claimed once", () => {
  const validatorCreates = (name: string) => chef.request('POST', 'clients', { as: 'validator', body: { name, create_key: true } });

  it('the validator may not create a client named like an existing node (a demo node, a node reported through /api/v1)', async () => {
    const node = await db().node.findFirstOrThrow({ where: { name: { startsWith: 'base-production-01' } }, select: { name: true } });
    const r = await validatorCreates(node.name);
    expect(r.status, r.text).toBe(403);
    expect(r.text).toContain('needs an administrator');
    expect(await db().chefClient.count({ where: { name: node.name } })).toBe(0);
    await reportNode(A.dev, { name: 'reported-28', policy_group: 'dev', policy_name: 'webapp' });
    expect((await validatorCreates('reported-28')).status).toBe(403);
    // An administrator may hand an existing node to a new client.
    expect((await chef.request('POST', 'clients', { as: 'admin', body: { name: 'reported-28', create_key: true } })).status).toBe(201);
  });

  it("chef-client's registration still works: a new name, and the same name again once the node's own client was deleted", async () => {
    const r = await validatorCreates('fresh-node-28');
    expect(r.status, r.text).toBe(201);
    const client = await db().chefClient.findFirstOrThrow({ where: { name: 'fresh-node-28' }, select: { id: true } });
    const asClient = { kind: 'client' as const, clientId: client.id, name: 'fresh-node-28', validator: false, via: 'test', userId: null, email: 'client:fresh-node-28', stage: null, stageIsolation: false };
    await createChefNode(asClient, { name: 'fresh-node-28', chef_type: 'node', json_class: 'Chef::Node', policy_group: 'dev', policy_name: 'webapp', automatic: {}, normal: {}, default: {}, override: {}, run_list: [] });
    expect((await chef.request('DELETE', 'clients/fresh-node-28', { as: 'admin' })).status).toBe(200);
    expect((await validatorCreates('fresh-node-28')).status).toBe(201);
  });
});

describe('low findings', () => {
  it('a bad-revision mark survives the revision being deleted and uploaded again', async () => {
    const lock: PolicyLock = { ...(await active('dev', 'webapp'))!.lock, default_attributes: { marker: 28 } };
    const text = withId(lock);
    const id = (JSON.parse(text) as PolicyLock).revision_id;
    await uploadRevision(A.admin, { policyName: 'webapp', text });
    await markRevisionBad(A.admin, { policy: 'webapp', revisionId: id, reason: 'leaks the admin password' });
    await deleteRevision(A.admin, 'webapp', id);
    await uploadRevision(A.admin, { policyName: 'webapp', text });
    const set = await chef.request('PUT', 'policy_groups/dev/policies/webapp', { as: 'admin', body: text });
    expect(set.status, set.text).toBe(409);
    expect(set.text).toContain('leaks the admin password');
    expect((await badRevisions(['webapp']))[`webapp@${id}`]).toBeDefined();
  });

  it('compose "save into stage" on a protected stage answers 202 with the request it opened', async () => {
    await putStage(A.admin, { name: 'guarded28' });
    await setStageProtection(A.admin, { stage: 'guarded28', protected: true, approvalsRequired: 1, rules: [], approvers: ['user:lead@example.com'] });
    const parent = { run_list: ['webapp::default'], cookbook_locks: { webapp: { version: '1.6.0', identifier: 'webapp160' } }, default_attributes: { webapp: { workers: 28 } } };
    const res = await call(composeRoute.POST, 'POST', { token: await tokenFor('admin@example.com'), params: { name: 'webapp' }, body: { parent, includes: [], save: true, group: 'guarded28', expected_revision_id: null } });
    expect(res.status, res.text).toBe(202);
    expect(res.json.request).toMatchObject({ status: 'pending', stage: 'guarded28', policy: 'webapp', approvals_required: 1 });
    expect(res.json.saved).toMatchObject({ status: 202 });
    expect(await active('guarded28', 'webapp')).toBeNull();
  });

  it('/requests offers only the stages the user may view', async () => {
    await putStage(A.admin, { name: 'secret28' });
    const page = await requestsForPage(A.dev, { view: 'all' });
    expect(page.stages).not.toContain('secret28');
    expect(page.stages).toContain('dev');
  });

  it('GET /clients does not reveal the node names of stages the user may not view', async () => {
    await chef.request('POST', 'clients', { as: 'admin', body: { name: 'hidden-node-28', create_key: true } });
    await reportNode(A.admin, { name: 'hidden-node-28', policy_group: 'secret28', policy_name: 'webapp' });
    expect(Object.keys((await chef.request('GET', 'clients', { as: 'admin' })).json)).toContain('hidden-node-28');
    const list = await chef.request('GET', 'clients', { as: 'dev' });
    expect(list.status).toBe(200);
    expect(Object.keys(list.json)).not.toContain('hidden-node-28');
    expect((await chef.request('GET', 'clients/hidden-node-28', { as: 'dev' })).status).toBe(404);
    expect((await chef.request('GET', 'nodes/hidden-node-28', { as: 'dev' })).status).toBe(404);
  });

  it('no stage-existence oracle: a hidden stage answers exactly as a missing one (policy groups and nodes)', async () => {
    await setGroupPolicy(A.admin, { group: 'secret28', policy: 'webapp', text: (await revisionPinning('webapp', 'nginx', '11.5.0')).text });
    const same = async (f: (stage: string) => Promise<{ status: number; text: string }>) => {
      const hidden = await f('secret28');
      const missing = await f('nosuch28');
      expect(hidden.status).toBe(missing.status);
      expect(hidden.text.split('secret28').join('X')).toBe(missing.text.split('nosuch28').join('X'));
      return hidden.status;
    };
    const doc = (await revisionPinning('webapp', 'nginx', '11.5.0')).text;
    expect(await same((g) => chef.request('PUT', `policy_groups/${g}/policies/webapp`, { as: 'dev', body: doc }))).toBe(403);
    expect(await same((g) => chef.request('DELETE', `policy_groups/${g}/policies/webapp`, { as: 'dev' }))).toBe(404);
    expect(await same((g) => chef.request('GET', `policy_groups/${g}`, { as: 'dev' }))).toBe(404);
    const node = (g: string) => ({ name: 'oracle-node-28', chef_type: 'node', json_class: 'Chef::Node', policy_group: g, policy_name: 'webapp', automatic: {}, normal: {}, default: {}, override: {}, run_list: [] });
    expect(await same((g) => chef.request('POST', 'nodes', { as: 'dev', body: node(g) }))).toBe(403);
    expect(await same(async (g) => call(nodeRoute.PUT, 'PUT', { token: await tokenFor('dev@example.com'), params: { name: 'oracle-node-28' }, body: { policy_group: g, policy_name: 'webapp' } }))).toBe(403);
  });
});

describe('low findings: webhooks', () => {
  let server: http.Server;
  let port: number;
  const received: string[] = [];
  const big = { finished: false, closed: false };
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received.push(req.url!);
        if (req.url === '/big') {
          // A 64 MB answer: the worker must stop reading it long before its end.
          res.writeHead(200, { 'content-type': 'application/octet-stream' });
          const chunk = Buffer.alloc(64 * 1024, 120);
          let left = 1024;
          res.on('finish', () => (big.finished = true));
          res.on('close', () => (big.closed = true));
          const pump = () => {
            while (left > 0 && !big.closed) {
              left--;
              if (!res.write(chunk)) return void res.once('drain', pump);
            }
            if (!big.closed) res.end();
          };
          pump();
        } else res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '0.0.0.0', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });
  afterEach(async () => {
    await db().webhookSubscription.deleteMany({});
  });

  /** Runs the worker until the subscription's deliveries are no longer pending (or were attempted once with maxAttempts 1). */
  async function deliverAll(subscriptionId: string, timeoutMs = 10_000) {
    await pollUntil('the deliveries to be attempted', async () => {
      await deliverDue({ timeoutMs, maxAttempts: 1, backoffBaseMs: 10 });
      return !(await db().webhookDelivery.count({ where: { subscriptionId, status: 'pending' } }));
    });
  }
  const log = (subscriptionId: string) => db().webhookAttempt.findMany({ where: { subscriptionId }, select: { statusCode: true, error: true } });

  it('Slack-compatible text is escaped: <!channel> and disguised links from a bad-revision reason stay text', async () => {
    const { webhook } = await createWebhook(A.admin, { name: 'slack28', url: 'https://hooks.example.com/services/x', events: ['revision.marked_bad'], slack: true });
    const text = withId({ ...(await active('dev', 'webapp'))!.lock, default_attributes: { slack: 28 } });
    await uploadRevision(A.admin, { policyName: 'webapp', text });
    await markRevisionBad(A.admin, { policy: 'webapp', revisionId: (JSON.parse(text) as PolicyLock).revision_id, reason: '<!channel> urgent, see <https://evil.example/login|the runbook> & <@U123>' });
    const row = await db().webhookDelivery.findFirstOrThrow({ where: { subscriptionId: webhook.id }, select: { payload: true } });
    const body = JSON.parse(row.payload) as { text: string };
    expect(body.text).not.toContain('<!channel>');
    expect(body.text).not.toContain('<https://');
    expect(body.text).not.toContain('<@U123>');
    expect(body.text).toContain('&lt;!channel&gt; urgent, see &lt;https://evil.example/login|the runbook&gt; &amp; &lt;@U123&gt;');
  });

  it('registration refuses loopback, link-local, private, unspecified, [::1] and decimal-IP URLs unless an admin allows them', async () => {
    const token = await tokenFor('admin@example.com');
    for (const url of ['http://127.0.0.1:8080/hook', 'http://169.254.169.254/latest/meta-data/', 'http://[::1]/hook', 'http://2130706433/hook', 'http://0.0.0.0:9000/', 'http://10.1.2.3/hook', 'http://192.168.1.1/', 'http://localhost:3000/hook', 'http://[::ffff:127.0.0.1]/', 'http://[fe80::1]/']) {
      const res = await call(webhooksRoute.POST, 'POST', { token, body: { name: 'ssrf', url, events: ['request.opened'] } });
      expect(res.status, `${url}: ${res.text}`).toBe(400);
      expect(res.json.errors[0].path).toBe('/url');
    }
    const allowed = await call(webhooksRoute.POST, 'POST', { token, body: { name: 'lan', url: 'http://10.1.2.3/hook', events: ['request.opened'], allow_private_targets: true } });
    expect(allowed.status).toBe(201);
    expect(allowed.json.webhook.allow_private_targets).toBe(true);
  });

  it('a host name that resolves to a private address is refused on delivery, and the log shows no detail of the target', async () => {
    const host = os.hostname();
    const addresses = await dns.promises.lookup(host, { all: true });
    // Precondition (not a skip): this machine's own name resolves to a non-public address (a container, loopback).
    const nonPublic = /^(127\.|10\.|172\.(1[6-9]|2\d|3[01])\.|192\.168\.|::1$|fe80:|f[cd][0-9a-f]{2}:)/i;
    expect(addresses.every((a) => nonPublic.test(a.address)), JSON.stringify(addresses)).toBe(true);
    const { webhook } = await createWebhook(A.admin, { name: 'rebind', url: `http://${host}:${port}/rebind`, events: ['request.opened'] });
    await sendTestWebhook(A.admin, webhook.id);
    await deliverAll(webhook.id);
    expect(received).not.toContain('/rebind');
    const attempts = await log(webhook.id);
    expect(attempts).toHaveLength(1);
    expect(attempts[0].statusCode).toBeNull();
    expect(attempts[0].error).toMatch(/^refused: /);
    expect(attempts[0].error).not.toContain(String(port));
  });

  it('a refused connection is logged without its error code or port', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const { webhook } = await createWebhook(A.admin, { name: 'closed', url: `http://127.0.0.1:${closedPort}/x`, events: ['request.opened'], allow_private_targets: true });
    await sendTestWebhook(A.admin, webhook.id);
    await deliverAll(webhook.id);
    const [attempt] = await log(webhook.id);
    expect(attempt.error).toBe('connection failed');
  });

  it("a receiver's answer is read only up to a small limit: a 64 MB answer is cut off, the delivery still counts", async () => {
    const { webhook } = await createWebhook(A.admin, { name: 'big', url: `http://127.0.0.1:${port}/big`, events: ['request.opened'], allow_private_targets: true });
    await sendTestWebhook(A.admin, webhook.id);
    await deliverAll(webhook.id, 60_000);
    const [attempt] = await log(webhook.id);
    expect(attempt).toEqual({ statusCode: 200, error: null });
    await until(() => big.closed);
    expect(big.finished).toBe(false);
  });
});

/** Waits for a condition driven by I/O, with a deadline (pollUntil). */
async function until(cond: () => boolean) {
  await pollUntil('the webhook receiver', cond, { everyMs: 10 });
}

describe('low findings: uploads, artifacts, JSON depth, credentials', () => {
  const md5 = (s: string) => createHash('md5').update(s).digest('hex');
  const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');
  const user = (a: Access) => a;
  async function artifact(by: Access, name: string, files: Record<string, string>, now = new Date()) {
    const identifier = sha1(`${name}:${JSON.stringify(files)}`);
    const sb = await createSandbox(user(by), { checksums: Object.fromEntries(Object.values(files).map((c) => [md5(c), null])) }, now);
    for (const c of Object.values(files)) await uploadSandboxFile(user(by), sb.id, md5(c), Buffer.from(c), null, now);
    await commitSandbox(user(by), sb.id, { is_completed: true }, now);
    const manifest = { name: `${name}-1.0.0`, cookbook_name: name, identifier, version: '1.0.0', chef_type: 'cookbook_version', frozen: false, metadata: { name, version: '1.0.0', dependencies: {} }, all_files: Object.entries(files).map(([p, c]) => ({ name: p, path: p, checksum: md5(c), specificity: 'default' })) };
    await putArtifact(user(by), name, identifier, manifest);
    return identifier;
  }
  /** A dev revision of webapp that also pins `cookbook` at `identifier`. */
  async function revisionPinningArtifact(cookbook: string, identifier: string) {
    const base = (await active('dev', 'webapp'))!.lock;
    const text = withId({ ...base, cookbook_locks: { ...base.cookbook_locks, [cookbook]: { version: '1.0.0', identifier } } });
    await uploadRevision(A.admin, { policyName: 'webapp', text });
    return text;
  }

  it("only a team of the uploader (or an admin) deletes a team's cookbook artifact", async () => {
    const id = await artifact(A.dev, 'teamcb28', { 'recipes/default.rb': 'log "team"' });
    const ops = await accessFor('ops@example.com');
    await expect(deleteArtifact(user(ops), 'teamcb28', id)).rejects.toMatchObject({ status: 403 });
    expect(await db().cookbookArtifact.count({ where: { name: 'teamcb28' } })).toBe(1);
    await deleteArtifact(user(A.dev), 'teamcb28', id);
    expect(await db().cookbookArtifact.count({ where: { name: 'teamcb28' } })).toBe(0);
  });

  it('an artifact pinned by a pending request or by a rollback target is not deleted', async () => {
    const pendingId = await artifact(A.dev, 'pendcb28', { 'recipes/default.rb': 'log "pending"' });
    const text = await revisionPinningArtifact('pendcb28', pendingId);
    const asked = await setGroupPolicy(A.admin, { group: 'guarded28', policy: 'webapp', text });
    expect(asked.status).toBe(202);
    await expect(deleteArtifact(user(A.dev), 'pendcb28', pendingId)).rejects.toMatchObject({ status: 409 });

    const rollbackId = await artifact(A.dev, 'rbcb28', { 'recipes/default.rb': 'log "rollback"' });
    const before = (await active('dev', 'webapp'))!;
    const pinning = await revisionPinningArtifact('rbcb28', rollbackId);
    await setGroupPolicy(A.admin, { group: 'dev', policy: 'webapp', text: pinning });
    await setGroupPolicy(A.admin, { group: 'dev', policy: 'webapp', text: JSON.stringify(before.lock) });
    expect((await active('dev', 'webapp'))!.revisionId).toBe(before.revisionId);
    await expect(deleteArtifact(user(A.dev), 'rbcb28', rollbackId)).rejects.toMatchObject({ status: 409 });
    expect(await db().cookbookArtifact.count({ where: { name: { in: ['pendcb28', 'rbcb28'] } } })).toBe(2);
  });

  it('a sandbox request is bounded (413 naming the field), and so is an artifact page (paged file list)', async () => {
    const many = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [md5(`f${i}`), null]));
    const r = await chef.request('POST', 'sandboxes', { as: 'dev', body: { checksums: many } });
    expect(r.status).toBe(413);
    expect(r.text).toContain('at most');
    expect(await db().sandbox.count({ where: { checksums: { contains: md5('f19999') } } })).toBe(0);
    // An artifact whose manifest lists 5,000 files (written directly, as an old upload could have been).
    const files = Array.from({ length: 5000 }, (_, i) => ({ name: `files/f${String(i).padStart(5, '0')}`, path: `files/f${String(i).padStart(5, '0')}`, checksum: md5(`page${i}`), specificity: 'default' }));
    await db().cookbookArtifact.create({ data: { name: 'bigcb28', identifier: sha1('bigcb28'), version: '1.0.0', manifest: JSON.stringify({ name: 'bigcb28-1.0.0', cookbook_name: 'bigcb28', version: '1.0.0', metadata: { name: 'bigcb28', version: '1.0.0' }, all_files: files }) } });
    const page = (await artifactPage('bigcb28', sha1('bigcb28'), null))!;
    expect(page.files.length).toBeLessThanOrEqual(200);
    expect((page as unknown as { totalFiles: number }).totalFiles).toBe(5000);
    const last = (await artifactPage('bigcb28', sha1('bigcb28'), null, 25))!;
    expect(last.files[last.files.length - 1].path).toBe('files/f04999');
  });

  it('files uploaded to a sandbox that expired are collected when nothing names them', async () => {
    const t0 = new Date('2026-11-01T00:00:00Z');
    const orphan = 'log "never committed"';
    const kept = 'log "used by an artifact"';
    const sb = await createSandbox(user(A.dev), { checksums: { [md5(orphan)]: null } }, t0);
    await uploadSandboxFile(user(A.dev), sb.id, md5(orphan), Buffer.from(orphan), null, t0);
    await artifact(A.dev, 'keptcb28', { 'recipes/default.rb': kept }, t0);
    expect(await db().cookbookFile.count({ where: { checksum: { in: [md5(orphan), md5(kept)] } } })).toBe(2);
    // Two days later, another upload starts: the expired sandboxes are collected; their unused files become orphans,
    // no longer served, and leave the file store after the grace period (issue 46).
    const t2 = new Date(t0.getTime() + 2 * 24 * 3600 * 1000);
    await createSandbox(user(A.dev), { checksums: { [md5('later')]: null } }, t2);
    expect(await db().storedFile.findUnique({ where: { checksum: md5(orphan) }, select: { state: true } })).toEqual({ state: 'orphan' });
    await expect(readPresignedCookbookFile(md5(orphan))).rejects.toMatchObject({ status: 404 });
    await collectFiles({ now: new Date(t2.getTime() + GRACE_MS + 1) });
    expect(await db().cookbookFile.count({ where: { checksum: md5(orphan) } })).toBe(0);
    expect(await db().storedFile.count({ where: { checksum: md5(orphan) } })).toBe(0);
    expect(await db().cookbookFile.count({ where: { checksum: md5(kept) } })).toBe(1);
  });

  it('one JSON depth limit on every body: Chef nodes and artifacts, /api/v1, server actions (400, nothing stored)', async () => {
    const deep = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
    const nodeBody = `{"name":"deep-node-28","chef_type":"node","json_class":"Chef::Node","policy_group":"dev","policy_name":"webapp","run_list":[],"automatic":{},"default":{},"override":{},"normal":${deep(4000)}}`;
    const n = await chef.request('POST', 'nodes', { as: 'admin', body: nodeBody });
    expect(n.status, n.text.slice(0, 200)).toBe(400);
    expect(await db().node.count({ where: { name: 'deep-node-28' } })).toBe(0);
    const a = await chef.request('PUT', `cookbook_artifacts/deepcb/${sha1('deep')}`, { as: 'admin', body: `{"name":"deepcb-1.0.0","cookbook_name":"deepcb","version":"1.0.0","metadata":${deep(5000)},"all_files":[]}` });
    expect(a.status, a.text.slice(0, 200)).toBe(400);
    const s = await chef.request('POST', 'sandboxes', { as: 'admin', body: `{"checksums":${deep(5000)}}` });
    expect(s.status).toBe(400);
    const api = await call(nodeRoute.PUT, 'PUT', { token: await tokenFor('admin@example.com'), params: { name: 'deep-api-28' }, body: `{"policy_group":"dev","policy_name":"webapp","platform":${deep(5000)}}` });
    expect(api.status).toBe(400);
    // A server action's input: the same limit, checked before the action's schema.
    let nested: unknown = 'x';
    for (let i = 0; i < 200; i++) nested = { a: nested };
    const { assertInputDepth } = await import('@/lib/validation/limits');
    expect(() => assertInputDepth(nested)).toThrow(/nests deeper than 72 levels/);
  });

  it("a password reset or a deactivation ends the user's API tokens and Chef keys", async () => {
    expect((await chef.request('GET', 'policies', { as: 'viewer' })).status).toBe(200);
    const token = (await createApiToken(null, { userEmail: 'viewer@example.com', name: 'before-reset' })).token;
    expect((await call(boardRoute.GET, 'GET', { token })).status).toBe(200);
    await updateUser(A.admin, { email: 'viewer@example.com', password: 'a-brand-new-password-28' });
    expect((await call(boardRoute.GET, 'GET', { token })).status).toBe(401);
    expect((await chef.request('GET', 'policies', { as: 'viewer' })).status).toBe(401);
    const keys = await db().chefKey.findMany({ where: { user: { email: 'viewer@example.com' } }, select: { expiresAt: true } });
    expect(keys.length).toBeGreaterThan(0);
    for (const k of keys) expect(k.expiresAt!.getTime()).toBeLessThanOrEqual(Date.now());
  });
});
