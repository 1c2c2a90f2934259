/**
 * Issue 48 on both databases (not in SQLITE_ONLY_LOGIC: the integration-pg project runs it too): the dependents of
 * a policy in a stage at any depth, their rebuild (ids equal to merging each Policyfile's own part with the moved
 * include, a conflicting dependent listed and left unwritten, an include loop left alone, compose still refusing
 * a cycle), and the joint promotion refused whole when one member is stale (a 409 before anything moves; a joint
 * request outdated as a whole when one member's stage moved meanwhile).
 *
 * Locks are built as chef-cli builds them (the merge engine with server-fetched includes, as the domain tests do)
 * and pushed with the Chef API, so the console sees what a team's `chef push` would store.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { computeRevisionId, includeFor, mergePolicy, type CookbookLockEntry, type ParentPolicy, type PolicyLock } from '@/lib/domain';
import { db } from '@/lib/db/client';
import { apiRoutes, accessFor, call, seed, snapshot, tokenFor } from '@/test/helpers';
import { loadBoard } from '@/lib/db/queries/board';
const stagePolicy = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]');
const dependentsRoute = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]/dependents');
const rebuildRoute = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]/rebuild-dependents');
const promoteRoute = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]/promote-with-dependents');
const approveRoute = apiRoutes('/api/v1/promotion_requests/[id]/approve');
const compose = apiRoutes('/api/v1/policies/[name]/compose');

const SERVER = 'https://console.example/organizations/console';
const id = (s: string) => s.repeat(40).slice(0, 40);
const pathCb = (name: string, version: string, ident: string): CookbookLockEntry => ({ version, identifier: ident, source: `../cookbooks/${name}`, cache_key: null, scm_info: null, source_options: { path: `../cookbooks/${name}` } });

function parentOf(name: string, run: string[], cookbooks: Record<string, [string, string]>, attrs: Record<string, unknown> = {}, deps: Record<string, [string, string][]> = {}): ParentPolicy {
  return {
    name,
    run_list: run,
    cookbook_locks: Object.fromEntries(Object.entries(cookbooks).map(([n, [v, i]]) => [n, pathCb(n, v, i)])),
    default_attributes: attrs,
    override_attributes: {},
    solution_dependencies: { Policyfile: Object.keys(cookbooks).sort().map((n) => [n, '>= 0.0.0']), dependencies: Object.fromEntries(Object.entries(cookbooks).map(([n, [v]]) => [`${n} (${v})`, deps[n] ?? []])) },
  };
}

/** chef install of a Policyfile: its own part merged with includes fetched from the console's dev stage. */
function lockOf(parent: ParentPolicy, includes: { name: string; lock: PolicyLock }[] = []): PolicyLock {
  const refs = includes.map((i) => includeFor({ name: i.name, source_options: { server: SERVER, policy_group: 'dev', policy_name: i.lock.name, policy_revision_id: i.lock.revision_id } }, i.lock));
  const r = mergePolicy(parent, refs);
  if (!r.ok) throw new Error(r.conflicts[0].message);
  if (!includes.length) {
    const { included_policy_locks: _none, ...lock } = r.lock;
    return lock as PolicyLock;
  }
  return r.lock;
}

const P = {
  plat: (n: number, attrs: Record<string, unknown>) => parentOf('plat', ['recipe[platcb::default]'], { platcb: [`1.${n}.0`, id(String(n))] }, attrs),
  svc: parentOf('svc', ['recipe[svccb::default]'], { svccb: ['0.1.0', id('s')] }, { svc: { port: 8080 } }, { svccb: [['platcb', '>= 1.0.0']] }),
  edge: parentOf('edge', ['recipe[edgecb::default]'], { edgecb: ['0.1.0', id('e')] }, { edge: true }),
  top: parentOf('top', ['recipe[topcb::default]'], { topcb: ['0.1.0', id('t')] }),
  clash: parentOf('clash', ['recipe[clashcb::default]'], { clashcb: ['0.1.0', id('c')] }, { motd: 'mine' }),
  loopa: parentOf('loopa', ['recipe[lacb::default]'], { lacb: ['0.1.0', id('x')] }),
  loopb: parentOf('loopb', ['recipe[lbcb::default]'], { lbcb: ['0.1.0', id('y')] }),
};
const plat1 = lockOf(P.plat(0, { tz: 'UTC' }));
const plat2 = lockOf(P.plat(1, { tz: 'UTC', motd: 'platform' }));
const plat3 = lockOf(P.plat(2, { tz: 'Etc/UTC', motd: 'platform' }));
const svc1 = lockOf(P.svc, [{ name: 'plat', lock: plat1 }]);
const edge1 = lockOf(P.edge, [{ name: 'svc', lock: svc1 }]);
const top1 = lockOf(P.top, [{ name: 'edge', lock: edge1 }]);
const clash1 = lockOf(P.clash, [{ name: 'plat', lock: plat1 }]);
const loopa1 = lockOf(P.loopa, [{ name: 'plat', lock: plat1 }]);
const loopb1 = lockOf(P.loopb, [{ name: 'loopa', lock: loopa1 }]);
// loopa, pushed again including loopb (which carries the older loopa): a loop by name among the stage's policies.
// The merge engine refuses to compose it (compose's cycle rule), so it is put together under another name.
const loopa2 = (() => {
  const lock = { ...lockOf({ ...P.loopa, name: 'loopz' }, [{ name: 'plat', lock: plat1 }, { name: 'loopb', lock: loopb1 }]), name: 'loopa' };
  return { ...lock, revision_id: computeRevisionId(lock) };
})();
// What chef update of each gives once dev runs plat2 (and each include before it was updated and pushed).
const svc2 = lockOf(P.svc, [{ name: 'plat', lock: plat2 }]);
const edge2 = lockOf(P.edge, [{ name: 'svc', lock: svc2 }]);
const top2 = lockOf(P.top, [{ name: 'edge', lock: edge2 }]);

let admin: string, lead: string, viewer: string;
const push = async (stage: string, lock: PolicyLock, token = admin) => {
  const res = await call(stagePolicy.PUT, 'PUT', { token, params: { group: stage, name: lock.name }, body: JSON.stringify(lock) });
  expect([200, 201], res.text).toContain(res.status);
  return res;
};
const runs = async (stage: string, policy: string) => (await db().groupPolicy.findFirst({ where: { group: { name: stage }, policy: { name: policy } }, select: { revision: { select: { revisionId: true } } } }))?.revision.revisionId ?? null;

beforeAll(async () => {
  await seed();
  [admin, lead, viewer] = await Promise.all(['admin@example.com', 'lead@example.com', 'viewer@example.com'].map(tokenFor));
  for (const lock of [plat1, svc1, edge1, top1, clash1, loopa1, loopb1, loopa2]) await push('dev', lock);
  await push('dev', plat2); // plat moves in dev: every dependent now carries an older plat
});

describe('GET …/dependents', () => {
  it('lists every dependent at any depth with the revision it carries, the path and the source', async () => {
    const res = await call(dependentsRoute.GET, 'GET', { token: viewer, params: { group: 'dev', name: 'plat' } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ stage: 'dev', policy: 'plat', revision_id: plat2.revision_id, next_stage: 'qa' });
    const byName = Object.fromEntries(res.json.dependents.map((d: any) => [d.policy, d]));
    expect(Object.keys(byName).sort()).toEqual(['clash', 'edge', 'loopa', 'loopb', 'svc', 'top']);
    expect(byName.svc).toMatchObject({ revision_id: svc1.revision_id, depth: 1, current: false, carries: [{ revision_id: plat1.revision_id, current: false, via: [], include_name: 'plat', source: { server: SERVER, policy_group: 'dev', policy_name: 'plat' } }] });
    expect(byName.edge).toMatchObject({ depth: 2, carries: [{ revision_id: plat1.revision_id, via: ['svc'] }] });
    expect(byName.top).toMatchObject({ depth: 3, carries: [{ revision_id: plat1.revision_id, via: ['edge', 'svc'] }] });
    expect(res.json.older).toBe(6);
  });
});

describe('POST …/rebuild-dependents', () => {
  it('compose refuses an include cycle as before', async () => {
    const res = await call(compose.POST, 'POST', { token: admin, params: { name: 'loopb' }, body: { parent: { run_list: ['lbcb::default'], cookbook_locks: { lbcb: { version: '0.1.0', identifier: id('y') } } }, includes: [{ name: 'loopa', source: { type: 'server', policy: 'loopa', group: 'dev' } }] } });
    expect(res.status).toBe(409);
    expect(res.json.conflicts.map((c: any) => c.kind)).toContain('include_cycle');
  });

  it('previews without writing: ids as chef update computes them, provenance, the conflict listed, the loop left alone', async () => {
    const before = snapshot();
    const res = await call(rebuildRoute.POST, 'POST', { token: admin, params: { group: 'dev', name: 'plat' }, body: { dry_run: true } });
    expect(res.status, res.text).toBe(200);
    // A viewer sees the same preview, and that they may not move them.
    const asViewer = await call(rebuildRoute.POST, 'POST', { token: viewer, params: { group: 'dev', name: 'plat' }, body: { dry_run: true } });
    expect(asViewer.json.rebuilds).toEqual(res.json.rebuilds);
    expect(asViewer.json.guard.outcome).toBe('blocked');
    expect(snapshot()).toBe(before);
    const items = Object.fromEntries(res.json.rebuilds.map((r: any) => [r.policy, r]));
    expect(items.svc).toMatchObject({ status: 'rebuilt', from_revision_id: svc1.revision_id, to_revision_id: svc2.revision_id });
    expect(items.edge).toMatchObject({ status: 'rebuilt', to_revision_id: edge2.revision_id });
    expect(items.top).toMatchObject({ status: 'rebuilt', to_revision_id: top2.revision_id });
    // Provenance: top gets platcb 1.1.0 from plat through edge and svc.
    expect(items.top.changes).toContainEqual(expect.objectContaining({ kind: 'cookbook', text: expect.stringMatching(/^platcb 1\.0\.0 → 1\.1\.0/), from: { policy: 'plat', revision_id: plat2.revision_id, via: ['edge', 'svc'] } }));
    expect(items.svc.diff.attributes.map((a: any) => a.path.join('.'))).toContain('motd');
    expect(items.clash).toMatchObject({ status: 'conflict', to_revision_id: null });
    expect(items.clash.conflicts).toEqual([expect.objectContaining({ kind: 'attribute', path: '[motd]', sources: ['clash', 'plat'] })]);
    expect(items.loopa.status).toBe('blocked');
    expect(items.loopb.status).toBe('blocked');
    expect(items.loopa.problems[0]).toMatch(/include loop/);
    expect(res.json.guard, JSON.stringify(res.json.guard?.blocked_by)).toMatchObject({ outcome: 'move', stage: 'dev' });
    expect(res.json.guard.members.map((m: any) => m.policy)).toEqual(['edge', 'svc', 'top']);
    expect(res.json.expected).toMatchObject({ plat: plat2.revision_id, svc: svc1.revision_id });
  });

  it('a viewer may not write; a stale expectation is a 409 with nothing stored', async () => {
    const before = snapshot();
    expect((await call(rebuildRoute.POST, 'POST', { token: viewer, params: { group: 'dev', name: 'plat' }, body: {} })).status).toBe(403);
    const stale = await call(rebuildRoute.POST, 'POST', { token: admin, params: { group: 'dev', name: 'plat' }, body: { expected: { plat: plat1.revision_id } } });
    expect(stale.status).toBe(409);
    expect(snapshot()).toBe(before);
  });

  it('stores and moves the rebuilt dependents together, audited with the include change; the conflicting one stays unwritten', async () => {
    const clashRevisions = await db().policyRevision.count({ where: { policy: { name: 'clash' } } });
    const res = await call(rebuildRoute.POST, 'POST', { token: admin, params: { group: 'dev', name: 'plat' }, body: { reason: 'plat r2' } });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ written: 3, moved: 3 });
    expect(await runs('dev', 'svc')).toBe(svc2.revision_id);
    expect(await runs('dev', 'edge')).toBe(edge2.revision_id);
    expect(await runs('dev', 'top')).toBe(top2.revision_id);
    expect(await runs('dev', 'clash')).toBe(clash1.revision_id);
    expect(await db().policyRevision.count({ where: { policy: { name: 'clash' } } })).toBe(clashRevisions);
    expect(await runs('dev', 'loopa')).toBe(loopa2.revision_id);
    const stored = await db().policyRevision.findFirstOrThrow({ where: { revisionId: top2.revision_id }, select: { origin: true } });
    expect(stored.origin).toBe('rebuild');
    const audits = await db().auditEvent.findMany({ where: { action: 'revision.rebuild' } });
    expect(audits.map((a) => a.policyName).sort()).toEqual(['edge', 'svc', 'top']);
    const platMove = res.json.caused_by.audit_id;
    expect(platMove).toBeTruthy();
    for (const a of audits) expect(JSON.parse(a.after!).caused_by).toMatchObject({ policy: 'plat', to_revision_id: plat2.revision_id, audit_id: platMove });
    const after = await call(dependentsRoute.GET, 'GET', { token: viewer, params: { group: 'dev', name: 'plat' } });
    expect(after.json.dependents.filter((d: any) => !d.current).map((d: any) => d.policy).sort()).toEqual(['clash', 'loopa', 'loopb']);
  });
});

describe('POST …/promote-with-dependents: one atomic move', () => {
  it('a joint request on a protected stage is outdated as a whole when one member moved meanwhile', async () => {
    const qa = await db().policyGroup.findUniqueOrThrow({ where: { name: 'qa' } });
    const leadUser = await db().user.findUniqueOrThrow({ where: { email: 'lead@example.com' } });
    await db().stageProtection.create({ data: { groupId: qa.id, approvalsRequired: 1, rules: '[]' } });
    await db().stageApprover.create({ data: { groupId: qa.id, principal: `user:${leadUser.id}`, userId: leadUser.id } });
    const preview = await call(promoteRoute.POST, 'POST', { token: admin, params: { group: 'dev', name: 'plat' }, body: { dry_run: true } });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.json.guard).toMatchObject({ outcome: 'request', approvals_required: 1 });
    expect(preview.json.guard.members.map((m: any) => m.policy)).toEqual(['edge', 'plat', 'svc', 'top']);
    expect(preview.json.left_out.map((l: any) => l.policy).sort()).toEqual(['clash', 'loopa', 'loopb']);
    const asked = await call(promoteRoute.POST, 'POST', { token: admin, params: { group: 'dev', name: 'plat' }, body: { expected: preview.json.expected } });
    expect(asked.status, asked.text).toBe(202);
    expect(asked.json.request).toMatchObject({ kind: 'together', status: 'pending', policy: 'plat' });
    expect(asked.json.request.members.map((m: any) => m.policy)).toEqual(['plat', 'edge', 'svc', 'top']);
    for (const p of ['plat', 'svc', 'edge', 'top']) expect(await runs('qa', p)).toBeNull();

    // svc reaches qa another way meanwhile (the stage unprotected for that one push).
    await db().stageProtection.delete({ where: { groupId: qa.id } });
    await push('qa', svc1);
    await db().stageProtection.create({ data: { groupId: qa.id, approvalsRequired: 1, rules: '[]' } });

    const approved = await call(approveRoute.POST, 'POST', { token: lead, params: { id: asked.json.request.id }, body: {} });
    expect(approved.text).toMatch(/outdated|no longer/i);
    expect((await db().promotionRequest.findUniqueOrThrow({ where: { id: asked.json.request.id } })).status).toBe('outdated');
    for (const p of ['plat', 'edge', 'top']) expect(await runs('qa', p)).toBeNull();
    expect(await runs('qa', 'svc')).toBe(svc1.revision_id);
    await db().stageProtection.delete({ where: { groupId: qa.id } });
  });

  it('refuses the whole move when one member’s expectation is stale, then moves all of them at once', async () => {
    const preview = await call(promoteRoute.POST, 'POST', { token: admin, params: { group: 'dev', name: 'plat' }, body: { dry_run: true } });
    expect(preview.json.guard.outcome).toBe('move');
    expect(preview.json.expected).toMatchObject({ svc: svc1.revision_id, plat: null });
    const before = snapshot();
    const stale = await call(promoteRoute.POST, 'POST', { token: admin, params: { group: 'dev', name: 'plat' }, body: { expected: { ...preview.json.expected, svc: null } } });
    expect(stale.status).toBe(409);
    expect(snapshot()).toBe(before);
    const res = await call(promoteRoute.POST, 'POST', { token: admin, params: { group: 'dev', name: 'plat' }, body: { expected: preview.json.expected, reason: 'plat r2 with its dependents' } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.promoted.map((p: any) => p.policy).sort()).toEqual(['edge', 'plat', 'svc', 'top']);
    expect(await runs('qa', 'plat')).toBe(plat2.revision_id);
    expect(await runs('qa', 'svc')).toBe(svc2.revision_id);
    expect(await runs('qa', 'top')).toBe(top2.revision_id);
    const qaDeps = await call(dependentsRoute.GET, 'GET', { token: viewer, params: { group: 'qa', name: 'plat' } });
    expect(qaDeps.json.older).toBe(0);
  });

  it('a later plat in dev: the board counts the dependents carrying an older plat', async () => {
    await push('dev', plat3);
    const res = await call(dependentsRoute.GET, 'GET', { token: viewer, params: { group: 'dev', name: 'plat' } });
    expect(res.json.older).toBe(6);
    const board = await loadBoard(await accessFor('viewer@example.com'));
    const row = board.policies.find((r) => r.name === 'plat')!;
    expect(row.cells.dev?.olderDependents).toBe(6);
    expect(row.cells.qa?.olderDependents).toBeUndefined();
  });
});
