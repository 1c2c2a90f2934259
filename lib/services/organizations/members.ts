/**
 * Issue 23 (docs/organizations-design.md, step 2): Chef's organization-user associations, on the
 * OrgMember table. Associating (Chef's superuser: the console's administrators) makes a user a member of
 * the organization; dissociating (an administrator, or the user themselves) ends it. A member reads the
 * organization's objects through every entry point (the Chef routes, the console, /api/v1: the actor's
 * `member`, read by lib/db/queries/chef-read-path.ts); a non-member keeps their own account and keys.
 *
 * Each change is one transaction with its audit event (`org.associate`, `org.dissociate`). The association's
 * 409 comes from OrgMember's primary key: two instances associating one user at once on PostgreSQL both find
 * no row, one commits, the other's insert fails on the key and its transaction runs again (`transaction()`),
 * finds the row and answers 409 — one 201, one 409, as Chef answers one after the other.
 */
import { db, type Db, type Tx } from '@/lib/db/client';
import { assertCan, can, type Actor } from '@/lib/auth/permissions';
import { HOME_ORG_ID } from '@/lib/domain/organizations';
import { chefStringError } from '@/lib/errors';
import { compareText } from '@/lib/db/order';
import { actorGroups, userGroups } from './groups';
import { isOrgMember, organizationName, type OrgOptions } from './organizations';
import { audit, transaction } from '@/lib/services/funnel';

/** A member as Chef and the console show one. */
export interface OrgMemberDto {
  userId: string;
  /** The Chef user name (null: a console user without one). */
  username: string | null;
  email: string;
  displayName: string;
  isAdmin: boolean;
}

/** Which user: by Chef user name (the Chef routes), by id (the console) or by e-mail (/api/v1, for users without a Chef name). */
export type UserRef = { username: string } | { userId: string } | { email: string };

export type { OrgOptions } from './organizations';

const USER_SELECT = { id: true, chefName: true, email: true, name: true, isAdmin: true } as const;
type UserRow = { id: string; chefName: string | null; email: string; name: string; isAdmin: boolean };
const dto = (u: UserRow): OrgMemberDto => ({ userId: u.id, username: u.chefName, email: u.email, displayName: u.name, isAdmin: u.isAdmin });

const refName = (ref: UserRef) => ('username' in ref ? ref.username : 'email' in ref ? ref.email : ref.userId);

/** A user by reference (active users by name or e-mail), or erchef's 404 "Could not find user U". */
export async function findUser(tx: Db | Tx, ref: UserRef): Promise<UserRow> {
  const where = 'username' in ref ? { chefName: ref.username, active: true } : 'email' in ref ? { email: ref.email.toLowerCase(), active: true } : { id: ref.userId };
  // Never a query without its key (Prisma drops an undefined condition, which would match any user).
  if (Object.values(where).some((v) => v === undefined || v === '')) throw chefStringError('not_found', `Could not find user ${refName(ref)}`);
  const u = await tx.user.findFirst({ where, select: USER_SELECT });
  // erchef's text (chef_wm_util:not_found_message(user, Name)), a string as erchef answers it.
  if (!u) throw chefStringError('not_found', `Could not find user ${refName(ref)}`);
  return u;
}

const target = (org: string, u: UserRow) => `${org}/users/${u.chefName ?? u.email}`;

/** The organization's members, by Chef user name then e-mail (members of the organization, and administrators). */
export async function listOrgMembers(actor: Actor, opts: OrgOptions = {}): Promise<OrgMemberDto[]> {
  assertCan(actor, 'org.read');
  const rows = await db().orgMember.findMany({ where: { orgId: opts.orgId ?? HOME_ORG_ID, user: { active: true } }, select: { user: { select: USER_SELECT } } });
  return rows.map((r) => dto(r.user)).sort((a, b) => compareText(a.username ?? a.email, b.username ?? b.email));
}

/**
 * A member's profile (GET /organizations/O/users/U): 404 "Could not find user U" for no such user, and
 * "Cannot find a user U in organization O" for a user who is not a member (erchef's texts).
 */
export async function getOrgMember(actor: Actor, ref: UserRef, opts: OrgOptions = {}): Promise<OrgMemberDto> {
  assertCan(actor, 'org.read');
  const tx = db();
  const u = await findUser(tx, ref);
  if (!(await isOrgMember(opts.orgId ?? HOME_ORG_ID, u.id, tx))) throw chefStringError('not_found', `Cannot find a user ${refName(ref)} in organization ${await organizationName(tx, opts)}`);
  return dto(u);
}

/**
 * The association itself, inside the caller's transaction: one rule for a direct association (`associateUser`)
 * and an accepted invitation (association-requests.ts). 409 "The association already exists." for a member; a
 * pending invitation of the user to the organization is fulfilled by it (deleted).
 */
export async function addMember(tx: Tx, orgId: string, userId: string): Promise<void> {
  if (await isOrgMember(orgId, userId, tx)) throw chefStringError('conflict', 'The association already exists.');
  await tx.orgMember.create({ data: { orgId, userId } });
  await tx.associationRequest.deleteMany({ where: { orgId, userId } });
}

/**
 * Associates a user with the organization (Chef's superuser only: the console's administrators). 404 "Could
 * not find user U"; 409 "The association already exists." for a member (erchef's texts, strings).
 */
export async function associateUser(actor: Actor, ref: UserRef, opts: OrgOptions = {}): Promise<OrgMemberDto> {
  assertCan(actor, 'org.associate');
  const orgId = opts.orgId ?? HOME_ORG_ID;
  return transaction(async (tx) => {
    const u = await findUser(tx, ref);
    const org = await organizationName(tx, opts);
    await addMember(tx, orgId, u.id);
    await audit(tx, actor, { action: 'org.associate', targetType: 'organization', target: target(org, u), after: { organization: org, user: u.email, username: u.chefName }, requestId: opts.requestId });
    return dto(u);
  });
}

/**
 * Ends a user's membership (an administrator, or the user themselves). 404 "Could not find user U" for no
 * such user, "Cannot find a user U in organization O" for a non-member. Answers the user as it was.
 */
export async function dissociateUser(actor: Actor, ref: UserRef, opts: OrgOptions = {}): Promise<OrgMemberDto> {
  const orgId = opts.orgId ?? HOME_ORG_ID;
  return transaction(async (tx) => {
    const u = await findUser(tx, ref);
    // Issue 23 (step 3): org admins of the organization dissociate too (their groups read in this transaction).
    // Read only when the row cannot answer without them (administrators and the user themselves it can).
    const groups = actor.kind === 'user' && !can(actor, 'org.dissociate', { userId: u.id }) ? { actorGroups: await actorGroups(actor, orgId, tx) } : {};
    assertCan(actor, 'org.dissociate', { userId: u.id, ...groups });
    const org = await organizationName(tx, opts);
    // Issue 23 (step 3): an org admin is first removed from `admins` (erchef's 403 text, knife's check).
    if ((await isOrgMember(orgId, u.id, tx)) && (await userGroups(u.id, true, orgId, tx)).has('admins')) {
      throw chefStringError('forbidden', `Please remove ${refName(ref)} from this organization's admins group before removing him or her from the organization.`);
    }
    const removed = await tx.orgMember.deleteMany({ where: { orgId, userId: u.id } });
    if (removed.count === 0) throw chefStringError('not_found', `Cannot find a user ${refName(ref)} in organization ${org}`);
    // Console rule: the user's stored group memberships go with the membership (re-association brings no old rights).
    await tx.chefGroupMember.deleteMany({ where: { userId: u.id, group: { orgId } } });
    await audit(tx, actor, { action: 'org.dissociate', targetType: 'organization', target: target(org, u), before: { organization: org, user: u.email, username: u.chefName }, requestId: opts.requestId });
    return dto(u);
  });
}
