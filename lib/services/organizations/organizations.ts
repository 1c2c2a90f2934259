/**
 * Issue 23 (docs/organizations-design.md, option B, step 1): Chef organizations scope Chef identities only
 * (clients, memberships, groups); every Chef object stays in the install's home organization, the one
 * CHEF_ORG names. The migration `organizations` created the home row (id HOME_ORG_ID, named after CHEF_ORG's
 * default `console`) with its five system groups, made every existing user a member and put every client in
 * it. At start-up `ensureHomeOrganization(chefOrg())` keeps that row named after CHEF_ORG.
 *
 * Step 2: membership of the home organization gates every organization route, the console and /api/v1 (the
 * actor's `member`, read by the read path; lib/services/organizations/members.ts associates and dissociates).
 *
 * Step 4: other organizations are made and deleted here (Chef's `POST /organizations`, Admin → Organizations,
 * /api/v1/organizations). They hold identities only: a validator and the clients it registers, members and
 * groups; policies, nodes, cookbooks, data bags and search stay in the home organization.
 */
import { db, TRANSACTION_OPTIONS, type Db, type Tx } from '@/lib/db/client';
import { assertCan, can, type Access, type Actor } from '@/lib/auth/permissions';
import { chefOrg } from '@/lib/config';
import { badRequest, chefStringError, notFound } from '@/lib/errors';
import { compareText, sortedBy } from '@/lib/db/order';
import { audit, retryUniqueConflicts, transaction } from '@/lib/services/funnel';
import { HOME_ORG_ID } from '@/lib/domain/organizations';
import { generateChefKeyPair } from '@/lib/auth/key-pairs';
import { claimChefName, validatorName } from './names';

export { HOME_ORG_ID } from '@/lib/domain/organizations';
/** A new user's membership of the home organization, for `user.create`'s `orgMemberships` (every console user is a member). */
export const HOME_MEMBERSHIP = { create: { orgId: HOME_ORG_ID } } as const;
/** `Organization.homeKey` of the home row (null on every other): a unique key, so there is at most one. */
export const HOME_KEY = 'home';

/** Chef's system groups, made with every organization. `users` and `clients` are derived (never stored). */
export const SYSTEM_GROUPS = ['admins', 'billing-admins', 'users', 'clients', 'public_key_read_access'] as const;
export type SystemGroup = (typeof SYSTEM_GROUPS)[number];
/** Chef's default members of `public_key_read_access`: the groups `users` and `clients`. */
const KEY_READ_DEFAULTS: SystemGroup[] = ['users', 'clients'];

export interface OrganizationRow {
  id: string;
  name: string;
  fullName: string;
  home: boolean;
  createdAt: Date;
}

const SELECT = { id: true, name: true, fullName: true, homeKey: true, createdAt: true } as const;
type Selected = { id: string; name: string; fullName: string; homeKey: string | null; createdAt: Date };
const toRow = (o: Selected): OrganizationRow => ({ id: o.id, name: o.name, fullName: o.fullName, home: o.homeKey === HOME_KEY, createdAt: o.createdAt });

/** The install's home organization (null only on a database that was never migrated and started). */
export async function homeOrganization(client: Db | Tx = db()): Promise<OrganizationRow | null> {
  const o = await client.organization.findUnique({ where: { id: HOME_ORG_ID }, select: SELECT });
  return o ? toRow(o) : null;
}

/** The organization called `name`, or null. */
export async function organizationByName(name: string, client: Db | Tx = db()): Promise<OrganizationRow | null> {
  const o = await client.organization.findUnique({ where: { name }, select: SELECT });
  return o ? toRow(o) : null;
}

/** Whether the user is a member of the organization (one probe of OrgMember's primary key). */
export async function isOrgMember(orgId: string, userId: string, client: Db | Tx = db()): Promise<boolean> {
  return !!(await client.orgMember.findUnique({ where: { orgId_userId: { orgId, userId } }, select: { userId: true } }));
}

/**
 * The organization a request names (the Chef router, /api/v1, Admin → Organizations): the home organization when
 * `name` is CHEF_ORG's (`homeName`), without a query; any other by its unique name; null when there is none.
 */
export async function organizationForName(name: string, homeName: string): Promise<{ id: string; name: string; home: boolean } | null> {
  if (name === homeName) return { id: HOME_ORG_ID, name, home: true };
  const o = name ? await organizationByName(name) : null;
  return o ? { id: o.id, name: o.name, home: o.home } : null;
}

/**
 * The organization a path or a form names (`/api/v1/organizations/{org}/…`, Admin → Organizations), as the
 * services take it: the home organization (CHEF_ORG) without a lookup, any other by its name; 404 with Chef's
 * text when there is none (issue 23). Moved from lib/api/org-members.ts: actions and pages ask it too.
 */
export async function organizationNamed(name: string): Promise<{ orgId: string; orgName: string }> {
  const o = await organizationForName(name, chefOrg());
  if (!o) throw notFound(`organization '${name}' does not exist.`);
  return { orgId: o.id, orgName: o.name };
}

/**
 * A request's organization and caller (`/api/v1/organizations/{org}/…`, Admin → Organizations). The caller's
 * `member` is of the home organization; under another organization it says whether they are a member of that
 * one, so the services' rights (members read, the rest as before) are about the organization named.
 */
export async function orgScope(access: Access, name: string): Promise<{ actor: Access; org: { orgId: string; orgName: string } }> {
  const org = await organizationNamed(name);
  if (org.orgId === HOME_ORG_ID) return { actor: access, org };
  return { actor: { ...access, member: await isOrgMember(org.orgId, access.userId) }, org };
}

/** Which organization a service call is about (memberships, groups), and the request it serves. */
export interface OrgOptions {
  /** The organization (default: the home organization). */
  orgId?: string;
  /** Its name, for messages and audit targets (default: the stored name). */
  orgName?: string;
  requestId?: string;
}

/** The organization's name: `opts.orgName` when the caller knows it, else the stored one (Chef's 404 when there is none). */
export async function organizationName(client: Db | Tx, opts: OrgOptions): Promise<string> {
  if (opts.orgName) return opts.orgName;
  const o = await client.organization.findUnique({ where: { id: opts.orgId ?? HOME_ORG_ID }, select: { name: true } });
  if (!o) throw chefStringError('not_found', 'The organization does not exist.');
  return o.name;
}

/** Start-up refuses: CHEF_ORG names an organization other than the home one. */
export class HomeOrganizationError extends Error {}

export interface EnsureHomeResult {
  name: string;
  /** The home row was missing and has been made (a database whose row was removed by hand). */
  created: boolean;
  /** The name it had before, when it was renamed to CHEF_ORG. */
  renamedFrom: string | null;
  /** System groups that were missing and have been made. */
  groupsCreated: string[];
}

const START_UP = { kind: 'system' as const, userId: null, email: 'start-up' };

/**
 * Makes the home organization match CHEF_ORG (`name`): creates it if missing (every user a member, as the
 * migration makes them; its clients went with the removed row), renames it when CHEF_ORG changed (its members,
 * clients and groups stay), and restores any missing system group. Refuses (HomeOrganizationError, nothing
 * changed) when another organization already has that name. Nothing to do (the usual start) is one read and no
 * write; a change is one transaction with one audit event (`org.home`).
 *
 * Safe when several instances start at once on one database: the transaction is re-run from the start when it
 * lost a race on a unique key (the second look then finds what the winner made), and the rename is a
 * compare-and-swap on the name it read, so two instances make one change and one event.
 */
export async function ensureHomeOrganization(name: string, client: Db = db()): Promise<EnsureHomeResult> {
  if (!name) throw new HomeOrganizationError('CHEF_ORG is empty: the home organization needs a name.');
  return retryUniqueConflicts(() => client.$transaction((tx) => ensureIn(tx as Tx, name), TRANSACTION_OPTIONS));
}

async function ensureIn(tx: Tx, name: string): Promise<EnsureHomeResult> {
  const result: EnsureHomeResult = { name, created: false, renamedFrom: null, groupsCreated: [] };
  const home = await tx.organization.findUnique({ where: { id: HOME_ORG_ID }, select: { name: true, fullName: true, groups: { select: { name: true } } } });
  if (!home || home.name !== name) {
    const other = await tx.organization.findUnique({ where: { name }, select: { id: true } });
    if (other && other.id !== HOME_ORG_ID) {
      throw new HomeOrganizationError(
        `CHEF_ORG is '${name}', but the organization '${name}' already exists and is not this server's home organization${home ? ` ('${home.name}')` : ''}: ` +
          `delete or rename that organization, or set CHEF_ORG back${home ? ` to '${home.name}'` : ''}.`,
      );
    }
  }
  if (!home) {
    await tx.organization.create({ data: { id: HOME_ORG_ID, name, fullName: name, homeKey: HOME_KEY } });
    const users = await tx.user.findMany({ select: { id: true } });
    if (users.length) await tx.orgMember.createMany({ data: users.map((u) => ({ orgId: HOME_ORG_ID, userId: u.id })) });
    result.created = true;
  } else if (home.name !== name) {
    // A compare-and-swap on the name read: an instance that renamed it first makes this one a no-op (one event).
    // The full name follows the name unless someone gave it one of its own.
    const renamed = await tx.organization.updateMany({ where: { id: HOME_ORG_ID, name: home.name }, data: { name, ...(home.fullName === home.name ? { fullName: name } : {}) } });
    if (renamed.count === 1) result.renamedFrom = home.name;
  }
  const have = new Set(home?.groups.map((g) => g.name) ?? []);
  const missing = SYSTEM_GROUPS.filter((g) => !have.has(g));
  if (missing.length) {
    await tx.chefGroup.createMany({ data: missing.map((g) => ({ id: homeGroupId(g), orgId: HOME_ORG_ID, name: g })) });
    // Chef's default members, only in a public_key_read_access made now (an existing one keeps what was chosen).
    if (missing.includes('public_key_read_access')) {
      const defaults = await tx.chefGroup.findMany({ where: { orgId: HOME_ORG_ID, name: { in: KEY_READ_DEFAULTS } }, select: { id: true } });
      if (defaults.length) {
        await tx.chefGroupMember.createMany({ data: defaults.map((g) => ({ groupId: homeGroupId('public_key_read_access'), member: `group:${g.id}`, childGroupId: g.id })) });
      }
    }
    result.groupsCreated = missing;
  }
  if (result.created || result.renamedFrom !== null || missing.length) {
    await audit(tx, START_UP, {
      action: 'org.home',
      targetType: 'organization',
      target: name,
      before: home ? { name: home.name } : null,
      after: { name, ...(result.created ? { created: true } : {}), ...(missing.length ? { groups_created: missing } : {}) },
    });
  }
  return result;
}

/** What ensureHomeOrganization changed, one line each (nothing when it changed nothing), for start-up and db:migrate to print. */
export function homeOrganizationReport(r: EnsureHomeResult): string[] {
  return [
    ...(r.created ? [`created the home organization '${r.name}'`] : []),
    ...(r.renamedFrom !== null ? [`renamed the home organization '${r.renamedFrom}' to '${r.name}' (CHEF_ORG)`] : []),
    ...(r.groupsCreated.length ? [`restored the home organization's groups: ${r.groupsCreated.join(', ')}`] : []),
  ];
}

/** The id of a home system group: fixed (the migration made them with these ids). */
export function homeGroupId(group: SystemGroup): string {
  return `${HOME_ORG_ID}_${group.replace(/-/g, '_')}`;
}

// ---------------------------------------------------------------- step 4: organizations made and deleted

/** An organization as the console and /api/v1 show it (Chef's body is `{name, full_name, guid}`). */
export interface OrganizationDto {
  name: string;
  fullName: string;
  home: boolean;
  createdAt: Date;
  /** Its members (users associated with it). */
  members: number;
  /** Its clients, the validator included. */
  clients: number;
  /** Chef's `guid`: the organization's id. */
  guid: string;
}

/** erchef's organization name and full-name rules (oc_chef_organization's ORG_NAME_REGEX and FULL_NAME_REGEX). */
export const ORG_NAME = /^[a-z0-9][a-z0-9_-]{0,254}$/;
export const ORG_FULL_NAME = /^\S.{0,1022}$/su;
const ORG_NAME_MESSAGE = 'Malformed org name.  Must only contain A-Z, a-z, 0-9, _, or -';
const ORG_FULL_NAME_MESSAGE = 'Malformed org full name.  Must only contain A-Z, a-z, 0-9, _, or -';

export const ORGANIZATION_SELECT = { id: true, name: true, fullName: true, homeKey: true, createdAt: true, _count: { select: { members: true, clients: true } } } as const;
type DtoRow = { id: string; name: string; fullName: string; homeKey: string | null; createdAt: Date; _count: { members: number; clients: number } };
export const organizationDto = (o: DtoRow): OrganizationDto => ({ name: o.name, fullName: o.fullName, home: o.homeKey === HOME_KEY, createdAt: o.createdAt, members: o._count.members, clients: o._count.clients, guid: o.id });

export function noSuchOrganization(name: string) {
  return notFound(`organization '${name}' does not exist.`);
}

/** Every organization, by name (Chef's superuser: the console's administrators). */
export async function listOrganizations(actor: Actor): Promise<OrganizationDto[]> {
  assertCan(actor, 'org.list');
  const rows = await db().organization.findMany({ select: ORGANIZATION_SELECT, orderBy: { name: 'asc' } }).then(sortedBy((o) => o.name));
  return rows.map(organizationDto);
}

/**
 * One organization: the console's administrators, its members and its own clients read it (erchef: READ on the
 * organization, which its `users` and `admins` groups have). Anyone else: 403; no such organization: 404.
 */
export async function getOrganization(actor: Actor, name: string): Promise<OrganizationDto> {
  const o = await db().organization.findUnique({ where: { name }, select: ORGANIZATION_SELECT });
  if (!o) throw noSuchOrganization(name);
  const actorInOrg =
    actor.kind === 'user' ? await isOrgMember(o.id, actor.userId) : (await db().chefClient.findUnique({ where: { id: actor.clientId }, select: { orgId: true } }))?.orgId === o.id;
  if (!can(actor, 'org.view', { actorInOrg })) throw chefStringError('forbidden', `missing read permission`);
  return organizationDto(o);
}

/** Chef's organization body (`POST /organizations`): name and full_name, with erchef's rules and messages. */
export function parseOrganizationInput(raw: unknown): { name: string; fullName: string } {
  const b = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : null;
  if (!b) throw badRequest('The organization must be a JSON object with name and full_name.', [{ path: '', message: 'must be an object' }]);
  const field = (key: 'name' | 'full_name', rule: RegExp, message: string): string => {
    const v = b[key];
    if (v === undefined || v === null) throw badRequest(`Field '${key}' missing`, [{ path: `/${key}`, message: 'is required' }]);
    if (typeof v !== 'string' || !rule.test(v)) throw badRequest(message, [{ path: `/${key}`, message: key === 'name' ? 'must be 1 to 255 of a-z, 0-9, _ and -, starting with a letter or digit' : 'must be 1 to 1023 characters, the first not a space' }]);
    return v;
  };
  return { name: field('name', ORG_NAME, ORG_NAME_MESSAGE), fullName: field('full_name', ORG_FULL_NAME, ORG_FULL_NAME_MESSAGE) };
}

/**
 * Chef's `POST /organizations` (the console's administrators): the organization, its five system groups
 * (`public_key_read_access` holding `users` and `clients`, as Chef makes it) and its validator client
 * `<name>-validator` with a generated key pair, whose private key is returned once and never stored. One
 * transaction with its `org.create` event. 409 "Organization already exists" when the name is taken (two
 * instances creating one name: the organization's unique name lets one commit; the other's re-run finds it),
 * 409 when a user or client already has the validator's name.
 */
export async function createOrganization(actor: Actor, raw: unknown, opts: { requestId?: string } = {}): Promise<{ organization: OrganizationDto; validator: { name: string; privateKey: string } }> {
  assertCan(actor, 'org.create');
  const input = parseOrganizationInput(raw);
  const pair = await generateChefKeyPair();
  const validator = validatorName(input.name);
  return transaction(async (tx) => {
    if (await tx.organization.findUnique({ where: { name: input.name }, select: { id: true } })) throw chefStringError('conflict', 'Organization already exists');
    const org = await tx.organization.create({ data: { name: input.name, fullName: input.fullName }, select: { id: true } });
    await tx.chefGroup.createMany({ data: SYSTEM_GROUPS.map((name) => ({ orgId: org.id, name })) });
    const groups = new Map((await tx.chefGroup.findMany({ where: { orgId: org.id }, select: { id: true, name: true } })).map((g) => [g.name, g.id]));
    const keyReaders = groups.get('public_key_read_access')!;
    await tx.chefGroupMember.createMany({ data: KEY_READ_DEFAULTS.map((g) => ({ groupId: keyReaders, member: `group:${groups.get(g)!}`, childGroupId: groups.get(g)! })) });
    await claimChefName(tx, validator, 'client', `The name '${validator}' is taken by a user or client: the organization's validator needs it.`, org.id);
    const client = await tx.chefClient.create({ data: { name: validator, validator: true, orgId: org.id }, select: { id: true } });
    await tx.chefKey.create({ data: { clientId: client.id, name: 'default', publicKey: pair.publicKey } });
    await audit(tx, actor, { action: 'org.create', targetType: 'organization', target: input.name, after: { name: input.name, full_name: input.fullName, validator }, requestId: opts.requestId });
    const created = await tx.organization.findUniqueOrThrow({ where: { id: org.id }, select: ORGANIZATION_SELECT });
    return { organization: organizationDto(created), validator: { name: validator, privateKey: pair.privateKey } };
  });
}

/**
 * Chef's `DELETE /organizations/:org` (the console's administrators): the organization with its clients (their
 * keys and names), memberships and groups, in one transaction with its `org.delete` event. The home
 * organization holds the install's Chef objects and refuses (400); another organization holds none.
 */
export async function deleteOrganization(actor: Actor, name: string, opts: { requestId?: string } = {}): Promise<OrganizationDto> {
  assertCan(actor, 'org.delete');
  return transaction(async (tx) => {
    const o = await tx.organization.findUnique({ where: { name }, select: { ...ORGANIZATION_SELECT, clients: { select: { name: true } } } });
    if (!o) throw noSuchOrganization(name);
    if (o.homeKey === HOME_KEY) {
      throw badRequest(`Organization '${name}' is this server's home organization (CHEF_ORG): it holds the policies, nodes and cookbooks and cannot be deleted.`, [{ path: '/name', message: 'is the home organization' }]);
    }
    const clients = o.clients.map((c) => c.name).sort(compareText);
    // Clients, their keys, the organization's memberships and groups go with the row (cascades); the clients'
    // names are freed here (ChefName has no relation to them).
    await tx.organization.delete({ where: { id: o.id } });
    if (clients.length) await tx.chefName.deleteMany({ where: { name: { in: clients }, kind: 'client', scope: o.id } });
    await audit(tx, actor, { action: 'org.delete', targetType: 'organization', target: name, before: { name, full_name: o.fullName, clients, members: o._count.members }, requestId: opts.requestId });
    return organizationDto(o);
  });
}
