import { beforeAll, describe, expect, it } from 'vitest';
import { fixtureJson } from '@/test/fixtures';
import { apiRoutes, call, seed, tokenFor } from '@/test/helpers';
const ordering = apiRoutes('/api/v1/ordering/preview');
const resourceMap = apiRoutes('/api/v1/resource-map/preview');

let viewer: string;
beforeAll(async () => {
  await seed();
  viewer = await tokenFor('viewer@example.com');
});

const doc2 = fixtureJson<{ cases: { id: string; input: Record<string, unknown> }[] }>('ordering-cases.json').cases.find((c) => c.id === 'doc-example-2')!.input as {
  techniques: object[];
  directives: { id: string; name: string; technique: string; priority?: number }[];
  rules: { id: string; name: string; directiveIds: string[] }[];
};

describe('POST /api/v1/ordering/preview', () => {
  it('orders the documentation example', async () => {
    const res = await call(ordering.POST, 'POST', { token: viewer, body: doc2 });
    expect(res.status).toBe(200);
    expect(res.json.policies.find((p: { technique: string }) => p.technique === 'B').valueOrder).toEqual(['B2', 'B1']);
  });

  it.each([
    ['unknown technique', { ...doc2, directives: [...doc2.directives, { id: 'z', name: 'Z', technique: 'nope' }] }, '/directives/6/technique'],
    ['rule naming a missing directive', { ...doc2, rules: [{ id: 'r9', name: 'R9', directiveIds: ['ghost'] }] }, '/rules/0/directiveIds/0'],
    ['priority 11', { ...doc2, directives: doc2.directives.map((d, i) => (i === 0 ? { ...d, priority: 11 } : d)) }, '/directives/0/priority'],
  ])('400 with the path for %s', async (_label, body, path) => {
    const res = await call(ordering.POST, 'POST', { token: viewer, body });
    expect(res.status).toBe(400);
    expect(res.json.errors.map((e: { path: string }) => e.path)).toContain(path);
  });
});

describe('POST /api/v1/resource-map/preview', () => {
  const base = { mode: 'rfc', chefVersion: '14.12.9', node: { platform: 'ubuntu', platform_family: 'debian', platform_version: '22.04', os: 'linux' } };
  it('refuses a cookbook collision in rfc mode', async () => {
    const res = await call(resourceMap.POST, 'POST', {
      token: viewer,
      body: { ...base, registrations: [{ key: 'package', className: 'Chef::Resource::AptPackage', source: 'core' }, { key: 'package', className: 'MyPackage', source: 'cookbook' }] },
    });
    expect(res.json.rejected).toEqual([{ key: 'package', className: 'MyPackage', reason: 'locked' }]);
  });

  it('400 with the path for an unknown mode', async () => {
    const res = await call(resourceMap.POST, 'POST', { token: viewer, body: { ...base, mode: 'chef99', registrations: [] } });
    expect(res.status).toBe(400);
    expect(res.json.errors[0].path).toBe('/mode');
  });

  it('needs a session or token', async () => {
    expect((await call(resourceMap.POST, 'POST', { body: { ...base, registrations: [] } })).status).toBe(401);
  });
});
