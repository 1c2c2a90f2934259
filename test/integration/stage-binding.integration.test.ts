/**
 * Issue 41 (docs/stage-binding.md): the fourth security review's findings about a node's stage, clients and keys,
 * one test (or more) each, over real HTTP with real signatures, on both databases. A node's stage is the console's
 * fact; a client names only its node's stage (node save, policy read, run report); the plain validator enrolls
 * only into open stages, a stage validator into its stage; renames and key writes cannot take a node; client names
 * are per organization; the lows (a hidden stage like a missing one on /api/v1, org-scoped user keys, HSTS).
 * Every test here failed on main at 87c65ee (the closing note lists them).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '@/lib/db/client';
import { signRequest } from '@/lib/auth/chef-signing';
import { startChefServer } from '@/lib/chef/http';
import { rotateValidator } from '@/lib/services/clients';
import { HOME_MEMBERSHIP } from '@/lib/services/organizations';
import { startChefHarness, type ChefActor, type ChefHarness } from '@/test/chef-harness';
import { API_CONTRACTS } from '@/lib/api/contracts';
import { apiRoutes, call, snapshot, tokenFor } from '@/test/helpers';
import { selfSignedCert } from '@/test/tls-cert';

let chef: ChefHarness;
beforeAll(async () => {
  chef = await startChefHarness();
});
afterAll(async () => chef.close());

const SYSTEM = { kind: 'system' as const, userId: null, email: 'test' };
const DEV_NODE = 'webapp-dev-01.example.com';
const PROD_NODE = 'webapp-production-01.example.com';

/** A request signed with any key (a client the validator registered, another organization's validator). */
async function signed(method: string, p: string, name: string, key: string, body?: unknown) {
  const full = p.startsWith('/') ? p : `/organizations/${chef.org}/${p}`;
  const text = body === undefined ? '' : JSON.stringify(body);
  const headers = signRequest({ protocol: '1.1', method, path: full, body: text, userId: name, privateKey: key, apiVersion: '1' });
  const res = await fetch(`${chef.url}${full}`, { method, headers: { ...headers, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : text });
  const raw = await res.text();
  let json: any;
  try {
    json = JSON.parse(raw);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text: raw, headers: res.headers };
}

/** A client registered through a validator (chef-client's POST /clients), with its private key. */
async function register(validatorName: string, validatorKey: string, name: string, org = chef.org) {
  const r = await signed('POST', `/organizations/${org}/clients`, validatorName, validatorKey, { name, create_key: true });
  expect(r.status, r.text).toBe(201);
  return r.json.chef_key.private_key as string;
}

const plainValidatorKey = () => chef.privateKey('validator');
const node = (name: string, group?: string, extra: Record<string, unknown> = {}) => ({ name, chef_type: 'node', json_class: 'Chef::Node', chef_environment: group ?? '_default', run_list: [], normal: {}, default: {}, override: {}, automatic: {}, ...(group ? { policy_group: group, policy_name: 'webapp' } : {}), ...extra });
const stageOf = async (name: string) => (await db().node.findUnique({ where: { name }, select: { group: { select: { name: true } } } }))?.group?.name ?? null;

/** A data bag restricted to production, with one item: the secret a production node reads. */
async function productionBag() {
  if (!(await db().dataBag.findUnique({ where: { name: 'prod-secrets' } }))) {
    expect((await chef.request('POST', 'data', { as: 'dev', body: { name: 'prod-secrets' } })).status).toBe(201);
    expect((await chef.request('POST', 'data/prod-secrets', { as: 'dev', body: { id: 'db', password: 'hunter2' } })).status).toBe(201);
    const bag = await db().dataBag.findUniqueOrThrow({ where: { name: 'prod-secrets' } });
    await db().dataBagStage.create({ data: { bagId: bag.id, stageName: 'production' } });
  }
}

describe('finding 1: a node cannot place itself in another stage', () => {
  it("a dev node's client saving its node as production is refused, and the production-only bag stays closed", async () => {
    await productionBag();
    const as: ChefActor = `client:${DEV_NODE}`;
    expect((await chef.request('GET', 'data/prod-secrets/db', { as })).status).toBe(403);
    const current = (await chef.request('GET', `nodes/${DEV_NODE}`, { as })).json;
    const r = await chef.request('PUT', `nodes/${DEV_NODE}`, { as, body: { ...current, policy_group: 'production' } });
    expect(r.status, r.text).toBe(403);
    expect(r.json.error[0]).toContain(`Node '${DEV_NODE}' is in stage 'dev'`);
    expect(r.json.error[0]).toContain(`knife node policy set ${DEV_NODE} production`);
    expect(await stageOf(DEV_NODE)).toBe('dev');
    expect((await chef.request('GET', 'data/prod-secrets/db', { as })).status).toBe(403);
    // Out of its stage (no stage at all, an unknown one) is a move too.
    expect((await chef.request('PUT', `nodes/${DEV_NODE}`, { as, body: { ...current, policy_group: 'nowhere' } })).status).toBe(403);
    const { policy_group: _g, policy_name: _p, ...bare } = current;
    expect((await chef.request('PUT', `nodes/${DEV_NODE}`, { as, body: bare })).status).toBe(403);
    // Saving itself in its own stage is a converge's save, as before.
    expect((await chef.request('PUT', `nodes/${DEV_NODE}`, { as, body: { ...current, automatic: { ohai_time: 1 } } })).status).toBe(200);
  });

  it('a client freshly registered through the plain validator cannot create its node in production (a closed stage)', async () => {
    await productionBag();
    const key = await register(`${chef.org}-validator`, await plainValidatorKey(), 'fresh-1');
    const r = await signed('POST', 'nodes', 'fresh-1', key, node('fresh-1', 'production'));
    expect(r.status, r.text).toBe(403);
    expect(r.json.error[0]).toContain("stage 'production' does not allow open enrollment");
    expect(await db().node.findUnique({ where: { name: 'fresh-1' } })).toBeNull();
    // chef-client's own order: the node first without a stage, then its save naming production.
    expect((await signed('POST', 'nodes', 'fresh-1', key, node('fresh-1'))).status).toBe(201);
    expect((await signed('PUT', 'nodes/fresh-1', 'fresh-1', key, node('fresh-1', 'production'))).status).toBe(403);
    expect(await stageOf('fresh-1')).toBeNull();
    expect((await signed('GET', 'data/prod-secrets/db', 'fresh-1', key)).status).toBe(403);
    // An open stage (the demo's dev) takes it, once; then it is bound there.
    expect((await signed('PUT', 'nodes/fresh-1', 'fresh-1', key, node('fresh-1', 'dev'))).status).toBe(200);
    expect(await stageOf('fresh-1')).toBe('dev');
    expect((await signed('PUT', 'nodes/fresh-1', 'fresh-1', key, node('fresh-1', 'qa'))).status).toBe(403);
    expect(await stageOf('fresh-1')).toBe('dev');
  });

  it('under stage isolation a dev client claiming production opens no production node', async () => {
    await db().orgSetting.upsert({ where: { id: 'org' }, create: { id: 'org', stageIsolation: true }, update: { stageIsolation: true } });
    try {
      const as: ChefActor = `client:${DEV_NODE}`;
      const current = (await chef.request('GET', `nodes/${DEV_NODE}`, { as })).json;
      expect((await chef.request('PUT', `nodes/${DEV_NODE}`, { as, body: { ...current, policy_group: 'production' } })).status).toBe(403);
      expect((await chef.request('GET', `nodes/${PROD_NODE}`, { as })).status).toBe(404);
      const found = await chef.request('GET', `search/node?q=${encodeURIComponent('policy_group:production')}`, { as });
      expect(found.json.total).toBe(0);
    } finally {
      await db().orgSetting.update({ where: { id: 'org' }, data: { stageIsolation: false } });
    }
  });

  it("a client reading another stage's policy is refused, naming its node's stage", async () => {
    const as: ChefActor = `client:webapp-dev-02.example.com`;
    const mine = await chef.request('GET', 'policy_groups/dev/policies/webapp', { as });
    expect(mine.status, mine.text).toBe(200);
    const other = await chef.request('GET', 'policy_groups/production/policies/webapp', { as });
    expect(other.status, other.text).toBe(403);
    expect(other.json.error[0]).toContain("Node 'webapp-dev-02.example.com' is in stage 'dev'");
    expect(other.json.error[0]).toContain('(policy read)');
    // A fresh client (no node yet) reads a stage it may enroll into, not a closed one.
    const key = await register(`${chef.org}-validator`, await plainValidatorKey(), 'fresh-2');
    expect((await signed('GET', 'policy_groups/dev/policies/webapp', 'fresh-2', key)).status).toBe(200);
    expect((await signed('GET', 'policy_groups/production/policies/webapp', 'fresh-2', key)).status).toBe(403);
  });

  it('a run report naming another stage than the node is in is refused, and nothing is stored', async () => {
    const as: ChefActor = `client:webapp-dev-03.example.com`;
    const runId = 'aaaaaaaa-4141-4141-4141-000000000001';
    const report = (group: string, id = runId) => ({
      message_type: 'run_converge',
      message_version: '1.1.0',
      node_name: 'webapp-dev-03.example.com',
      run_id: id,
      id,
      start_time: '2026-11-20T11:00:00Z',
      end_time: '2026-11-20T11:01:00Z',
      status: 'failure',
      policy_name: 'webapp',
      policy_group: group,
      node: { name: 'webapp-dev-03.example.com', automatic: {} },
      resources: [],
      error: { class: 'RuntimeError', message: 'spoofed' },
    });
    const r = await chef.request('POST', 'data-collector', { as, body: report('production') });
    expect(r.status, r.text).toBe(403);
    expect(r.json.error[0]).toContain("is in stage 'dev'");
    expect(await db().runReport.findUnique({ where: { runId } })).toBeNull();
    const ok = await chef.request('POST', 'data-collector', { as, body: report('dev', 'aaaaaaaa-4141-4141-4141-000000000002') });
    expect(ok.status, ok.text).toBe(201);
  });

  it("a production stage validator's clients enroll into production only, and read production's bag", async () => {
    await productionBag();
    const v = await rotateValidator(SYSTEM, chef.org, { stage: 'production' });
    expect(v.name).toBe(`${chef.org}-validator-production`);
    const key = await register(v.name, v.privateKey, 'prod-new-1');
    expect((await signed('GET', 'policy_groups/production/policies/webapp', 'prod-new-1', key)).status).toBe(200);
    expect((await signed('GET', 'policy_groups/dev/policies/webapp', 'prod-new-1', key)).status).toBe(403);
    const wrong = await signed('POST', 'nodes', 'prod-new-1', key, node('prod-new-1', 'dev'));
    expect(wrong.status).toBe(403);
    expect(wrong.json.error[0]).toContain("its validator enrolls only into stage 'production'");
    expect((await signed('POST', 'nodes', 'prod-new-1', key, node('prod-new-1', 'production'))).status).toBe(201);
    expect(await stageOf('prod-new-1')).toBe('production');
    expect((await signed('GET', 'data/prod-secrets/db', 'prod-new-1', key)).status).toBe(200);
    // A stage validator for a stage that does not exist is refused.
    await expect(rotateValidator(SYSTEM, chef.org, { stage: 'no-such-stage' })).rejects.toMatchObject({ status: 404 });
  });

  it('the plain validator cannot re-register the client of a production node (its client deleted), the production validator can', async () => {
    // A production node its namesake client created (issue 28's re-registration case), whose client an admin deleted.
    expect((await chef.request('POST', 'nodes', { as: 'admin', body: node('prod-re-1', 'production') })).status).toBe(201);
    await db().node.update({ where: { name: 'prod-re-1' }, data: { registeredByClient: 'prod-re-1' } });
    const again = await signed('POST', 'clients', `${chef.org}-validator`, await plainValidatorKey(), { name: 'prod-re-1', create_key: true });
    expect(again.status, again.text).toBe(403);
    expect(again.json.error[0]).toContain("stage 'production' does not allow open enrollment");
    expect(await db().chefClient.findFirst({ where: { name: 'prod-re-1' } })).toBeNull();
    // Its stage's validator may.
    const pv = await rotateValidator(SYSTEM, chef.org, { stage: 'production' });
    const key = await register(pv.name, pv.privateKey, 'prod-re-1');
    expect((await signed('PUT', 'nodes/prod-re-1', 'prod-re-1', key, node('prod-re-1', 'production'))).status).toBe(200);
  });

  it('a user with rights on both stages moves a node (knife node policy set), and its client then reads the new stage only', async () => {
    const name = 'webapp-dev-02.example.com';
    const as: ChefActor = `client:${name}`;
    const current = (await chef.request('GET', `nodes/${name}`, { as: 'dev' })).json;
    // release@ may view dev but not report nodes there: refused.
    expect((await chef.request('PUT', `nodes/${name}`, { as: 'release', body: { ...current, policy_group: 'qa' } })).status).toBe(403);
    // dev@ promotes into dev and qa: the move, audited.
    const moved = await chef.request('PUT', `nodes/${name}`, { as: 'dev', body: { ...current, policy_group: 'qa' } });
    expect(moved.status, moved.text).toBe(200);
    expect(await stageOf(name)).toBe('qa');
    expect(await db().auditEvent.count({ where: { action: 'node.move', target: name, actorEmail: 'dev@example.com' } })).toBe(1);
    expect((await chef.request('GET', 'policy_groups/qa/policies/webapp', { as })).status).toBe(200);
    const old = await chef.request('GET', 'policy_groups/dev/policies/webapp', { as });
    expect(old.status).toBe(403);
    expect(old.json.error[0]).toContain("is in stage 'qa'");
  });
});

describe('finding 3: a client rename cannot take a node', () => {
  it("a client registered by the validator may not rename itself to a production node's name", async () => {
    const key = await register(`${chef.org}-validator`, await plainValidatorKey(), 'renamer-1');
    const r = await signed('PUT', 'clients/renamer-1', 'renamer-1', key, { name: PROD_NODE });
    expect(r.status, r.text).toBe(403);
    expect(await db().chefClient.findFirst({ where: { name: PROD_NODE } })).toBeNull();
    expect(await db().chefClient.findFirst({ where: { name: 'renamer-1' } })).not.toBeNull();
    // A name no node has is still the client's to take.
    expect((await signed('PUT', 'clients/renamer-1', 'renamer-1', key, { name: 'renamer-2' })).status).toBe(201);
  });

  it("another organization's client renamed to a home node's name cannot act as that node", async () => {
    const org = await chef.request('POST', '/organizations', { as: 'admin', body: { name: 'rename-org', full_name: 'Rename Org' } });
    expect(org.status, org.text).toBe(201);
    const key = await register('rename-org-validator', org.json.private_key, 'outsider-1', 'rename-org');
    const r = await signed('PUT', '/organizations/rename-org/clients/outsider-1', 'outsider-1', key, { name: PROD_NODE });
    expect(r.status, r.text).toBe(201);
    const current = (await chef.request('GET', `nodes/${PROD_NODE}`, { as: 'admin' })).json;
    expect((await signed('PUT', `nodes/${PROD_NODE}`, PROD_NODE, key, { ...current, normal: { owned: true } })).status).toBe(401);
    expect((await signed('GET', 'data/prod-secrets/db', PROD_NODE, key)).status).toBe(401);
  });
});

describe("finding 6: an org admin gets no stage power through a node's client", () => {
  beforeAll(async () => {
    // dba@ (team dba: promotes into dev and qa, cannot see production) becomes an org admin.
    const admins = (await chef.request('GET', 'groups/admins', { as: 'admin' })).json;
    const r = await chef.request('PUT', 'groups/admins', { as: 'admin', body: { groupname: 'admins', actors: { users: [...admins.users, 'dba'], clients: admins.clients, groups: admins.groups } } });
    expect(r.status, r.text).toBe(200);
  });

  it("creating a client named like a production node needs rights on production, even for an org admin", async () => {
    const r = await chef.request('POST', 'clients', { as: 'dba', body: { name: 'webapp-production-02.example.com', create_key: true } });
    expect(r.status, r.text).toBe(403);
    expect(await db().chefClient.findFirst({ where: { name: 'webapp-production-02.example.com' } })).toBeNull();
    // A name no node has: an org admin's right, as in Chef.
    expect((await chef.request('POST', 'clients', { as: 'dba', body: { name: 'dba-tool', create_key: true } })).status).toBe(201);
    // Its own stages' nodes too.
    expect((await chef.request('POST', 'clients', { as: 'dba', body: { name: 'mysql-primary-dev-01.example.com', create_key: true } })).status).toBe(201);
  });

  it("adding a key to a production node's client needs rights on production, even for an org admin", async () => {
    const prodClient = 'webapp-production-03.example.com';
    expect((await chef.request('POST', 'clients', { as: 'admin', body: { name: prodClient, create_key: true } })).status).toBe(201);
    const before = snapshot({ except: ['ChefKey', 'ChefClient', 'ChefName', 'AuditEvent', 'User'] });
    const keys = await db().chefKey.count({ where: { client: { name: prodClient } } });
    const r = await chef.request('POST', `clients/${prodClient}/keys`, { as: 'dba', body: { name: 'mine', create_key: true, expiration_date: 'infinity' } });
    expect(r.status, r.text).toBe(403);
    expect(await db().chefKey.count({ where: { client: { name: prodClient } } })).toBe(keys);
    expect((await chef.request('DELETE', `clients/${prodClient}/keys/default`, { as: 'dba' })).status).toBe(403);
    expect(snapshot({ except: ['ChefKey', 'ChefClient', 'ChefName', 'AuditEvent', 'User'] })).toBe(before);
    // An admin with the rights may; the client itself may add its own.
    expect((await chef.request('POST', `clients/${prodClient}/keys`, { as: 'admin', body: { name: 'second', create_key: true, expiration_date: 'infinity' } })).status).toBe(201);
  });

  it("renaming a client to a production node's name needs rights on production", async () => {
    expect((await chef.request('PUT', 'clients/dba-tool', { as: 'dba', body: { name: 'webapp-production-04.example.com' } })).status).toBe(403);
    expect(await db().chefClient.findFirst({ where: { name: 'webapp-production-04.example.com' } })).toBeNull();
  });
});

describe('low: client names per organization (no squatting)', () => {
  it("another organization's validator taking a name first does not stop the home node's registration", async () => {
    const org = await chef.request('POST', '/organizations', { as: 'admin', body: { name: 'squat-org', full_name: 'Squatters' } });
    expect(org.status, org.text).toBe(201);
    await register('squat-org-validator', org.json.private_key, 'web-future-1', 'squat-org');
    const home = await signed('POST', 'clients', `${chef.org}-validator`, await plainValidatorKey(), { name: 'web-future-1', create_key: true });
    expect(home.status, home.text).toBe(201);
    expect(await db().chefClient.count({ where: { name: 'web-future-1' } })).toBe(2);
    const key = home.json.chef_key.private_key as string;
    expect((await signed('POST', 'nodes', 'web-future-1', key, node('web-future-1', 'dev'))).status).toBe(201);
    // A user's name stays out of every organization's client names (a name that signs says who signs).
    expect((await signed('POST', '/organizations/squat-org/clients', 'squat-org-validator', org.json.private_key, { name: 'viewer', create_key: true })).status).toBe(409);
  });
});

/** A member who may view (and promote into) dev only: qa, staging and production are hidden from it. */
async function devOnlyToken(): Promise<string> {
  if (!(await db().user.findUnique({ where: { email: 'dev-only@example.com' } }))) {
    const dev = await db().policyGroup.findUniqueOrThrow({ where: { name: 'dev' } });
    await db().user.create({ data: { email: 'dev-only@example.com', name: 'Dev Only', passwordHash: 'x', orgMemberships: HOME_MEMBERSHIP, permissions: { create: { groupId: dev.id, level: 'promote' } } } });
  }
  return tokenFor('dev-only@example.com');
}

describe('low: /api/v1 answers a hidden stage exactly as a missing one', () => {
  it('every stage GET route gives a user who may not view production the same answer for production and for a stage that does not exist', async () => {
    const token = await devOnlyToken();
    // Every route of the table under /policy_groups/{group} (the route files of Next's folder before issue 44 step 4).
    const contracts = API_CONTRACTS.filter((c) => c.path.startsWith('/policy_groups/{group}') && c.method !== 'PATCH');
    expect(contracts.length).toBeGreaterThan(10);
    const differences: string[] = [];
    for (const c of contracts) {
      const route = apiRoutes('/api/v1' + c.path.replace(/\{(\w+)\}/g, '[$1]'))[c.method];
      const method = c.method;
      {
        const params = (group: string) => ({ group, name: 'webapp', id: 'x' });
        const body = method === 'GET' || method === 'DELETE' ? undefined : {};
        const hidden = await call(route, method, { token, params: params('production'), body });
        const missing = await call(route, method, { token, params: params('zz-none'), body });
        const norm = (t: string) => t.replaceAll('production', 'STAGE').replaceAll('zz-none', 'STAGE').replace(/"request_id":"[^"]*"/g, '');
        if (hidden.status !== missing.status || norm(hidden.text) !== norm(missing.text)) differences.push(`${method} ${c.path}: ${hidden.status} ${hidden.text.slice(0, 120)} | ${missing.status} ${missing.text.slice(0, 120)}`);
      }
    }
    expect(differences).toEqual([]);
  });

  it('the routes that take a stage in the query answer alike too', async () => {
    const token = await devOnlyToken();
    const cases: [string, Record<string, string>, (g: string) => string][] = [
      ['/api/v1/nodes', {}, (g) => `group=${g}`],
      ['/api/v1/rings', {}, (g) => `stage=${g}`],
      ['/api/v1/diff', {}, (g) => `policy=webapp&from=dev&to=${g}`],
      ['/api/v1/policies/[name]/artifacts', { name: 'webapp' }, (g) => `from=dev&to=${g}`],
      ['/api/v1/policy_groups/[group]/policies/[name]/gate', { group: 'dev', name: 'webapp' }, (g) => `from=${g}`],
    ];
    const differences: string[] = [];
    for (const [file, params, query] of cases) {
      const mod = apiRoutes(file);
      const hidden = await call(mod.GET, 'GET', { token, params, query: query('production') });
      const missing = await call(mod.GET, 'GET', { token, params, query: query('zz-none') });
      const norm = (t: string) => t.replaceAll('production', 'STAGE').replaceAll('zz-none', 'STAGE').replace(/"request_id":"[^"]*"/g, '');
      if (hidden.status !== missing.status || norm(hidden.text) !== norm(missing.text)) differences.push(`${file}: ${hidden.status} ${hidden.text.slice(0, 160)} | ${missing.status} ${missing.text.slice(0, 160)}`);
    }
    expect(differences).toEqual([]);
  });
});

describe("low: org-scoped user keys are the organization's members' only", () => {
  it("another organization's client cannot read the keys of a user who is not its member", async () => {
    const org = await chef.request('POST', '/organizations', { as: 'admin', body: { name: 'keys-org', full_name: 'Keys Org' } });
    expect(org.status, org.text).toBe(201);
    const key = await register('keys-org-validator', org.json.private_key, 'keys-reader', 'keys-org');
    await chef.privateKey('release');
    const list = await signed('GET', '/organizations/keys-org/users/release/keys', 'keys-reader', key);
    expect(list.status, list.text).toBe(404);
    expect(list.json.error).toBe('Cannot find a user release in organization keys-org');
    expect((await signed('GET', '/organizations/keys-org/users/release/keys/default', 'keys-reader', key)).status).toBe(404);
    // In its own organization, a member's keys stay readable (public_key_read_access).
    expect((await chef.request('GET', 'users/release/keys', { as: 'viewer' })).status).toBe(200);
  });
});

describe('low: HSTS on the HTTPS port', () => {
  it('every HTTPS response carries Strict-Transport-Security', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hsts-'));
    const tls = selfSignedCert(dir);
    const server = await startChefServer(0, '127.0.0.1', { tls });
    const prev = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    try {
      const r = await fetch(`${server.url}/organizations/${chef.org}/nodes`);
      expect(r.status).toBe(401);
      expect(r.headers.get('strict-transport-security')).toBe('max-age=31536000');
    } finally {
      if (prev === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
      else process.env.NODE_TLS_REJECT_UNAUTHORIZED = prev;
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the console API doors of stage binding', () => {
  it('PUT /api/v1/nodes/:name/stage moves a node for a user with rights on both stages, audited; others are refused and nothing moves', async () => {
    const moveRoute = apiRoutes('/api/v1/nodes/[name]/stage');
    const name = 'webapp-dev-03.example.com';
    const before = snapshot({ except: ['ApiToken', 'AuditEvent'] });
    const refused = await call(moveRoute.PUT, 'PUT', { token: await tokenFor('release@example.com'), params: { name }, body: { stage: 'qa' } });
    expect(refused.status, refused.text).toBe(403);
    const hidden = await call(moveRoute.PUT, 'PUT', { token: await devOnlyToken(), params: { name }, body: { stage: 'production' } });
    const missing = await call(moveRoute.PUT, 'PUT', { token: await devOnlyToken(), params: { name }, body: { stage: 'zz-none' } });
    expect([hidden.status, missing.status]).toEqual([403, 403]);
    expect(hidden.text.replace('production', 'X')).toBe(missing.text.replace('zz-none', 'X'));
    expect(snapshot({ except: ['ApiToken', 'AuditEvent'] })).toBe(before);
    const moved = await call(moveRoute.PUT, 'PUT', { token: await tokenFor('dev@example.com'), params: { name }, body: { stage: 'qa' } });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.json).toMatchObject({ name, policy_group: 'qa' });
    expect(await stageOf(name)).toBe('qa');
    expect(await db().auditEvent.count({ where: { action: 'node.move', target: name, actorEmail: 'dev@example.com' } })).toBe(1);
    // The node object is kept: only its policy_group changed.
    const doc = JSON.parse((await db().node.findUniqueOrThrow({ where: { name } })).chefDocument!);
    expect(doc).toMatchObject({ name, policy_group: 'qa', policy_name: 'webapp' });
  });

  it('open enrollment is a stage setting of its managers; stage validators are administrators\'', async () => {
    const stageRoute = apiRoutes('/api/v1/policy_groups/[group]');
    const validatorRoute = apiRoutes('/api/v1/policy_groups/[group]/validator');
    const dev = await call(stageRoute.GET, 'GET', { token: await tokenFor('viewer@example.com'), params: { group: 'dev' } });
    expect(dev.json.open_enrollment).toBe(true);
    expect((await call(stageRoute.GET, 'GET', { token: await tokenFor('viewer@example.com'), params: { group: 'production' } })).json.open_enrollment).toBe(false);
    expect((await call(stageRoute.PUT, 'PUT', { token: await tokenFor('dev@example.com'), params: { group: 'production' }, body: { open_enrollment: true } })).status).toBe(403);
    expect((await call(stageRoute.PUT, 'PUT', { token: await tokenFor('admin@example.com'), params: { group: 'qa' }, body: { open_enrollment: false } })).status).toBe(200);
    expect((await db().policyGroup.findUniqueOrThrow({ where: { name: 'qa' } })).openEnrollment).toBe(false);
    expect(await db().auditEvent.count({ where: { action: 'stage.update', target: 'qa' } })).toBeGreaterThan(0);
    expect((await call(stageRoute.PUT, 'PUT', { token: await tokenFor('admin@example.com'), params: { group: 'qa' }, body: { open_enrollment: true } })).status).toBe(200);

    expect((await call(validatorRoute.POST, 'POST', { token: await tokenFor('release@example.com'), params: { group: 'staging' } })).status).toBe(403);
    const made = await call(validatorRoute.POST, 'POST', { token: await tokenFor('admin@example.com'), params: { group: 'staging' } });
    expect(made.status, made.text).toBe(201);
    expect(made.json).toMatchObject({ name: `${chef.org}-validator-staging`, stage: 'staging', created: true });
    expect(made.json.private_key).toContain('PRIVATE KEY');
    const key = await register(made.json.name, made.json.private_key, 'staging-new-1');
    expect((await signed('POST', 'nodes', 'staging-new-1', key, node('staging-new-1', 'staging'))).status).toBe(201);
    expect((await call(validatorRoute.POST, 'POST', { token: await tokenFor('admin@example.com'), params: { group: 'zz-none' } })).status).toBe(404);
  });
});
