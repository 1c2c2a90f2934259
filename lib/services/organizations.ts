/**
 * Issue 23 (docs/organizations-design.md, option B, step 1): Chef organizations scope Chef identities only
 * (clients, memberships, groups); every Chef object stays in the install's home organization, the one
 * CHEF_ORG names. The migration `organizations` created the home row (id HOME_ORG_ID, named after CHEF_ORG's
 * default `console`) with its five system groups, made every existing user a member and put every client in
 * it. At start-up `ensureHomeOrganization(chefOrg())` keeps that row named after CHEF_ORG.
 *
 * Step 2: membership of the home organization gates every organization route, the console and /api/v1 (the
 * actor's `member`, read by the read path; lib/services/org-members.ts associates and dissociates).
 */
import { db, TRANSACTION_OPTIONS, type Db, type Tx } from '@/lib/db/client';
import { chefStringError } from '@/lib/errors';
import { audit } from './internal/audit';
import { retryUniqueConflicts } from './internal/retry';
import { HOME_ORG_ID } from '@/lib/domain/organizations';

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
