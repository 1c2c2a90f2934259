/**
 * Issue 44: the rules that lived outside the permission table (data bag settings, an artifact's uploader's teams,
 * scenario owners, reading an organization, marking revisions bad, cancelling schedules) are rows of it now; and a
 * stage hidden from a reader answers as a missing one. Pure: actors and resources are built here.
 */
import { describe, expect, it } from 'vitest';
import { AppError } from '@/lib/errors';
import { assertViewable, can, canForEveryUser, type ClientActor, type StageLevel, type UserActor } from './permissions';

function user(over: Partial<UserActor> & { levels?: Record<string, StageLevel>; teams?: string[] } = {}): UserActor {
  const { levels = {}, teams = [], ...rest } = over;
  return { kind: 'user', userId: 'u1', email: 'u1@example.com', name: 'U1', isAdmin: false, member: true, teamIds: new Set(teams), stageLevels: new Map(Object.entries(levels)), ...rest };
}
const admin = user({ userId: 'a1', isAdmin: true });
function client(over: Partial<ClientActor> = {}): ClientActor {
  return { kind: 'client', clientId: 'c1', name: 'web-1', validator: false, via: 'chef-key:web-1/default', userId: null, email: 'client:web-1', stage: 'dev', stageIsolation: false, ...over };
}

describe('data.manage: a bag’s stage restriction and team grants', () => {
  it('administrators only; members of teams, even with write grants elsewhere, may not', () => {
    expect(can(admin, 'data.manage')).toBe(true);
    expect(can(user({ teams: ['web'], levels: { production: 'manage' } }), 'data.manage')).toBe(false);
    expect(can(client(), 'data.manage')).toBe(false);
  });
});

describe('artifact.delete: a team of the uploader, or an administrator', () => {
  it('any of the uploader’s teams', () => {
    expect(can(user({ teams: ['dba'] }), 'artifact.delete', { ownerTeamIds: ['web', 'dba'] })).toBe(true);
    expect(can(user({ teams: ['core'] }), 'artifact.delete', { ownerTeamIds: ['web', 'dba'] })).toBe(false);
  });
  it('an artifact uploaded by no one in a team (or by a client): administrators only', () => {
    expect(can(user({ teams: ['web'] }), 'artifact.delete', { ownerTeamIds: [] })).toBe(false);
    expect(can(admin, 'artifact.delete', { ownerTeamIds: [] })).toBe(true);
  });
  it('never a client, never a non-member', () => {
    expect(can(client(), 'artifact.delete', { ownerTeamIds: ['web'] })).toBe(false);
    expect(can(user({ teams: ['web'], member: false }), 'artifact.delete', { ownerTeamIds: ['web'] })).toBe(false);
  });
});

describe('scenario.write: an ordering scenario’s owner, or an administrator', () => {
  it('the owner, member of the organization or not', () => {
    expect(can(user(), 'scenario.write', { userId: 'u1' })).toBe(true);
    expect(can(user({ member: false }), 'scenario.write', { userId: 'u1' })).toBe(true);
  });
  it('anyone else: no; an ownerless scenario: administrators only', () => {
    expect(can(user(), 'scenario.write', { userId: 'u2' })).toBe(false);
    expect(can(user(), 'scenario.write', {})).toBe(false);
    expect(can(admin, 'scenario.write', { userId: 'u2' })).toBe(true);
    expect(can(admin, 'scenario.write', {})).toBe(true);
  });
});

describe('org.view: reading one organization (erchef: READ on it)', () => {
  it('its members and its own clients; administrators always', () => {
    expect(can(user(), 'org.view', { actorInOrg: true })).toBe(true);
    expect(can(user(), 'org.view', { actorInOrg: false })).toBe(false);
    expect(can(admin, 'org.view', { actorInOrg: false })).toBe(true);
    expect(can(client(), 'org.view', { actorInOrg: true })).toBe(true);
    expect(can(client(), 'org.view', { actorInOrg: false })).toBe(false);
  });
  it('not the validator, even its own organization’s', () => {
    expect(can(client({ validator: true }), 'org.view', { actorInOrg: true })).toBe(false);
  });
  it('membership of the home organization does not matter: the organization read is the one named', () => {
    expect(can(user({ member: false }), 'org.view', { actorInOrg: true })).toBe(true);
    expect(can(user({ member: true }), 'org.view', { actorInOrg: false })).toBe(false);
  });
});

describe('revision.mark: the policy’s owner team, or who may promote into a stage running the revision', () => {
  it('the owner team', () => {
    expect(can(user({ teams: ['web'] }), 'revision.mark', { ownerTeamId: 'web', stages: [] })).toBe(true);
  });
  it('promote (or manage) on one of the stages running it; view is not enough', () => {
    expect(can(user({ levels: { qa: 'promote' } }), 'revision.mark', { ownerTeamId: 'web', stages: ['dev', 'qa'] })).toBe(true);
    expect(can(user({ levels: { qa: 'manage' } }), 'revision.mark', { ownerTeamId: 'web', stages: ['qa'] })).toBe(true);
    expect(can(user({ levels: { qa: 'view', dev: 'view' } }), 'revision.mark', { ownerTeamId: 'web', stages: ['dev', 'qa'] })).toBe(false);
    expect(can(user({ levels: { production: 'promote' } }), 'revision.mark', { ownerTeamId: 'web', stages: ['dev'] })).toBe(false);
  });
  it('a revision running nowhere: its owner team and administrators', () => {
    expect(can(user({ levels: { dev: 'manage' } }), 'revision.mark', { ownerTeamId: 'web', stages: [] })).toBe(false);
    expect(can(admin, 'revision.mark', { ownerTeamId: null, stages: [] })).toBe(true);
  });
  it('clients and non-members: no', () => {
    expect(can(client(), 'revision.mark', { ownerTeamId: 'web', stages: ['dev'] })).toBe(false);
    expect(can(user({ teams: ['web'], member: false }), 'revision.mark', { ownerTeamId: 'web', stages: [] })).toBe(false);
  });
});

describe('schedule.cancel: who scheduled it, or who manages its stage', () => {
  it('the one who scheduled it, whatever their level now', () => {
    expect(can(user(), 'schedule.cancel', { userId: 'u1', stage: 'production' })).toBe(true);
  });
  it('a manager of the stage; promote is not enough', () => {
    expect(can(user({ userId: 'u2', levels: { production: 'manage' } }), 'schedule.cancel', { userId: 'u1', stage: 'production' })).toBe(true);
    expect(can(user({ userId: 'u2', levels: { production: 'promote' } }), 'schedule.cancel', { userId: 'u1', stage: 'production' })).toBe(false);
  });
  it('a schedule whose author is gone: managers of the stage and administrators', () => {
    expect(can(user(), 'schedule.cancel', { stage: 'production' })).toBe(false);
    expect(can(admin, 'schedule.cancel', { stage: 'production' })).toBe(true);
  });
});

describe('request.withdraw: the requester, or a manager of the stage', () => {
  it('the requester whatever their level; a manager; not an approver or a promoter', () => {
    expect(can(user(), 'request.withdraw', { userId: 'u1', stage: 'production' })).toBe(true);
    expect(can(user({ userId: 'u2', levels: { production: 'manage' } }), 'request.withdraw', { userId: 'u1', stage: 'production' })).toBe(true);
    expect(can(user({ userId: 'u2', levels: { production: 'promote' } }), 'request.withdraw', { userId: 'u1', stage: 'production' })).toBe(false);
    expect(can(admin, 'request.withdraw', { userId: 'u1', stage: 'production' })).toBe(true);
  });
});

describe('request.decide: the stage’s approvers, named or through a team; administrators only when named', () => {
  it('a named user or a member of a named team', () => {
    expect(can(user(), 'request.decide', { approvers: ['user:u1'] })).toBe(true);
    expect(can(user({ teams: ['web'] }), 'request.decide', { approvers: ['team:web'] })).toBe(true);
    expect(can(user({ teams: ['dba'], levels: { production: 'manage' } }), 'request.decide', { approvers: ['team:web', 'user:u2'] })).toBe(false);
  });
  it('an administrator who is not named may not decide; named, they may', () => {
    expect(can(admin, 'request.decide', { approvers: ['user:u1'] })).toBe(false);
    expect(can(admin, 'request.decide', {})).toBe(false);
    expect(can(admin, 'request.decide', { approvers: ['user:a1'] })).toBe(true);
  });
  it('clients never', () => {
    expect(can(client(), 'request.decide', { approvers: ['user:u1'] })).toBe(false);
  });
});

describe('token.manage: your own API tokens; administrators anyone’s', () => {
  it('your own, member of the organization or not; someone else’s: administrators only', () => {
    expect(can(user(), 'token.manage', { userId: 'u1' })).toBe(true);
    expect(can(user({ member: false }), 'token.manage', { userId: 'u1' })).toBe(true);
    expect(can(user({ levels: { production: 'manage' } }), 'token.manage', { userId: 'u2' })).toBe(false);
    expect(can(admin, 'token.manage', { userId: 'u2' })).toBe(true);
  });
});

describe('canForEveryUser: lists of everyone’s records or the viewer’s own (API tokens)', () => {
  it('administrators, member of the organization or not; no one else, whatever their stage levels or teams', () => {
    expect(canForEveryUser(admin, 'token.manage')).toBe(true);
    expect(canForEveryUser(user({ userId: 'a2', isAdmin: true, member: false }), 'token.manage')).toBe(true);
    expect(canForEveryUser(user({ teams: ['core'], levels: { production: 'manage' } }), 'token.manage')).toBe(false);
    expect(canForEveryUser(client(), 'token.manage')).toBe(false);
    expect(canForEveryUser(null, 'token.manage')).toBe(false);
  });
  it('asks the row: an ordering scenario’s owner writes only their own, administrators anyone’s', () => {
    expect(canForEveryUser(user(), 'scenario.write')).toBe(false);
    expect(canForEveryUser(admin, 'scenario.write')).toBe(true);
  });
});

describe('audit.read-all: the whole audit log, events bound to no stage too', () => {
  it('administrators only: managing every stage, or a member of a team, is not enough; clients never', () => {
    expect(can(admin, 'audit.read-all')).toBe(true);
    expect(can(user({ teams: ['core'], levels: { dev: 'manage', qa: 'manage', production: 'manage' } }), 'audit.read-all')).toBe(false);
    expect(can(client(), 'audit.read-all')).toBe(false);
    // The stage-bound part of the log stays every signed-in member's (audit.read).
    expect(can(user(), 'audit.read')).toBe(true);
  });
});

describe('the console’s doors: who sees the organization, the demo admin’s warning, the Stages and Permissions tabs', () => {
  it('org.access: members and administrators (as Chef’s superuser); a non-member sees why instead', () => {
    expect(can(user(), 'org.access')).toBe(true);
    expect(can(user({ member: false, teams: ['core'], levels: { dev: 'manage' } }), 'org.access')).toBe(false);
    expect(can(user({ isAdmin: true, member: false }), 'org.access')).toBe(true);
  });
  it('admin.users (the demo admin’s warning asks for a fix in Admin → Users): administrators only', () => {
    expect(can(admin, 'admin.users')).toBe(true);
    expect(can(user({ teams: ['core'], levels: { production: 'manage' } }), 'admin.users')).toBe(false);
  });
  it('stage.create: administrators, so they get the Stages and Permissions tabs before any stage exists; managers get them by stage.manage', () => {
    expect(can(admin, 'stage.create')).toBe(true);
    const manager = user({ levels: { qa: 'manage' } });
    expect(can(manager, 'stage.create')).toBe(false);
    expect(can(manager, 'stage.manage', { stage: 'qa' })).toBe(true);
    expect(can(user({ levels: { qa: 'promote' } }), 'stage.manage', { stage: 'qa' })).toBe(false);
  });
});

describe('org.invite asked about an inviter (an invitation stays valid while its inviter may still invite)', () => {
  it('an administrator without groups; a member in the organization’s admins; not a member, whatever their groups', () => {
    expect(can(admin, 'org.invite')).toBe(true);
    expect(can(user({ isAdmin: true, member: false }), 'org.invite')).toBe(true);
    expect(can(user(), 'org.invite')).toBe(false);
    expect(can(user(), 'org.invite', { actorGroups: new Set(['users', 'admins']) })).toBe(true);
    expect(can(user(), 'org.invite', { actorGroups: new Set(['users']) })).toBe(false);
    expect(can(user({ member: false }), 'org.invite', { actorGroups: new Set(['admins']) })).toBe(false);
  });
});

describe('data.write without grants: who writes every bag (a new bag’s creator’s teams get write unless so)', () => {
  it('administrators write a bag with no grant; a member of teams does not', () => {
    expect(can(admin, 'data.write', {})).toBe(true);
    expect(can(user({ teams: ['web'] }), 'data.write', {})).toBe(false);
    expect(can(user({ teams: ['web'] }), 'data.write', { teamGrants: [{ teamId: 'web', level: 'write' }] })).toBe(true);
  });
});

describe('node.read for search: administrators read every stage’s nodes and nodes in no stage (the scope is then all)', () => {
  it('every stage and none for administrators; a viewer of dev only dev and the unstaged', () => {
    for (const stage of ['dev', 'production', 'a-stage-made-later', null]) expect(can(admin, 'node.read', { stage })).toBe(true);
    const viewer = user({ levels: { dev: 'view' } });
    expect(can(viewer, 'node.read', { stage: 'dev' })).toBe(true);
    expect(can(viewer, 'node.read', { stage: 'production' })).toBe(false);
    expect(can(viewer, 'node.read', { stage: null })).toBe(true);
  });
});

describe('assertViewable: a hidden stage answers as a missing one', () => {
  it('404 with the message given for a missing stage, for users and clients', () => {
    const refused = (f: () => void) => {
      try {
        f();
      } catch (e) {
        return e as AppError;
      }
      return null;
    };
    const e = refused(() => assertViewable(user({ levels: { dev: 'view' } }), 'production', 'Cannot load policy group production'));
    expect(e).toBeInstanceOf(AppError);
    expect(e!.status).toBe(404);
    expect(e!.message).toBe('Cannot load policy group production');
    expect(refused(() => assertViewable(user({ levels: { production: 'view' } }), 'production', 'x'))).toBeNull();
    expect(refused(() => assertViewable(admin, 'anything', 'x'))).toBeNull();
    expect(refused(() => assertViewable(client(), 'production', 'x'))).toBeNull();
    expect(refused(() => assertViewable(client({ validator: true }), 'production', 'x'))?.status).toBe(404);
  });
});
