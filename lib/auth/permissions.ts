/**
 * The one authorization: `can(actor, action, resource)`, pure, over one actor
 * type, with the rules as data (PERMISSIONS). Every entry point (server
 * actions, /api/v1, the Chef router) authenticates once per request into an
 * `Actor` and every service asks `can()` / `assertCan()`; nothing here trusts
 * a role carried in a session token (the actor is loaded from the database
 * for the request). Deny by default: an action missing from the table, an
 * unknown stage, an inactive user, a validator outside its one right.
 *
 * Actors:
 * - `{ kind: 'user' }` (also named `Access`): a console user, whichever way
 *   they came in (`via`: 'session', 'token', or 'chef-key:<name>/<key>');
 *   rights from the stage grants of the user and their teams.
 *
 * Membership (issue 23, docs/organizations-design.md step 2): a user who is
 * not a member of the organization (`member`; the home organization for the
 * console and /api/v1, the URL's on the Chef routes) gets no row whose scope
 * is the organization (every row but the few marked `scope: 'server'`: their
 * own account and keys, Chef's association of users). The console's
 * administrators are Chef's superuser and pass this check, as erchef's
 * superuser_bypasses_checks.
 * - `{ kind: 'client' }`: a Chef API client (a node's machine identity), or,
 *   with `validator`, the organization's validator, whose only right is to
 *   register clients. A client's `stage` is the stage the console has its node
 *   in (issue 41: the node's own policy_group never decides it).
 *
 * Resources: what the action is about, only the fields a rule reads:
 * `stage` (a stage name; for stage-bound reads `null` means "in no stage" and
 * leaving it out means "not bound to a stage"), `ownerTeamId` (a policy's
 * owning team), `node` (a node name), `client` (a client name), `userId`.
 *
 * Chef's default client rights (chef-server's org policy: the clients group
 * reads nodes, policies, policy groups, cookbook artifacts and data bags, and
 * creates nodes; each client reads, updates and deletes itself) are the
 * `client` column. The organization setting "stage isolation"
 * (`stageIsolation` on the client actor, stored in OrgSetting) limits the
 * stage-bound reads (`client: 'stage'`) to the client's own stage:
 *
 *   can(client, 'node.read', { node: 'web-1', stage: 'production' })  // a node
 *   can(client, 'data.read', { stages: ['production'] })  // a data bag restricted to stages (always applies)
 *   can(client, 'data.read', { stage: 'production' })     // anything else bound to one stage (under isolation)
 *   can(client, 'data.read', {})                          // bound to no stage: every client
 *
 * Search filters its rows with the same calls (a node row: 'node.read'; a
 * data bag row: 'data.read'), so search never shows what a GET would refuse.
 */
import { forbidden, notFound } from '@/lib/errors';

export const STAGE_LEVELS = ['view', 'promote', 'manage'] as const;
export type StageLevel = (typeof STAGE_LEVELS)[number];
const RANK: Record<StageLevel, number> = { view: 1, promote: 2, manage: 3 };

/** A console user: who they are and what they may do, loaded from the database per request. */
export interface UserActor {
  kind: 'user';
  userId: string;
  email: string;
  name: string;
  /** The user's Chef name (X-Ops-Userid), null when they have none. */
  chefName?: string | null;
  isAdmin: boolean;
  /** A member of the organization the request is about (issue 23; the home organization for the console and /api/v1). */
  member: boolean;
  teamIds: ReadonlySet<string>;
  /** Highest level per stage name, from the user's own and their teams' grants. */
  stageLevels: ReadonlyMap<string, StageLevel>;
  /** How the request authenticated: 'session', 'token', or 'chef-key:<name>/<key>' (audited). */
  via?: string;
}

/** A Chef API client, or the organization's validator. */
export interface ClientActor {
  kind: 'client';
  clientId: string;
  name: string;
  validator: boolean;
  /** 'chef-key:<name>/<key>'. */
  via: string;
  /** Clients have no console user: audit events name them `client:<name>`. */
  userId: null;
  email: string;
  /**
   * The client's stage: the stage the console has the node named like it in (Node.groupId; issue 41: never
   * what the node says about itself). null: no node, or a node in no known stage.
   */
  stage: string | null;
  /**
   * Issue 41 (docs/stage-binding.md): where the client may place its node at enrollment: a stage name (it was
   * registered by that stage's validator), or null (the stages with open enrollment). On a validator: null is the
   * organization's plain validator, a stage name a stage validator. Absent: null.
   */
  enrollStage?: string | null;
  /** The organization's "stage isolation" setting when the request was authenticated. */
  stageIsolation: boolean;
}

export type Actor = UserActor | ClientActor;
/** A console user's access (the user actor). */
export type Access = UserActor;

/** What an action is about (only the fields its rule reads). */
export interface Resource {
  /** The stage concerned. For stage-bound reads, null: in no stage; absent: not bound to a stage. */
  stage?: string | null;
  /** The owning team of the policy concerned (null: no owner, admins only). */
  ownerTeamId?: string | null;
  /** Owning teams when there are several (a cookbook artifact: every team of the user who uploaded it); the `owner` rule accepts any. */
  ownerTeamIds?: readonly string[];
  /** The node concerned (by name). */
  node?: string;
  /** The client concerned (by name). */
  client?: string;
  /** The console user concerned (by id). */
  userId?: string;
  /** The stages a resource is restricted to (a data bag): clients of one of them, users who may view one of them. */
  stages?: readonly string[];
  /** Teams' rights on the resource (a data bag's grants: 'read' or 'write'). */
  teamGrants?: ReadonlyArray<{ teamId: string; level: string }>;
  /**
   * Issue 23 (step 3): the organization's groups the actor is in, transitively (lib/services/organizations/groups.ts
   * `actorGroups`), for the rows that read groups (`org-admin`: `admins`; `group`). Absent: in none.
   */
  actorGroups?: ReadonlySet<string>;
  /** The organizations whose `admins` group holds the actor (`adminOrganizations`), for `self` with `orgAdmins`. */
  actorAdminOrgs?: readonly string[];
  /** The organizations the user concerned is a member of, for `self` with `orgAdmins`. */
  userOrgIds?: readonly string[];
  /**
   * The actor belongs to the organization concerned (a user: a member of it; a client: one of its clients), for the
   * `in-org` rules: the organization named by the request, which need not be the one the actor was loaded for.
   */
  actorInOrg?: boolean;
  /** A stage's approvers, as principals (`user:<id>`, `team:<id>`), for the `approver` rule. */
  approvers?: readonly string[];
}
/** @deprecated the old name of `Resource`. */
export type Target = Resource;

/**
 * Users' rules. `unstaged`: the rule when the resource is in no (known) stage. `over: 'stages'`: the level on at least
 * one of `resource.stages` (a revision: the stages running it) instead of on `resource.stage`.
 */
type UserRule =
  | { kind: 'stage'; level: StageLevel; unstaged?: 'signed-in' | 'admin'; over?: 'stages' }
  /** Allowed when one of the rules allows (a record's author or the stage's managers, …). */
  | { kind: 'any'; of: readonly UserRule[] }
  /** Issue 44: the actor belongs to the organization concerned (`resource.actorInOrg`). */
  | { kind: 'in-org' }
  /**
   * Issue 15: the user, or one of their teams, is one of `resource.approvers`. Like `self` without `admins`, checked
   * before the administrators' bypass: administrators are not approvers by right, only when named.
   */
  | { kind: 'approver' }
  | { kind: 'owner' }
  | { kind: 'admin' }
  | { kind: 'member' }
  | { kind: 'signed-in' }
  /** The user the resource names (and admins, with `admins`; without it, not even an admin). */
  | { kind: 'self'; admins?: true; orgAdmins?: true }
  /** Issue 23: an org admin (the organization's `admins` group, transitively); console admins always. */
  | { kind: 'org-admin' }
  /** Issue 23: members of one of the organization's groups (transitively). */
  | { kind: 'group'; group: string }
  /**
   * A data bag: `write` through a write grant to one of the user's teams;
   * `read` through any grant, or when the bag is restricted to no stage, or
   * to a stage the user may view.
   */
  | { kind: 'bag'; level: 'read' | 'write' };

/**
 * Clients' rules (absent: refused). 'all': every client; 'stage': every
 * client, limited to its own stage under stage isolation (its own node
 * always); 'own-node': the node named like the client; 'self': the client
 * itself.
 */
type ClientRule = 'all' | 'stage' | 'own-node' | 'self' | 'in-org' | { group: string };

interface Row {
  label: string;
  /** What a refused client is told it may not do, when not the label ({node} and {client}: the resource's). */
  clientLabel?: string;
  user: UserRule;
  client?: ClientRule;
  /** The validator's right (its only one: registering clients). */
  validator?: true;
  /**
   * 'server': not about the organization's content (a user's own account and keys, Chef's associations),
   * so a user who is not a member of the organization may still have it. Absent: the organization's, which
   * a non-member never has (administrators excepted).
   */
  scope?: 'server';
}

const stage = (level: StageLevel, unstaged?: 'signed-in' | 'admin'): UserRule => ({ kind: 'stage', level, ...(unstaged ? { unstaged } : {}) });
const SIGNED_IN: UserRule = { kind: 'signed-in' };
const ADMIN: UserRule = { kind: 'admin' };
const MEMBER: UserRule = { kind: 'member' };
const OWNER: UserRule = { kind: 'owner' };
const ORG_ADMIN: UserRule = { kind: 'org-admin' };
/** Chef's public_key_read_access (issue 23): the only right for org-scoped key reads, users and clients alike. */
const KEY_READERS = 'public_key_read_access';

export const PERMISSIONS = {
  // Stages (Chef's policy groups) and what runs in them.
  'stage.view': { label: 'view this stage', user: stage('view'), client: 'all' },
  'stage.promote': { label: 'change what runs in this stage', user: stage('promote') },
  'stage.manage': { label: 'manage this stage (settings, grants, deletion)', user: stage('manage') },
  'stage.create': { label: 'create stages', user: ADMIN },
  // Policies and revisions.
  'policy.read': { label: 'read policies and revisions', user: SIGNED_IN, client: 'all' },
  'policy.create': { label: 'create a policy', user: MEMBER },
  'policy.upload': { label: "upload or compose this policy's revisions", user: OWNER },
  'revision.delete': { label: "delete this policy's revisions", user: OWNER },
  // Issue 44: marking a revision bad: the policy's owner team, or who may promote into a stage running it (`stages`).
  'revision.mark': { label: "mark this policy's revisions bad", user: { kind: 'any', of: [OWNER, { kind: 'stage', level: 'promote', over: 'stages' }] } },
  'policy.delete': { label: 'delete policies', user: ADMIN },
  'orphans.cleanup': { label: 'clean up orphaned revisions', user: ADMIN },
  // Cookbook artifacts, their files and sandboxes.
  'cookbook.read': { label: 'read cookbooks', user: SIGNED_IN, client: 'all' },
  'cookbook.upload': { label: 'upload cookbooks', user: MEMBER },
  'cookbook.delete': { label: 'delete cookbooks', user: MEMBER },
  // Issue 28/44: one artifact: a team of the user who uploaded it (`ownerTeamIds`); clients never.
  'artifact.delete': { label: 'delete this cookbook artifact', user: OWNER },
  // Nodes: a user by the node's stage (a node in no known stage: every user reads it, admins write it).
  'node.list': { label: 'list nodes', user: SIGNED_IN, client: 'all' },
  'node.read': { label: 'read this node', user: stage('view', 'signed-in'), client: 'stage' },
  'node.report': { label: 'report node check-ins for this stage', user: stage('promote', 'admin'), client: 'own-node', clientLabel: "write node '{node}': a client creates and updates only its own node" },
  'node.delete': { label: 'delete nodes', user: stage('promote', 'admin') },
  // Chef API clients and keys.
  'client.list': { label: 'list clients', user: SIGNED_IN },
  'client.read': { label: 'read clients', user: SIGNED_IN, client: 'self' },
  // Issue 23: org admins (the `admins` group) create, update and delete clients and write their keys.
  'client.create': { label: 'create clients', user: ORG_ADMIN, validator: true },
  'client.create-validator': { label: 'create validator clients', user: ADMIN },
  'client.update': { label: 'update clients', user: ORG_ADMIN, client: 'self' },
  'client.delete': { label: 'delete clients', user: ORG_ADMIN, client: 'self' },
  // Chef's public_key_read_access (by default the groups `users` and `clients`): org-scoped key reads.
  'key.read': { label: 'read keys', user: { kind: 'group', group: KEY_READERS }, client: { group: KEY_READERS } },
  'client-key.write': { label: "change clients' keys", user: ORG_ADMIN, client: 'self' },
  // A user's keys: the user, and the console's admins as Chef's superuser (pivotal) writes any user's keys (issue 23).
  'user-key.write': { label: "change this user's keys", user: { kind: 'self', admins: true }, scope: 'server' },
  // Data bags (issue 24: per-bag stage restrictions and team grants) and search (issue 25): clients read by stage.
  'data.read': { label: 'read data bags', user: { kind: 'bag', level: 'read' }, client: 'stage' },
  'data.write': { label: 'change data bags', user: { kind: 'bag', level: 'write' } },
  'data.create': { label: 'create data bags', user: MEMBER },
  // Issue 24/44: a bag's settings (its stage restriction and team grants).
  'data.manage': { label: 'restrict data bags to stages and grant teams rights on them', user: ADMIN },
  'search.read': { label: 'search', user: SIGNED_IN, client: 'all' },
  // Console users, as Chef's server-level /users/:name sees them.
  // Issue 23: also the org admins of an organization the user is a member of.
  'user.read': { label: "read this user's account", user: { kind: 'self', admins: true, orgAdmins: true }, scope: 'server' },
  // Issue 23 (step 3): the organization's groups; members read them, org admins replace their members.
  'group.read': { label: "read the organization's groups", user: SIGNED_IN },
  'group.update': { label: "change the organization's groups", user: ORG_ADMIN },
  // Issue 23: the organization's membership. `org.access` is the Chef router's gate on every organization route
  // (users: members; every client of the organization; the validator); associating is Chef's superuser's.
  'org.access': { label: 'use this organization', user: SIGNED_IN, client: 'all', validator: true },
  'org.read': { label: "read the organization's members", user: SIGNED_IN },
  // erchef: READ on an organization (its users and admins groups; its clients): `GET /organizations/:org` (Chef and /api/v1).
  'org.view': { label: 'read this organization', user: { kind: 'in-org' }, client: 'in-org', scope: 'server' },
  'org.associate': { label: 'add users to the organization', user: ADMIN, scope: 'server' },
  'org.dissociate': { label: 'remove this user from the organization', user: { kind: 'self', admins: true, orgAdmins: true }, scope: 'server' },
  // Issue 23: association requests (Chef's invitations, `knife org user add`): the organization's admins invite,
  // list and cancel (erchef: update on the organization); the invited user (or Chef's superuser) reads and answers.
  'org.invite': { label: 'invite users to the organization', user: ORG_ADMIN },
  'user.invitations': { label: "read or answer this user's invitations", user: { kind: 'self', admins: true }, scope: 'server' },
  // Issue 23 (step 4): organizations themselves are Chef's superuser's (the console's administrators).
  'org.list': { label: 'list organizations', user: ADMIN, scope: 'server' },
  'org.create': { label: 'create organizations', user: ADMIN, scope: 'server' },
  'org.delete': { label: 'delete organizations', user: ADMIN, scope: 'server' },
  // erchef: the organization's admins group has update on it (its full name; `knife org edit`).
  'org.update': { label: "change the organization's full name", user: ORG_ADMIN, scope: 'server' },
  // The console's administration.
  'admin.users': { label: 'manage users, teams and tokens', user: ADMIN },
  'admin.import': { label: 'import, export or verify an organization (npm run import, export) and read the import reports', user: ADMIN },
  'org.settings': { label: "change the organization's settings", user: ADMIN },
  'audit.read': { label: 'read the audit log', user: SIGNED_IN },
  // Issue 44: the whole log, events bound to no stage too (users, teams, tokens, settings, scenarios, git repositories,
  // sign-in lockouts; policies' and revisions' events are every reader's): lib/db/queries/audit.ts.
  'audit.read-all': { label: 'read every audit event', user: ADMIN },
  'git.manage': { label: 'register git repositories for compose', user: ADMIN },
  'webhooks.manage': { label: 'manage webhook subscriptions', user: ADMIN },
  // Issue 47: the server fetches a gate's outside check: only an administrator registers (or changes) its URL.
  'checks.manage': { label: "register the URLs of a promotion gate's outside checks", user: ADMIN },
  // Issue 44: records people own. An ordering scenario (`userId`: its owner; any user may keep scenarios, member or not).
  'scenario.write': { label: 'change this ordering scenario', user: { kind: 'self', admins: true }, scope: 'server' },
  // A promotion request: decided by the stage's approvers (`approvers`; the requester never: an invariant of the service),
  // withdrawn by its requester (`userId`) or a manager of the stage.
  'request.decide': { label: 'approve or reject changes into this stage', user: { kind: 'approver' } },
  'request.withdraw': { label: 'withdraw this promotion request', user: { kind: 'any', of: [{ kind: 'self' }, { kind: 'stage', level: 'manage' }] } },
  // A user's API tokens (`userId`: whose): the user, and administrators for anyone (member of the organization or not).
  'token.manage': { label: "create and revoke this user's API tokens", user: { kind: 'self', admins: true }, scope: 'server' },
  // A scheduled promotion (`userId`: who scheduled it; `stage`: its stage): who scheduled it, or who manages the stage.
  'schedule.cancel': { label: 'cancel this scheduled promotion', user: { kind: 'any', of: [{ kind: 'self' }, { kind: 'stage', level: 'manage' }] } },
} as const satisfies Record<string, Row>;

export type Permission = keyof typeof PERMISSIONS;
/** An action an actor may be allowed: a row of PERMISSIONS. */
export type Action = Permission;

export function highestLevel(a: StageLevel | undefined, b: StageLevel): StageLevel {
  return !a || RANK[b] > RANK[a] ? b : a;
}

export function levelAtLeast(have: StageLevel | undefined, need: StageLevel): boolean {
  return !!have && RANK[have] >= RANK[need];
}

function userMay(access: UserActor, row: Row, resource: Resource): boolean {
  const rule = row.user;
  if (rule.kind === 'self' && !rule.admins) return !!resource.userId && resource.userId === access.userId;
  if (rule.kind === 'approver') return approverOf(access, resource);
  if (access.isAdmin) return true;
  // Issue 23: the organization's rows are its members' (the one membership gate, for every entry point).
  if (row.scope !== 'server' && !access.member) return false;
  return ruleAllows(access, rule, resource);
}

function approverOf(access: UserActor, resource: Resource): boolean {
  const approvers = resource.approvers ?? [];
  return approvers.includes(`user:${access.userId}`) || [...access.teamIds].some((t) => approvers.includes(`team:${t}`));
}

function ruleAllows(access: UserActor, rule: UserRule, resource: Resource): boolean {
  switch (rule.kind) {
    case 'approver':
      return approverOf(access, resource);
    case 'any':
      return rule.of.some((r) => ruleAllows(access, r, resource));
    case 'in-org':
      return !!resource.actorInOrg;
    case 'signed-in':
      return true;
    case 'member':
      return access.teamIds.size > 0;
    case 'admin':
      return false;
    case 'owner':
      return (!!resource.ownerTeamId && access.teamIds.has(resource.ownerTeamId)) || (resource.ownerTeamIds ?? []).some((t) => access.teamIds.has(t));
    case 'self':
      if (!!resource.userId && resource.userId === access.userId) return true;
      // Org admins: of the request's organization (`actorGroups`), or of one the user is a member of.
      return !!rule.orgAdmins && (!!resource.actorGroups?.has('admins') || (resource.actorAdminOrgs ?? []).some((o) => (resource.userOrgIds ?? []).includes(o)));
    case 'org-admin':
      return !!resource.actorGroups?.has('admins');
    case 'group':
      return !!resource.actorGroups?.has(rule.group);
    case 'bag': {
      const grants = (resource.teamGrants ?? []).filter((g) => access.teamIds.has(g.teamId));
      if (grants.some((g) => g.level === 'write')) return true;
      if (rule.level === 'write') return false;
      if (grants.some((g) => g.level === 'read')) return true;
      const stages = resource.stages ?? [];
      return stages.length === 0 || stages.some((stage) => levelAtLeast(access.stageLevels.get(stage), 'view'));
    }
    case 'stage':
      if (rule.over === 'stages') return (resource.stages ?? []).some((stage) => levelAtLeast(access.stageLevels.get(stage), rule.level));
      if (resource.stage) return levelAtLeast(access.stageLevels.get(resource.stage), rule.level);
      return rule.unstaged === 'signed-in';
  }
}

function clientMay(client: ClientActor, rule: ClientRule | undefined, resource: Resource): boolean {
  switch (rule) {
    case 'all':
      return true;
    case 'self':
      return resource.client === client.name;
    case 'own-node':
      return resource.node === client.name;
    case 'in-org':
      return !!resource.actorInOrg;
    case 'stage':
      // A resource restricted to stages (a data bag) is read by the clients of those stages, isolation or not.
      if (resource.stages?.length) return client.stage !== null && resource.stages.includes(client.stage);
      if (!client.stageIsolation || resource.stage === undefined || resource.node === client.name) return true;
      return resource.stage !== null && resource.stage === client.stage;
    default:
      return typeof rule === 'object' && !!resource.actorGroups?.has(rule.group);
  }
}

/** May this actor do this? Pure: everything it reads is in the actor, the table and the resource. */
export function can(actor: Actor | null | undefined, action: Action, resource: Resource = {}): boolean {
  if (!actor) return false;
  const row: Row | undefined = PERMISSIONS[action];
  if (!row) return false;
  if (actor.kind === 'client') return actor.validator ? !!row.validator : clientMay(actor, row.client, resource);
  return userMay(actor, row, resource);
}

/**
 * The refusal message, naming the stage once ("You may not change what runs in
 * stage 'qa'.") and who may do member-only things; for a client, Chef's
 * manner ("Client 'web-1' may not upload cookbooks.").
 */
export function refusal(action: Action, resource: Resource = {}, actor?: Actor | null): string {
  const row: Row = PERMISSIONS[action];
  const where = `stage '${resource.stage}'`;
  const label = !resource.stage ? row.label : row.label.includes('this stage') ? row.label.replace('this stage', where) : `${row.label} in ${where}`;
  if (actor?.kind === 'client') {
    const what = row.clientLabel?.replace('{node}', resource.node ?? '').replace('{client}', resource.client ?? '') ?? label;
    return `${actorLabel(actor)} may not ${what}.`;
  }
  if (actor?.kind === 'user' && !actor.isAdmin && !actor.member && row.scope !== 'server') return `You may not ${label}: you are not a member of this organization (an administrator must add you to it).`;
  if (!resource.stage && row.user.kind === 'stage' && row.user.unstaged === 'admin') return `You may not ${row.label.replace(' for this stage', '')} outside a known stage: only administrators may.`;
  if (row.user.kind === 'member') return `You may not ${label}: only administrators and members of a team may.`;
  if (row.user.kind === 'admin') return `You may not ${label}: only administrators may.`;
  if (row.user.kind === 'org-admin') return `You may not ${label}: only administrators and the organization's admins may.`;
  return `You may not ${label}.`;
}

/** Who is refused, in a refusal message: "Client 'web-1'" or "You". */
export function actorLabel(actor: Actor): string {
  return actor.kind === 'client' ? `Client '${actor.name}'` : 'You';
}

/** A user id no user has: asking a `self` row about it asks whether the actor may act for users other than themselves. */
const ANOTHER_USER = '\u0000another user';

/**
 * Whether `actor` may do a per-user action (a `self` row, `userId`: whose) for every user rather than only for
 * themselves: the lists that show everyone's records or the viewer's own (API tokens: administrators see and manage
 * everyone's). Asks the row about a user who is not the actor.
 */
export function canForEveryUser(actor: Actor | null | undefined, action: 'token.manage' | 'scenario.write'): boolean {
  return can(actor, action, { userId: ANOTHER_USER });
}

/** `can()`, or a 403 with the refusal message. */
export function assertCan(actor: Actor | null | undefined, action: Action, resource: Resource = {}): void {
  if (!can(actor, action, resource)) {
    throw forbidden(refusal(action, resource, actor));
  }
}

/**
 * Who sees a node: users who may view its stage (a node in no known stage:
 * every user, as Chef lets organization members read nodes); clients by
 * Chef's default, within their stage under stage isolation.
 */
export function canReadNode(actor: Actor, stage: string | null, node?: string): boolean {
  return can(actor, 'node.read', { stage, ...(node !== undefined ? { node } : {}) });
}

/**
 * Reads about a stage (docs/architecture.md §5.4): a stage the actor may not view answers exactly as a missing one —
 * 404 with `missing`, the message the door gives for a stage (or a policy in it) that does not exist — on every
 * door, so nothing tells which stages exist. Writes refuse with 403 instead (`assertCan`).
 */
export function assertViewable(actor: Actor | null | undefined, stage: string, missing: string): void {
  if (!can(actor, 'stage.view', { stage })) throw notFound(missing);
}

/** Stages the actor may view, in the given order. */
export function viewableStages<T extends { name: string }>(actor: Actor, stages: T[]): T[] {
  return stages.filter((s) => can(actor, 'stage.view', { stage: s.name }));
}
