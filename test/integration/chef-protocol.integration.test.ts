/** The Chef organization routes over real HTTP with real signatures: authentication, versions, routing. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChefHarness, type ChefHarness } from '../chef-harness';
import { snapshot } from '../helpers';
import { apiRoutes } from '@/test/helpers';

let chef: ChefHarness;
beforeAll(async () => {
  chef = await startChefHarness();
});
afterAll(async () => chef.close());

describe('signed requests', () => {
  it.each(['1.0', '1.1', '1.3'] as const)('protocol %s is accepted', async (protocol) => {
    const r = await chef.request('GET', 'policy_groups', { as: 'admin', protocol });
    expect(r.status).toBe(200);
    expect(Object.keys(r.json)).toEqual(['dev', 'qa', 'staging', 'production']);
    expect(r.json.dev.uri).toBe(`${chef.orgUrl}/policy_groups/dev`);
    expect(JSON.parse(r.headers.get('x-ops-server-api-version')!)).toEqual({ min_version: '0', max_version: '2', request_version: '2', response_version: '2' });
  });

  it.each(['path', 'body', 'timestamp'] as const)('a request tampered in its %s is refused with 401 and changes nothing', async (tamper) => {
    const before = snapshot({ except: ['ChefKey', 'ChefClient', 'ChefName', 'AuditEvent', 'User'] });
    const r = await chef.request('PUT', 'nodes/tampered-node', { as: 'admin', tamper, body: { name: 'tampered-node' } });
    expect(r.status).toBe(401);
    expect(r.json.error).toEqual(["Invalid signature for user or client 'admin'"]);
    expect(snapshot({ except: ['ChefKey', 'ChefClient', 'ChefName', 'AuditEvent', 'User'] })).toBe(before);
  });

  it('a skewed clock is refused and says so', async () => {
    const r = await chef.request('GET', 'nodes', { as: 'admin', timestamp: '2020-01-01T00:00:00Z' });
    expect(r.status).toBe(401);
    expect(r.json.error).toEqual(['Failed to authenticate as admin. Synchronize the clock on your host.']);
  });

  it('an unknown user is refused', async () => {
    const key = await chef.privateKey('viewer');
    const { signRequest } = await import('@/lib/auth/chef-signing');
    const path = new URL(`${chef.orgUrl}/nodes`).pathname;
    const headers = signRequest({ method: 'GET', path, userId: 'nobody', privateKey: key });
    const r = await fetch(`${chef.orgUrl}/nodes`, { headers });
    expect(r.status).toBe(401);
    expect((await r.json()).error).toEqual(["Failed to authenticate as 'nobody'. Ensure that your node_name and client key are correct."]);
  });

  it('an expired key is refused, a live one of the same user still works', async () => {
    const { addUserKey } = await import('@/lib/services/keys');
    const { signRequest } = await import('@/lib/auth/chef-signing');
    const expired = await addUserKey({ kind: 'system', userId: null, email: 'test' }, 'dba', { name: 'old', expiresAt: new Date('2026-01-01T00:00:00Z') });
    const path = new URL(`${chef.orgUrl}/nodes`).pathname;
    const r = await fetch(`${chef.orgUrl}/nodes`, { headers: signRequest({ method: 'GET', path, userId: 'dba', privateKey: expired.privateKey }) });
    expect(r.status).toBe(401);
    expect((await r.json()).error).toEqual(["Invalid signature for user or client 'dba'"]);
    expect((await chef.request('GET', 'nodes', { as: 'dba' })).status).toBe(200);
  });

  it('a deactivated user cannot sign in with a key', async () => {
    await chef.request('GET', 'nodes', { as: 'ops' });
    const { db } = await import('@/lib/db/client');
    await db().user.update({ where: { email: 'ops@example.com' }, data: { active: false } });
    try {
      expect((await chef.request('GET', 'nodes', { as: 'ops' })).status).toBe(401);
    } finally {
      await db().user.update({ where: { email: 'ops@example.com' }, data: { active: true } });
    }
  });

  it('the console API accepts a Chef signature as the user it names', async () => {
    const { GET } = apiRoutes('/api/v1/policies');
    const { signRequest } = await import('@/lib/auth/chef-signing');
    const key = await chef.privateKey('viewer');
    const url = 'http://localhost/api/v1/policies';
    const ok = await GET(new Request(url, { headers: signRequest({ method: 'GET', path: '/api/v1/policies', userId: 'viewer', privateKey: key }) }), { params: Promise.resolve({}) });
    expect(ok.status).toBe(200);
    const bad = await GET(new Request(url, { headers: signRequest({ method: 'GET', path: '/api/v1/other', userId: 'viewer', privateKey: key }) }), { params: Promise.resolve({}) });
    expect(bad.status).toBe(401);
  });

  it('no credentials at all is a 401', async () => {
    const r = await chef.request('GET', 'nodes', { as: 'anonymous' });
    expect(r.status).toBe(401);
  });

  it('an unsupported API version is a 406', async () => {
    const r = await chef.request('GET', 'nodes', { as: 'admin', apiVersion: 9 });
    expect(r.status).toBe(406);
    expect(r.json).toMatchObject({ error: 'invalid-x-ops-server-api-version', min_version: 0, max_version: 2 });
  });

  it('bearer tokens work on the organization routes too', async () => {
    const r = await chef.request('GET', 'policies', { as: 'bearer:viewer@example.com' });
    expect(r.status).toBe(200);
    expect(r.json.webapp.uri).toBe(`${chef.orgUrl}/policies/webapp`);
  });
});

describe('routing', () => {
  it('another organization is a JSON 404 naming it', async () => {
    const r = await chef.request('GET', '/organizations/other/nodes', { as: 'admin' });
    expect(r.status).toBe(404);
    expect(r.json.error).toEqual(["organization 'other' does not exist."]);
  });
  it('an unknown path is a JSON 404, a trailing slash is not redirected', async () => {
    expect((await chef.request('GET', 'no-such-thing', { as: 'admin' })).status).toBe(404);
    const r = await chef.request('GET', 'nodes/', { as: 'admin' });
    expect(r.status).toBe(200);
  });
  it('an endpoint chef-client tolerates missing answers JSON 404 (the data collector is served: issue 26)', async () => {
    const r = await chef.request('GET', 'required_recipe', { as: 'admin' });
    expect(r.status).toBe(404);
    expect(r.json.error).toHaveLength(1);
    const dc = await chef.request('POST', 'data-collector', { as: 'admin', body: {}, headers: { 'x-console-error-detail': '1' } });
    expect(dc.status).toBe(400);
    expect(dc.json.errors[0].path).toBe('/message_type');
  });
});

describe('nodes and clients', () => {
  it('a node registered through the validator saves itself and shows its facts', async () => {
    const { generateChefKeyPair } = await import('@/lib/auth/key-pairs');
    const pair = await generateChefKeyPair();
    const reg = await chef.request('POST', 'clients', { as: 'validator', apiVersion: 0, body: { name: 'web-01.example.com', admin: false, public_key: pair.publicKey } });
    expect(reg.status).toBe(201);
    expect(reg.json.uri).toBe(`${chef.orgUrl}/clients/web-01.example.com`);
    // The validator can do nothing else.
    expect((await chef.request('GET', 'nodes', { as: 'validator' })).status).toBe(403);
    const { signRequest } = await import('@/lib/auth/chef-signing');
    const send = async (method: string, rel: string, body?: unknown) => {
      const text = body === undefined ? '' : JSON.stringify(body);
      const path = new URL(`${chef.orgUrl}/${rel}`).pathname;
      const headers = signRequest({ method, path, body: text, userId: 'web-01.example.com', privateKey: pair.privateKey });
      const r = await fetch(`${chef.orgUrl}/${rel}`, { method, headers: { ...headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : text });
      return { status: r.status, json: await r.json().catch(() => undefined) };
    };
    expect((await send('GET', 'nodes/web-01.example.com')).status).toBe(404);
    const node = { name: 'web-01.example.com', policy_name: 'webapp', policy_group: 'dev', automatic: { platform: 'debian', platform_version: '12', policy_revision: 'abc' } };
    expect((await send('POST', 'nodes', node)).status).toBe(201);
    const policy = await send('GET', 'policy_groups/dev/policies/webapp');
    expect(policy.status).toBe(200);
    expect(policy.json.name).toBe('webapp');
    expect((await send('PUT', 'nodes/web-01.example.com', { ...node, automatic: { ...node.automatic, policy_revision: policy.json.revision_id } })).status).toBe(200);
    // Not someone else's node, and nothing else.
    expect((await send('PUT', 'nodes/webapp-dev-01.example.com', { ...node, name: 'webapp-dev-01.example.com' })).status).toBe(403);
    expect((await send('GET', 'clients')).status).toBe(403);
    expect((await send('DELETE', 'policy_groups/dev/policies/webapp')).status).toBe(403);
    const shown = await chef.request('GET', 'nodes/web-01.example.com', { as: 'viewer' });
    expect(shown.status).toBe(200);
    expect(shown.json).toMatchObject({ name: 'web-01.example.com', chef_type: 'node', json_class: 'Chef::Node', chef_environment: '_default', policy_group: 'dev', policy_name: 'webapp' });
  });
});
