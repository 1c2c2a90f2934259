/**
 * Issue 23 (docs/organizations-design.md, step 3): Chef's groups of an organization, on ChefGroup and
 * ChefGroupMember. Served: the five system groups (`admins`, `billing-admins`, `users`, `clients`,
 * `public_key_read_access`); custom groups are not (decision 5). `users` and `clients` are derived — the
 * organization's members, its non-validator clients — and cannot be edited; the others store their members
 * (users, clients, groups) and are replaced whole by `updateGroup` (erchef's PUT), names that resolve to
 * nothing dropped silently as erchef drops them (a client name under `users` included).
 *
 * Membership is transitive through nested groups (`actorGroups`), cycle-safe: a group reached twice is
 * visited once. The rights that read groups (`admins`: org admins; `public_key_read_access`: org-scoped key
 * reads) are rows of lib/auth/permissions.ts; services pass the actor's groups as `Resource.actorGroups`.
 *
 * A change is one transaction with its audit event (`group.update`); two instances replacing one group at
 * once on PostgreSQL: the loser's insert fails on ChefGroupMember's primary key and `transaction()` runs it
 * again, so one replacement wins whole (no mix of both).
 */
import { db, type Db, type Tx } from '@/lib/db/client';
import { assertCan, type Actor, type Resource } from '@/lib/auth/permissions';
import { HOME_ORG_ID } from '@/lib/domain/organizations';
import { AppError, chefStringError, forbidden } from '@/lib/errors';
import { audit, transaction } from '@/lib/services/funnel';
import { compareText } from '@/lib/db/order';
import { isOrgMember, organizationName, SYSTEM_GROUPS, type OrgOptions } from './organizations';

export { SYSTEM_GROUPS, type SystemGroup } from './organizations';

/** The groups whose members are derived, never stored (decision 5). */
export const DERIVED_GROUPS: readonly string[] = ['users', 'clients'];

/** A group as erchef answers it (oc_chef_group:assemble_group_ejson): `actors` is clients then users. */
export interface GroupDto {
  actors: string[];
  users: string[];
  clients: string[];
  groups: string[];
  orgname: string;
  groupname: string;
  name: string;
}

export type GroupOptions = OrgOptions;

type GroupRow = { id: string; name: string; members: { userId: string | null; clientId: string | null; childGroupId: string | null }[] };

const served = (name: string) => (SYSTEM_GROUPS as readonly string[]).includes(name);

function noSuchGroup(name: string) {
  return chefStringError('not_found', `Cannot find group ${name}`);
}

async function loadGroups(tx: Db | Tx, orgId: string): Promise<GroupRow[]> {
  const rows = await tx.chefGroup.findMany({
    where: { orgId },
    select: { id: true, name: true, members: { select: { userId: true, clientId: true, childGroupId: true } } },
    orderBy: { name: 'asc' },
  });
  return rows.filter((g) => served(g.name));
}

/** The organization's groups (names, sorted). Members of the organization read them. */
export async function listGroups(actor: Actor, opts: GroupOptions = {}): Promise<string[]> {
  assertCan(actor, 'group.read');
  return (await loadGroups(db(), opts.orgId ?? HOME_ORG_ID)).map((g) => g.name);
}

/** `loaded`: the organization's groups when the caller has just read them (loadGroups). */
async function groupBody(tx: Db | Tx, orgId: string, org: string, name: string, loaded?: GroupRow[]): Promise<GroupDto> {
  const groups = loaded ?? (await loadGroups(tx, orgId));
  const g = groups.find((x) => x.name === name);
  if (!g) throw noSuchGroup(name);
  let users: string[];
  let clients: string[];
  let children: string[] = [];
  if (name === 'users') {
    const members = await tx.orgMember.findMany({ where: { orgId, user: { chefName: { not: null } } }, select: { user: { select: { chefName: true } } } });
    users = members.map((m) => m.user.chefName!);
    clients = [];
  } else if (name === 'clients') {
    users = [];
    clients = (await tx.chefClient.findMany({ where: { orgId, validator: false }, select: { name: true } })).map((c) => c.name);
  } else {
    const userIds = g.members.flatMap((m) => (m.userId ? [m.userId] : []));
    const clientIds = g.members.flatMap((m) => (m.clientId ? [m.clientId] : []));
    users = userIds.length ? (await tx.user.findMany({ where: { id: { in: userIds }, chefName: { not: null } }, select: { chefName: true } })).map((u) => u.chefName!) : [];
    clients = clientIds.length ? (await tx.chefClient.findMany({ where: { id: { in: clientIds } }, select: { name: true } })).map((c) => c.name) : [];
    const byId = new Map(groups.map((x) => [x.id, x.name]));
    children = g.members.flatMap((m) => (m.childGroupId && byId.has(m.childGroupId) ? [byId.get(m.childGroupId)!] : []));
  }
  const sort = (a: string[]) => [...a].sort(compareText);
  users = sort(users);
  clients = sort(clients);
  children = sort(children);
  return { actors: [...clients, ...users], users, clients, groups: children, orgname: org, groupname: name, name };
}

/** One group, as erchef answers GET /groups/:group. 404 for a group that is not served. */
export async function getGroup(actor: Actor, name: string, opts: GroupOptions = {}): Promise<GroupDto> {
  assertCan(actor, 'group.read');
  const client = db();
  return groupBody(client, opts.orgId ?? HOME_ORG_ID, await organizationName(client, opts), name);
}

function names(v: unknown, field: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
    throw new AppError('bad_request', `Field '${field}' must be an array of names`, [{ path: '/' + field.replace(/\./g, '/'), message: 'must be an array of strings' }]);
  }
  return [...new Set(v as string[])];
}

/**
 * The members a PUT body names: erchef's `{"actors": {"users", "clients", "groups"}}` (pedant, knife), or the
 * flat `users`/`clients`/`groups` fields of a GET body sent back.
 */
export function parseGroupMembers(raw: unknown): { users: string[]; clients: string[]; groups: string[] } {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new AppError('bad_request', 'invalid JSON', [{ path: '', message: 'Body must be a JSON object' }]);
  const body = raw as Record<string, unknown>;
  const actors = body.actors;
  if (actors && typeof actors === 'object' && !Array.isArray(actors)) {
    const a = actors as Record<string, unknown>;
    return { users: names(a.users, 'actors.users'), clients: names(a.clients, 'actors.clients'), groups: names(a.groups, 'actors.groups') };
  }
  return { users: names(body.users, 'users'), clients: names(body.clients, 'clients'), groups: names(body.groups, 'groups') };
}

/**
 * Replaces a group's members (erchef's PUT /groups/:group). Names that resolve to nothing are dropped
 * silently (a client name under `users` too); `users` and `clients` refuse (derived). Answers the group.
 */
export async function updateGroup(actor: Actor, name: string, raw: unknown, opts: GroupOptions = {}): Promise<GroupDto> {
  const orgId = opts.orgId ?? HOME_ORG_ID;
  assertCan(actor, 'group.update', await withActorGroups(actor, {}, { orgId }));
  if (typeof (raw as { groupname?: unknown } | null)?.groupname === 'string' && (raw as { groupname: string }).groupname !== name) {
    throw new AppError('bad_request', "Field 'groupname' must match the group in the URL", [{ path: '/groupname', message: `must be '${name}'` }]);
  }
  const wanted = parseGroupMembers(raw);
  if (!served(name)) throw noSuchGroup(name);
  if (DERIVED_GROUPS.includes(name)) throw forbidden(`The group '${name}' is derived (${name === 'users' ? "the organization's members" : "the organization's clients"}) and cannot be edited.`);
  return transaction(async (tx) => {
    const org = await organizationName(tx, opts);
    const groups = await loadGroups(tx, orgId);
    const g = groups.find((x) => x.name === name);
    if (!g) throw noSuchGroup(name);
    const before = await groupBody(tx, orgId, org, name, groups);
    const users = wanted.users.length ? await tx.user.findMany({ where: { chefName: { in: wanted.users }, active: true }, select: { id: true } }) : [];
    const clients = wanted.clients.length ? await tx.chefClient.findMany({ where: { orgId, name: { in: wanted.clients } }, select: { id: true } }) : [];
    const children = groups.filter((x) => wanted.groups.includes(x.name) && x.id !== g.id);
    await tx.chefGroupMember.deleteMany({ where: { groupId: g.id } });
    const rows = [
      ...users.map((u) => ({ groupId: g.id, member: `user:${u.id}`, userId: u.id })),
      ...clients.map((c) => ({ groupId: g.id, member: `client:${c.id}`, clientId: c.id })),
      ...children.map((c) => ({ groupId: g.id, member: `group:${c.id}`, childGroupId: c.id })),
    ];
    for (const data of rows) await tx.chefGroupMember.create({ data });
    await tx.chefGroup.update({ where: { id: g.id }, data: { updatedAt: new Date() } });
    const after = await groupBody(tx, orgId, org, name);
    await audit(tx, actor, {
      action: 'group.update',
      targetType: 'organization',
      target: `${org}/groups/${name}`,
      before: { users: before.users, clients: before.clients, groups: before.groups },
      after: { users: after.users, clients: after.clients, groups: after.groups },
      requestId: opts.requestId,
    });
    return after;
  });
}

/**
 * The groups of the organization the actor belongs to, transitively through nested groups (cycle-safe):
 * `users` for a member, `clients` for a non-validator client of the organization, the stored groups naming
 * the actor, then every group holding one of those. The validator is in none (R7).
 */
export async function actorGroups(actor: Actor, orgId: string = HOME_ORG_ID, client: Db | Tx = db()): Promise<ReadonlySet<string>> {
  if (actor.kind === 'user') return userGroups(actor.userId, actor.member, orgId, client);
  const groups = await loadGroups(client, orgId);
  const direct = new Set<string>();
  if (!actor.validator) {
    const c = await client.chefClient.findUnique({ where: { id: actor.clientId }, select: { orgId: true } });
    if (c?.orgId === orgId) direct.add('clients');
  }
  for (const g of groups) if (g.members.some((m) => m.clientId === actor.clientId)) direct.add(g.name);
  return closure(groups, direct);
}

/** A user's groups in an organization (`member`: whether they are its member, so in `users`), transitively. */
export async function userGroups(userId: string, member: boolean, orgId: string, client: Db | Tx = db()): Promise<ReadonlySet<string>> {
  const groups = await loadGroups(client, orgId);
  const direct = new Set<string>(member ? ['users'] : []);
  for (const g of groups) if (g.members.some((m) => m.userId === userId)) direct.add(g.name);
  return closure(groups, direct);
}

/** The groups holding any of `start`, transitively (each group visited once: cycles end). */
function closure(groups: GroupRow[], start: Set<string>): ReadonlySet<string> {
  const nameOf = new Map(groups.map((g) => [g.id, g.name]));
  const result = new Set(start);
  const queue = [...start];
  while (queue.length) {
    const current = queue.shift()!;
    for (const g of groups) {
      if (result.has(g.name)) continue;
      if (g.members.some((m) => m.childGroupId && nameOf.get(m.childGroupId) === current)) {
        result.add(g.name);
        queue.push(g.name);
      }
    }
  }
  return result;
}

/**
 * The ids of the organizations whose `admins` group holds the user (transitively). Only an organization the user
 * is a member of (its `users`) or whose groups name the user can: the others are not read (the console asks this
 * on every page, issue 43, whatever the number of organizations).
 */
export async function adminOrganizations(userId: string, client: Db | Tx = db()): Promise<string[]> {
  const [memberships, named] = await Promise.all([
    client.orgMember.findMany({ where: { userId }, select: { orgId: true } }),
    client.chefGroupMember.findMany({ where: { userId }, select: { group: { select: { orgId: true } } } }),
  ]);
  const member = new Set(memberships.map((m) => m.orgId));
  const candidates = [...new Set([...member, ...named.map((n) => n.group.orgId)])].sort();
  const out: string[] = [];
  for (const orgId of candidates) {
    if ((await userGroups(userId, member.has(orgId), orgId, client)).has('admins')) out.push(orgId);
  }
  return out;
}

/**
 * `resource` with what the group rows of the permission table read (`actorGroups`), loaded only for the
 * actors a group can decide for: users who are not console administrators (they bypass), and clients
 * other than the validator when `clients` is true.
 */
export async function withActorGroups(actor: Actor, resource: Resource = {}, opts: { orgId?: string; clients?: boolean } = {}): Promise<Resource> {
  const needed = actor.kind === 'user' ? !actor.isAdmin : !!opts.clients && !actor.validator;
  return needed ? { ...resource, actorGroups: await actorGroups(actor, opts.orgId ?? HOME_ORG_ID) } : resource;
}

/** `resource` with the org admins' facts `user.read` reads (the actor's admin organizations, the user's organizations). */
export async function withOrgAdminFacts(actor: Actor, userId: string, resource: Resource = {}): Promise<Resource> {
  if (actor.kind !== 'user' || actor.isAdmin || actor.userId === userId) return resource;
  const actorAdminOrgs = await adminOrganizations(actor.userId);
  if (!actorAdminOrgs.length) return resource;
  const userOrgIds = (await db().orgMember.findMany({ where: { userId }, select: { orgId: true } })).map((m) => m.orgId);
  return { ...resource, actorAdminOrgs, userOrgIds };
}

/**
 * Admin → Users "Chef organization admin": adds the user to, or removes them from, the organization's `admins`
 * group (administrators and org admins, as `group.update`; one transaction with its `group.update` event). Only
 * a member may be made an org admin (400 otherwise). Nothing to change: no write, no event. Two instances adding
 * one user at once: the loser's insert fails on the primary key and `transaction()` re-runs it, finding the row.
 */
export async function setOrgAdmin(actor: Actor, userId: string, on: boolean, opts: GroupOptions = {}): Promise<{ email: string; orgAdmin: boolean }> {
  const orgId = opts.orgId ?? HOME_ORG_ID;
  assertCan(actor, 'group.update', await withActorGroups(actor, {}, { orgId }));
  return transaction(async (tx) => {
    const u = await tx.user.findUnique({ where: { id: userId }, select: { id: true, email: true, chefName: true } });
    if (!u) throw chefStringError('not_found', `Could not find user ${userId}`);
    const g = await tx.chefGroup.findUnique({ where: { orgId_name: { orgId, name: 'admins' } }, select: { id: true } });
    if (!g) throw noSuchGroup('admins');
    const member = `user:${u.id}`;
    const existing = await tx.chefGroupMember.findUnique({ where: { groupId_member: { groupId: g.id, member } }, select: { member: true } });
    if (!!existing === on) return { email: u.email, orgAdmin: on };
    const org = await organizationName(tx, opts);
    if (on) {
      if (!(await isOrgMember(orgId, u.id, tx))) throw new AppError('bad_request', `${u.email} is not a member of organization ${org}: add them to it first`, [{ path: '/userId', message: 'must be a member of the organization' }]);
      await tx.chefGroupMember.create({ data: { groupId: g.id, member, userId: u.id } });
    } else {
      await tx.chefGroupMember.delete({ where: { groupId_member: { groupId: g.id, member } } });
    }
    await tx.chefGroup.update({ where: { id: g.id }, data: { updatedAt: new Date() } });
    await audit(tx, actor, { action: 'group.update', targetType: 'organization', target: `${org}/groups/admins`, ...(on ? { after: { added: u.chefName ?? u.email } } : { before: { removed: u.chefName ?? u.email } }), requestId: opts.requestId });
    return { email: u.email, orgAdmin: on };
  });
}
