import { describe, expect, it } from 'vitest';
import { JsonNumber } from '@/lib/domain/shared/json-number';
import { differingPaths, fingerprint } from './fingerprint';
import { planRights, rightsByPerson, type Acl, type RightsInput } from './rights';
import { syncState } from './sync';

const base = (over: Partial<RightsInput> = {}): RightsInput => ({
  mode: 'chef',
  groups: [
    { name: 'admins', users: ['alice', 'pivotal'], clients: [], groups: [] },
    { name: 'users', users: ['alice', 'bob', 'carol'], clients: [], groups: [] },
    { name: 'clients', users: [], clients: ['web-1'], groups: [] },
    { name: 'release', users: ['carol'], clients: ['ci'], groups: [] },
    { name: 'ops', users: [], clients: [], groups: ['admins'] },
  ],
  members: ['alice', 'bob', 'carol'],
  stages: ['dev', 'production'],
  bags: ['secrets'],
  policies: ['web'],
  acl: () => null,
  containerAcl: () => null,
  ...over,
});

describe('planRights: Chef default ACLs', () => {
  it('admins manage every stage and are org admins; users promote; both write bags; chef-users owns policies', () => {
    const plan = planRights(base());
    expect(plan.teams.map((t) => [t.team, t.members])).toEqual([
      ['chef-users', ['alice', 'bob', 'carol']],
      ['chef-admins', ['alice']],
      ['chef-ops', ['alice']],
      ['chef-release', ['carol']],
    ]);
    const grants = plan.stageGrants.map((g) => `${'team' in g.subject ? g.subject.team : g.subject.user}:${g.stage}:${g.level}`);
    expect(grants).toEqual(['chef-users:dev:promote', 'chef-admins:dev:manage', 'chef-users:production:promote', 'chef-admins:production:manage']);
    expect(plan.orgAdmins).toEqual(['alice']);
    expect(plan.bagGrants.map((b) => b.team)).toEqual(['chef-users', 'chef-admins']);
    expect(plan.policyOwners).toEqual([{ policy: 'web', team: 'chef-users' }]);
    expect(plan.notes.join('\n')).toContain('release: its clients (ci)');
    expect(rightsByPerson(plan).get('bob')).toEqual(['team chef-users (Chef group users): promote on dev, production; write on data bags secrets; owner of policies web']);
  });

  it("a policy group's own ACL narrows users and names a custom group; actors get grants of their own; --rights view caps at view", () => {
    const prod: Acl = { read: { actors: [], groups: ['admins', 'users', 'release'] }, update: { actors: ['bob'], groups: ['admins', 'release'] }, grant: { actors: [], groups: ['admins'] } };
    const input = base({ acl: (kind, name) => (kind === 'policy_groups' && name === 'production' ? prod : null) });
    const grants = planRights(input).stageGrants.filter((g) => g.stage === 'production').map((g) => `${'team' in g.subject ? g.subject.team : g.subject.user}:${g.level}`);
    expect(grants).toEqual(['chef-users:view', 'chef-admins:manage', 'chef-release:promote', 'bob:promote']);
    const view = planRights({ ...input, mode: 'view' });
    expect(new Set(view.stageGrants.map((g) => g.level))).toEqual(new Set(['view']));
    expect(view.bagGrants).toEqual([]);
    expect(view.orgAdmins).toEqual([]);
    expect(planRights({ ...input, mode: 'none' }).teams).toEqual([]);
  });
});

describe('fingerprints and sync states', () => {
  it('numbers count as written; key order does not', () => {
    expect(fingerprint({ a: new JsonNumber('1.0'), b: 2 })).toBe(fingerprint({ b: 2, a: new JsonNumber('1.0') }));
    expect(fingerprint({ a: new JsonNumber('1.0') })).not.toBe(fingerprint({ a: new JsonNumber('1') }));
    expect(differingPaths({ normal: { a: 1, b: [1] }, x: 1 }, { normal: { a: 2, b: [1], c: 3 }, x: 1 })).toEqual(['/normal/a', '/normal/c']);
  });

  it('tells who moved since the record', () => {
    expect(syncState('s', 's', null)).toBe('same');
    expect(syncState('s2', 'c', null)).toBe('unknown');
    expect(syncState('s1', 'c2', { sourceHash: 's1', consoleHash: 'c1' })).toBe('console-changed');
    expect(syncState('s2', 'c1', { sourceHash: 's1', consoleHash: 'c1' })).toBe('source-changed');
    expect(syncState('s2', 'c2', { sourceHash: 's1', consoleHash: 'c1' })).toBe('both-changed');
  });
});
