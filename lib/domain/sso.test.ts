import { describe, expect, it } from 'vitest';
import { adminChange, decideGroups, groupNameProblem, isBreakGlass, membershipChanges, parseGroupList, parseLocalLogin, readGroupsClaim, type TeamGroups } from './sso';

const teams: TeamGroups[] = [
  { teamId: 't-release', team: 'release', groups: ['release-managers', 'sre'] },
  { teamId: 't-readers', team: 'readers', groups: ['viewers'] },
  { teamId: 't-manual', team: 'manual', groups: [] },
];

describe('the groups claim', () => {
  it('reads a list of strings, a single string as a list of one, and ignores what is not a usable name', () => {
    expect(readGroupsClaim({ groups: ['a', 'b', 'a'] }, 'groups')).toEqual({ ok: true, groups: new Set(['a', 'b']), ignored: 0 });
    expect(readGroupsClaim({ roles: 'ops' }, 'roles')).toEqual({ ok: true, groups: new Set(['ops']), ignored: 0 });
    expect(readGroupsClaim({ groups: ['ok', 42, null, '', 'x'.repeat(257), { a: 1 }] }, 'groups')).toEqual({ ok: true, groups: new Set(['ok']), ignored: 5 });
    expect(readGroupsClaim({ groups: [] }, 'groups')).toEqual({ ok: true, groups: new Set(), ignored: 0 });
  });
  it('tells a missing claim from an empty one (a missing one changes nothing)', () => {
    expect(readGroupsClaim({}, 'groups')).toEqual({ ok: false, reason: 'missing' });
    expect(readGroupsClaim({ groups: null }, 'groups')).toEqual({ ok: false, reason: 'missing' });
    expect(readGroupsClaim({ groups: { a: 1 } }, 'groups')).toEqual({ ok: false, reason: 'not-a-list' });
  });
  it('reads 10,000 groups', () => {
    const many = Array.from({ length: 10_000 }, (_, i) => `g${i}`);
    const r = readGroupsClaim({ groups: many }, 'groups');
    expect(r.ok && r.groups.size).toBe(10_000);
  });
});

describe('group mapping', () => {
  it('gives the teams any of whose groups the person is in, and administrator for an admin group', () => {
    const d = decideGroups(new Set(['sre', 'viewers', 'unrelated', 'console-admins']), teams, ['console-admins']);
    expect([...d.teams.entries()]).toEqual([
      ['t-release', { team: 'release', groups: ['sre'] }],
      ['t-readers', { team: 'readers', groups: ['viewers'] }],
    ]);
    expect(d.mappedGroups).toEqual(['console-admins', 'sre', 'viewers']);
    expect(d.admin).toBe(true);
  });
  it('matches names exactly (case, spaces, markup are names like any other)', () => {
    const markup = [{ teamId: 't', team: 't', groups: ['<b>ops</b>'] }];
    expect(decideGroups(new Set(['<b>ops</b>']), markup, []).teams.has('t')).toBe(true);
    expect(decideGroups(new Set(['Release-Managers', ' release-managers']), teams, []).teams.size).toBe(0);
  });
  it('adds and removes memberships of teams with groups only; a team without groups is left alone', () => {
    const d = decideGroups(new Set(['viewers']), teams, []);
    expect(membershipChanges(new Set(['t-release', 't-manual']), d, teams)).toEqual({ add: ['t-readers'], remove: ['t-release'] });
    expect(membershipChanges(new Set(['t-readers']), d, teams)).toEqual({ add: [], remove: [] });
    expect(membershipChanges(new Set(['t-release', 't-readers']), decideGroups(new Set(), teams, []), teams)).toEqual({ add: [], remove: ['t-readers', 't-release'] });
  });
  it('the administrator flag follows admin groups only when they gave it', () => {
    const inAdmin = decideGroups(new Set(['a']), [], ['a']);
    const outAdmin = decideGroups(new Set(), [], ['a']);
    expect(adminChange(inAdmin, { isAdmin: false, adminFromGroups: false }, true)).toEqual({ isAdmin: true, adminFromGroups: true });
    expect(adminChange(outAdmin, { isAdmin: true, adminFromGroups: true }, true)).toEqual({ isAdmin: false, adminFromGroups: false });
    // An administrator's own flag stays; without OIDC_ADMIN_GROUPS groups never touch it.
    expect(adminChange(outAdmin, { isAdmin: true, adminFromGroups: false }, true)).toEqual({ isAdmin: true, adminFromGroups: false });
    expect(adminChange(outAdmin, { isAdmin: true, adminFromGroups: true }, false)).toEqual({ isAdmin: true, adminFromGroups: true });
  });
});

describe('configuration values', () => {
  it('OIDC_ADMIN_GROUPS, LOCAL_LOGIN, group names, break-glass', () => {
    expect(parseGroupList(' a, b ,,a ')).toEqual(['a', 'b']);
    expect(parseGroupList(undefined)).toEqual([]);
    expect([parseLocalLogin(undefined), parseLocalLogin('FALSE'), parseLocalLogin('admins'), parseLocalLogin('yes')]).toEqual(['true', 'false', 'admins', null]);
    expect(groupNameProblem('ops\n')).toBe('must not contain control characters');
    expect(groupNameProblem(' ops')).toBe('must not start or end with spaces');
    expect(groupNameProblem('<script>alert(1)</script>')).toBeNull();
    expect(isBreakGlass({ origin: 'admin-create', isAdmin: true })).toBe(true);
    expect(isBreakGlass({ origin: 'admin-create', isAdmin: false })).toBe(false);
    expect(isBreakGlass({ origin: 'oidc', isAdmin: true })).toBe(false);
  });
});
