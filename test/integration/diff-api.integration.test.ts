import { beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes, call, seed, tokenFor } from '@/test/helpers';
const diff = apiRoutes('/api/v1/diff');
const revisions = apiRoutes('/api/v1/policies/[name]/revisions');

let viewer: string;
beforeAll(async () => {
  await seed();
  viewer = await tokenFor('viewer@example.com');
});

describe('GET /api/v1/diff', () => {
  it('staging → production reads as a promotion: production would upgrade', async () => {
    const res = await call(diff.GET, 'GET', { token: viewer, query: 'policy=webapp&from=staging&to=production' });
    expect(res.status).toBe(200);
    expect(res.json.identical).toBe(false);
    const nginx = res.json.cookbooks.find((c: { name: string }) => c.name === 'nginx');
    expect(nginx).toMatchObject({ kind: 'upgraded', level: 'major', from: { version: '11.5.0' }, to: { version: '12.0.1' } });
    expect(res.json.attributes.map((a: { pathText: string }) => a.pathText)).toContain('[webapp][release]');
    expect(res.json.from.stage).toBe('staging');
    expect(res.json.to.stage).toBe('production');
  });

  it('compares revisions by id, and says identical plainly', async () => {
    const list = await call(revisions.GET, 'GET', { token: viewer, params: { name: 'bastion' } });
    const [rev] = Object.keys(list.json.revisions);
    const res = await call(diff.GET, 'GET', { token: viewer, query: `policy=bastion&from=rev:${rev}&to=production` });
    expect(res.json.identical).toBe(true);
    expect(res.json.summary.total).toBe(0);
  });

  it('returns both canonical texts on request', async () => {
    const res = await call(diff.GET, 'GET', { token: viewer, query: 'policy=webapp&from=staging&to=production&text=true' });
    expect(res.json.currentText).toContain('"nginx"');
    expect(res.json.incomingText).not.toBe(res.json.currentText);
  });

  it('404 with a clear message when a side has no revision; 400 when a parameter is missing', async () => {
    // A stage the caller may not view answers as a missing one: 404 with the same message (issue 17 item 21, issue 44).
    const a = await call(diff.GET, 'GET', { token: await tokenFor('admin@example.com'), query: 'policy=webapp&from=staging&to=nowhere' });
    expect(a.status).toBe(404);
    expect(a.json.error[0]).toBe("There is no stage 'nowhere'");
    const hidden = await call(diff.GET, 'GET', { token: viewer, query: 'policy=webapp&from=staging&to=nowhere' });
    expect(hidden.status).toBe(404);
    expect(hidden.json.error[0]).toBe("There is no stage 'nowhere'");
    const b = await call(diff.GET, 'GET', { token: viewer, query: 'policy=webapp&from=rev:nope&to=production' });
    expect(b.status).toBe(404);
    expect(b.json.error[0]).toBe("Policy 'webapp' has no revision 'nope'");
    const c = await call(diff.GET, 'GET', { token: viewer, query: 'policy=webapp&from=staging' });
    expect(c.status).toBe(400);
    expect(c.json.errors).toEqual([{ path: '/to', message: 'to is required' }]);
  });

  it('needs a session or token', async () => {
    expect((await call(diff.GET, 'GET', { query: 'policy=webapp&from=staging&to=production' })).status).toBe(401);
  });
});
