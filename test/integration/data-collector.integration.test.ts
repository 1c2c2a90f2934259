/**
 * Issue 26: chef-client's data collector messages, exactly as chef-client
 * 18.4.64 sent them (recorded from a real run: test/fixtures/data-collector),
 * over real HTTP with real signatures; the refusals (another node's client,
 * the validator, oversize, malformed) store nothing; Automate's token form;
 * retention; the node's run history.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '@/lib/db/client';
import { cleanupRunReports, ingestRunMessage } from '@/lib/services/runs';
const { GET: nodeRuns } = apiRoutes('/api/v1/nodes/[name]/runs');
import { startChefHarness, type ChefActor, type ChefHarness } from '../chef-harness';
import { call, placeNode, snapshot, tokenFor } from '../helpers';
import { apiRoutes } from '@/test/helpers';

const FIXTURES = path.resolve('test/fixtures/data-collector');
const read = (f: string) => fs.readFileSync(path.join(FIXTURES, f), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
const [okStart, okConverge] = read('chef-18.4.64-success.jsonl');
const [failStart, failConverge] = read('chef-18.4.64-failure.jsonl');

let chef: ChefHarness;
beforeAll(async () => {
  chef = await startChefHarness();
  // Issue 41: runs count in the stage the console has the node in: the recorded nodes are in dev, running rollout-app.
  for (const n of ['rec-ok', 'rec-fail']) await placeNode(n, 'dev', 'rollout-app');
});
afterAll(async () => chef.close());

const post = (body: unknown, as: ChefActor) => chef.request('POST', 'data-collector', { as, body });
// Signing in as a client or the validator may create its key and client row (and the client's search index rows).
const except = ['ChefKey', 'ChefClient', 'ChefName', 'AuditEvent', 'User', 'SearchDoc', 'SearchChunk', 'SearchDocChunk', 'SearchEntry', 'SearchField'];

describe('POST /organizations/<org>/data-collector (signed by the node)', () => {
  it('stores a successful run exactly as chef-client 18 reported it', async () => {
    expect(okStart.message_type).toBe('run_start');
    const s = await post(okStart, 'client:rec-ok');
    expect(s.status, s.text).toBe(201);
    expect(s.json).toEqual({ run_id: okStart.run_id, message_type: 'run_start', status: 'started' });
    expect(await db().runReport.findUnique({ where: { runId: okStart.run_id }, select: { status: true, nodeName: true, clientName: true } })).toEqual({ status: 'started', nodeName: 'rec-ok', clientName: 'rec-ok' });

    const c = await post(okConverge, 'client:rec-ok');
    expect(c.status, c.text).toBe(201);
    const row = await db().runReport.findUniqueOrThrow({ where: { runId: okConverge.run_id } });
    expect(row).toMatchObject({
      nodeName: 'rec-ok',
      groupName: 'dev',
      policyName: 'rollout-app',
      revisionId: okConverge.node.automatic.policy_revision,
      status: 'success',
      totalResources: 3,
      updatedResources: 2,
      failedResources: 0,
      errorClass: null,
      failedResource: null,
      source: 'chef_client',
    });
    expect(row.startTime.toISOString()).toBe(new Date(okConverge.start_time).toISOString());
    expect(row.endTime!.toISOString()).toBe(new Date(okConverge.end_time).toISOString());
    expect(JSON.parse(row.resources).map((r: { type: string; status: string; duration_ms: number | null }) => [r.type, r.status, r.duration_ms])).toEqual([
      ['file', 'updated', 34],
      ['ruby_block', 'updated', 3],
      ['log', 'up-to-date', 1],
    ]);
    expect(await db().runReport.count({ where: { nodeName: 'rec-ok' } })).toBe(1);
    expect(await db().nodeRunState.findUnique({ where: { nodeName: 'rec-ok' }, select: { status: true, revisionId: true, groupName: true } })).toEqual({ status: 'success', revisionId: okConverge.node.automatic.policy_revision, groupName: 'dev' });
  });

  it('stores a failed run with the error and the resource and cookbook that raised it', async () => {
    expect((await post(failStart, 'client:rec-fail')).status).toBe(201);
    const c = await post(failConverge, 'client:rec-fail');
    expect(c.status, c.text).toBe(201);
    expect(c.json).toEqual({ run_id: failConverge.run_id, message_type: 'run_converge', status: 'failure' });
    const row = await db().runReport.findUniqueOrThrow({ where: { runId: failConverge.run_id } });
    expect(row).toMatchObject({
      status: 'failure',
      errorClass: 'RuntimeError',
      errorMessage: 'ruby_block[check release] (rollout::default line 4) had an error: RuntimeError: the new release breaks this node',
      failedResource: 'ruby_block[check release]',
      failedCookbook: 'rollout',
      failedRecipe: 'default',
      failedResources: 1,
      updatedResources: 1,
      totalResources: 3,
    });
  });

  it('a retried run_converge changes nothing', async () => {
    const before = snapshot({ except });
    const again = await post(failConverge, 'client:rec-fail');
    expect(again.status).toBe(201);
    expect(snapshot({ except })).toBe(before);
  });

  it("a client reporting another node's run is refused and nothing is stored", async () => {
    const before = snapshot({ except });
    const other = { ...okConverge, run_id: '11111111-2222-3333-4444-555555555555', id: '11111111-2222-3333-4444-555555555555' };
    const r = await post(other, 'client:rec-fail');
    expect(r.status).toBe(403);
    expect(r.json.error[0]).toBe("Client 'rec-fail' may only report its own runs, not node 'rec-ok's.");
    // Nor may it overwrite another node's run by reusing its run_id.
    const hijack = await post({ ...failConverge, node_name: 'rec-fail', run_id: okConverge.run_id, node: { ...failConverge.node } }, 'client:rec-fail');
    expect(hijack.status).toBe(409);
    expect(snapshot({ except })).toBe(before);
  });

  it('the validator may not report runs', async () => {
    const before = snapshot({ except });
    const r = await post({ ...okStart, run_id: '21111111-2222-3333-4444-555555555555' }, 'validator');
    expect(r.status).toBe(403);
    expect(snapshot({ except })).toBe(before);
  });

  it('malformed messages get a 400 naming the field, and nothing is stored', async () => {
    const before = snapshot({ except });
    const cases: [unknown, string][] = [
      ['not json', ''],
      [[1, 2], ''],
      [{ ...okConverge, message_type: 'run_exploded' }, '/message_type'],
      [{ ...okConverge, run_id: undefined }, '/run_id'],
      [{ ...okConverge, run_id: '../../etc' }, '/run_id'],
      [{ ...okConverge, status: 'meh' }, '/status'],
      [{ ...okConverge, end_time: 'yesterday' }, '/end_time'],
      [{ ...okConverge, resources: 'many' }, '/resources'],
      [{ ...okConverge, total_resource_count: -1 }, '/total_resource_count'],
      [{ ...okConverge, policy_group: 'no spaces allowed' }, '/policy_group'],
      [{ ...okConverge, node: { ...okConverge.node, name: 'someone-else' } }, '/node/name'],
    ];
    for (const [body, pointer] of cases) {
      const r = await chef.request('POST', 'data-collector', { as: 'client:rec-ok', body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'x-console-error-detail': '1' } });
      expect(r.status, `${pointer}: ${r.text}`).toBe(400);
      if (pointer) expect(r.json.errors?.[0]?.path, r.text).toBe(pointer);
    }
    expect(snapshot({ except })).toBe(before);
  });

  it('an oversize message is refused with 413 and nothing is stored', async () => {
    const before = snapshot({ except });
    process.env.DATA_COLLECTOR_MAX_BYTES = '2048';
    try {
      const r = await post({ ...okConverge, run_id: '31111111-2222-3333-4444-555555555555' }, 'client:rec-ok');
      expect(r.status).toBe(413);
      expect(r.json.error[0]).toMatch(/at most 2048 bytes \(DATA_COLLECTOR_MAX_BYTES\)/);
    } finally {
      delete process.env.DATA_COLLECTOR_MAX_BYTES;
    }
    expect(snapshot({ except })).toBe(before);
  });

  it("is bounded by DATA_COLLECTOR_MAX_BYTES, not Chef's JSON limit (open question 7); the other routes keep Chef's", async () => {
    const message = { ...okStart, run_id: '31111111-2222-3333-4444-666666666666' };
    const size = Buffer.byteLength(JSON.stringify(message));
    process.env.CHEF_MAX_REQUEST_SIZE = String(Math.floor(size / 2));
    try {
      const r = await post(message, 'client:rec-ok');
      expect(r.status, r.text).toBe(201);
      expect(await db().runReport.findUnique({ where: { runId: message.run_id }, select: { nodeName: true } })).toEqual({ nodeName: 'rec-ok' });
      // The same size to a node: Chef's limit, Chef's text.
      const node = await chef.request('PUT', 'nodes/rec-ok', { as: 'client:rec-ok', body: JSON.stringify({ name: 'rec-ok', pad: 'x'.repeat(size) }) });
      expect(node.status).toBe(413);
      expect(node.json).toEqual({ error: `JSON must be no more than ${Math.floor(size / 2)} bytes.` });
    } finally {
      delete process.env.CHEF_MAX_REQUEST_SIZE;
    }
  });

  it('an unsigned message is refused', async () => {
    const r = await post(okStart, 'anonymous');
    expect(r.status).toBe(401);
  });
});

describe('messages that arrive together (one transaction for the batch)', () => {
  it('stores each, answers each with its own outcome, and a refused one fails alone', async () => {
    const nodes = ['grp-1', 'grp-2', 'grp-3', 'grp-4', 'grp-5'];
    const msg = (node: string, i: number) => {
      const runId = `51111111-2222-3333-4444-${String(i).padStart(12, '0')}`;
      return { ...okConverge, node_name: node, run_id: runId, id: runId, node: { ...okConverge.node, name: node } };
    };
    const first = msg('grp-1', 1);
    const results = await Promise.allSettled([
      ...nodes.map((n, i) => ingestRunMessage({ kind: 'token' }, msg(n, i + 1))),
      // The same run again in the same batch (a retry: the first one counts), and another node reusing a run_id of this batch (409).
      ingestRunMessage({ kind: 'token' }, first),
      ingestRunMessage({ kind: 'token' }, { ...first, node_name: 'grp-thief', node: { ...first.node, name: 'grp-thief' } }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected']);
    expect(((results[6] as PromiseRejectedResult).reason as Error).message).toBe(`Run '${first.run_id}' belongs to another node`);
    expect(await db().runReport.count({ where: { nodeName: { in: [...nodes, 'grp-thief'] } } })).toBe(5);
    expect((await db().nodeRunState.findMany({ where: { nodeName: { startsWith: 'grp-' } }, select: { nodeName: true, status: true }, orderBy: { nodeName: 'asc' } })).map((s) => `${s.nodeName} ${s.status}`)).toEqual(nodes.map((n) => `${n} success`));
  });
});

describe("Automate's token form: POST /data-collector/v0", () => {
  const send = (body: unknown, headers: Record<string, string>) =>
    fetch(`${chef.url}/data-collector/v0/`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const msg = { ...okConverge, node_name: 'automate-node', run_id: '41111111-2222-3333-4444-555555555555', node: { ...okConverge.node, name: 'automate-node' } };

  it('is off (404) without DATA_COLLECTOR_TOKEN', async () => {
    const r = await send(msg, { 'x-data-collector-token': 'anything' });
    expect(r.status).toBe(404);
  });

  it('takes a message with the configured token, refuses a wrong or missing one', async () => {
    process.env.DATA_COLLECTOR_TOKEN = 'sekret-token-of-the-fleet';
    try {
      const before = snapshot({ except });
      expect((await send(msg, { 'x-data-collector-token': 'wrong' })).status).toBe(401);
      expect((await send(msg, {})).status).toBe(401);
      expect(snapshot({ except })).toBe(before);
      const r = await send(msg, { 'x-data-collector-token': 'sekret-token-of-the-fleet', 'x-data-collector-auth': 'version=1.0' });
      expect(r.status).toBe(201);
      expect(await db().runReport.findUnique({ where: { runId: msg.run_id }, select: { nodeName: true, clientName: true, status: true } })).toEqual({ nodeName: 'automate-node', clientName: null, status: 'success' });
    } finally {
      delete process.env.DATA_COLLECTOR_TOKEN;
    }
  });

  it('another method is a 405 from the route table, with Allow: POST, token or not', async () => {
    for (const token of ['sekret-token-of-the-fleet', undefined]) {
      if (token) process.env.DATA_COLLECTOR_TOKEN = token;
      try {
        for (const method of ['GET', 'PUT', 'DELETE']) {
          const r = await fetch(`${chef.url}/data-collector/v0`, { method, headers: token ? { 'x-data-collector-token': token } : {} });
          expect(r.status, `${method} ${token ? 'with' : 'without'} a token`).toBe(405);
          expect(r.headers.get('allow')).toBe('POST');
          expect(await r.json()).toEqual({ error: [`Method ${method} is not allowed on /data-collector/v0`] });
        }
      } finally {
        delete process.env.DATA_COLLECTOR_TOKEN;
      }
    }
  });

  it('is served at the server level only', async () => {
    process.env.DATA_COLLECTOR_TOKEN = 'sekret-token-of-the-fleet';
    try {
      const r = await fetch(`${chef.orgUrl}/data-collector/v0`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-data-collector-token': 'sekret-token-of-the-fleet' }, body: JSON.stringify(msg) });
      expect(r.status).toBe(404);
    } finally {
      delete process.env.DATA_COLLECTOR_TOKEN;
    }
  });
});

describe('run history and retention', () => {
  it("the node's runs through /api/v1 show the failure and the resources that changed", async () => {
    // rec-fail is in dev in the console (its node row): its runs count there.
    const r = await call(nodeRuns, 'GET', { token: await tokenFor('admin@example.com'), params: { name: 'rec-fail' } });
    expect(r.status, r.text).toBe(200);
    const [run] = r.json.runs;
    expect(run).toMatchObject({ node: 'rec-fail', status: 'failure', stage: 'dev', policy: 'rollout-app', error: { class: 'RuntimeError', resource: 'ruby_block[check release]', cookbook: 'rollout', recipe: 'default' } });
    expect(run.changed.map((c: { type: string; name: string; status: string }) => `${c.type}[${c.name.split('/').pop()}] ${c.status}`)).toEqual(['file[rec-fail] updated', 'ruby_block[check release] failed']);
    const missing = await call(nodeRuns, 'GET', { token: await tokenFor('admin@example.com'), params: { name: 'no-such-node' } });
    expect(missing.status).toBe(404);
  });

  it('the cleanup job deletes runs older than the retention period and keeps the rest', async () => {
    const now = new Date();
    await db().runReport.create({ data: { runId: 'old-run-1', nodeName: 'rec-ok', status: 'success', startTime: new Date(now.getTime() - 31 * 86_400_000), endTime: new Date(now.getTime() - 31 * 86_400_000), receivedAt: now } });
    const kept = await db().runReport.count();
    expect(await cleanupRunReports(now)).toBe(1);
    expect(await db().runReport.findUnique({ where: { runId: 'old-run-1' } })).toBeNull();
    expect(await db().runReport.count()).toBe(kept - 1);
    // A shorter period (RUN_RETENTION_DAYS) applies as configured.
    expect(await cleanupRunReports(new Date(now.getTime() + 40 * 86_400_000), 30)).toBe(kept - 1);
  });
});
