/**
 * Issue 23: Chef Server's association requests (erchef's org_user_invites), the way `knife org user add`
 * associates a user: the organization invites (`POST /organizations/O/association_requests {"user"}`, an org
 * admin or an administrator), then the user (or the superuser, for them) accepts or rejects
 * (`PUT /users/U/association_requests/ID {"response"}`). Accepting is the association itself, through
 * org-members.ts `addMember` (one rule with a direct association). An invitation whose inviter may no longer
 * invite (removed from the organization's `admins`, or deleted) cannot be accepted (erchef's 403 text).
 *
 * Each change is one transaction with its audit event (`org.invite`, `org.invite-accept`, `org.invite-reject`,
 * `org.invite-cancel`). The invitation's 409 comes from AssociationRequest's unique (orgId, userId): two
 * instances inviting one user at once both find no row, one commits, the other's insert fails on the key and its
 * transaction runs again (`transaction()`), finds the row and answers 409 "The invite already exists.".
 */
import { randomBytes } from 'node:crypto';
import { db, type Db, type Tx } from '@/lib/db/client';
import { assertCan, can, type Actor } from '@/lib/auth/permissions';
import { HOME_ORG_ID } from '@/lib/domain/organizations';
import { AppError, chefStringError, forbidden } from '@/lib/errors';
import { compareText } from '@/lib/db/order';
import { accessOf } from '@/lib/db/queries/access';
import { actorGroups, userGroups } from './groups';
import { addMember, findUser, type UserRef } from './members';
import { isOrgMember, organizationName, type OrgOptions } from './organizations';
import { audit, transaction } from '@/lib/services/funnel';

/** An invitation as the organization lists it (erchef: `[{id, username}]`). */
export interface OrgInvitationDto {
  id: string;
  username: string;
  /** The invited user's e-mail (the console shows it for users without a Chef name). */
  email: string;
  createdAt: string;
}

/** An invitation as its user lists it (erchef: `[{id, orgname}]`). */
export interface UserInvitationDto {
  id: string;
  orgname: string;
}

/** What an invitation's creation answers (erchef's invitation_response, less the URI the route builds). */
export interface CreatedInvitationDto {
  id: string;
  /** The inviter's Chef name (or e-mail). */
  inviter: string;
  organization: string;
  user: { email: string; displayName: string };
}

const INVALID_INVITE = 'This invitation is no longer valid. Please notify an administrator and request to be re-invited to the organization.';
const notFoundInvite = (id: string) => chefStringError('not_found', `Cannot find association request: ${id}`);
const userName = (u: { chefName: string | null; email: string }) => u.chefName ?? u.email;

/** `org.invite` reads the actor's groups in the organization (org admins), read in the transaction when the row cannot answer without them. */
async function inviteResource(actor: Actor, orgId: string, tx: Db | Tx) {
  return actor.kind === 'user' && !can(actor, 'org.invite') ? { actorGroups: await actorGroups(actor, orgId, tx) } : {};
}

/** The organization's pending invitations, oldest first (org admins and administrators). */
export async function listOrgInvitations(actor: Actor, opts: OrgOptions = {}): Promise<OrgInvitationDto[]> {
  const orgId = opts.orgId ?? HOME_ORG_ID;
  const tx = db();
  assertCan(actor, 'org.invite', await inviteResource(actor, orgId, tx));
  const rows = await tx.associationRequest.findMany({ where: { orgId }, select: { id: true, createdAt: true, user: { select: { chefName: true, email: true } } } });
  return rows
    .map((r) => ({ id: r.id, username: userName(r.user), email: r.user.email, createdAt: r.createdAt.toISOString() }))
    .sort((a, b) => compareText(a.username, b.username));
}

/**
 * Invites a user (by Chef name) into the organization. 404 "Could not find user U"; 409 "The association
 * already exists." for a member, "The invite already exists." for a user already invited (erchef's texts).
 */
export async function createInvitation(actor: Actor, user: string | UserRef, opts: OrgOptions = {}): Promise<CreatedInvitationDto> {
  const orgId = opts.orgId ?? HOME_ORG_ID;
  return transaction(async (tx) => {
    // erchef looks the user up before the authorization (404 first), then requires update on the organization.
    const u = await findUser(tx, typeof user === 'string' ? { username: user } : user);
    assertCan(actor, 'org.invite', await inviteResource(actor, orgId, tx));
    const org = await organizationName(tx, opts);
    if (await isOrgMember(orgId, u.id, tx)) throw chefStringError('conflict', 'The association already exists.');
    const invited = await tx.associationRequest.findUnique({ where: { orgId_userId: { orgId, userId: u.id } }, select: { id: true } });
    if (invited) throw chefStringError('conflict', 'The invite already exists.');
    const id = randomBytes(16).toString('hex');
    await tx.associationRequest.create({ data: { id, orgId, userId: u.id, inviterId: actor.kind === 'user' ? actor.userId : null } });
    await audit(tx, actor, { action: 'org.invite', targetType: 'organization', target: `${org}/association_requests/${id}`, after: { organization: org, user: u.email, username: u.chefName }, requestId: opts.requestId });
    const inviter = actor.kind === 'user' ? (actor.chefName ?? actor.email) : actor.name;
    return { id, inviter, organization: org, user: { email: u.email, displayName: u.name } };
  });
}

/** Cancels (rescinds) a pending invitation. 404 "Cannot find association request: ID"; another organization's: 400. */
export async function cancelInvitation(actor: Actor, id: string, opts: OrgOptions = {}): Promise<{ id: string; username: string; orgname: string }> {
  const orgId = opts.orgId ?? HOME_ORG_ID;
  return transaction(async (tx) => {
    const inv = await tx.associationRequest.findUnique({ where: { id }, select: { id: true, orgId: true, user: { select: { chefName: true, email: true } }, org: { select: { name: true } } } });
    if (!inv) throw notFoundInvite(id);
    const org = await organizationName(tx, opts);
    if (inv.orgId !== orgId) throw chefStringError('bad_request', `Organization ${org} does not match ${inv.org.name} in association request`);
    assertCan(actor, 'org.invite', await inviteResource(actor, orgId, tx));
    const removed = await tx.associationRequest.deleteMany({ where: { id, orgId } });
    if (removed.count === 0) throw notFoundInvite(id); // deleted meanwhile (another instance)
    await audit(tx, actor, { action: 'org.invite-cancel', targetType: 'organization', target: `${org}/association_requests/${id}`, before: { organization: org, user: inv.user.email, username: inv.user.chefName }, requestId: opts.requestId });
    return { id, username: userName(inv.user), orgname: org };
  });
}

/** The user (or an administrator) may read and answer the user's invitations; org admins may not (erchef). */
function assertOwnInvitations(actor: Actor, userId: string, write: boolean): void {
  if (!can(actor, 'user.invitations', { userId })) throw forbidden(write ? 'missing update permission' : 'missing read permission');
}

/** A user's pending invitations, by organization name (`GET /users/U/association_requests`). */
export async function listUserInvitations(actor: Actor, username: string): Promise<UserInvitationDto[]> {
  const tx = db();
  const u = await findUser(tx, { username });
  assertOwnInvitations(actor, u.id, false);
  const rows = await tx.associationRequest.findMany({ where: { userId: u.id }, select: { id: true, org: { select: { name: true } } } });
  return rows.map((r) => ({ id: r.id, orgname: r.org.name })).sort((a, b) => compareText(a.orgname, b.orgname));
}

/** How many invitations the user has pending (`GET /users/U/association_requests/count`). */
export async function countUserInvitations(actor: Actor, username: string): Promise<number> {
  const tx = db();
  const u = await findUser(tx, { username });
  assertOwnInvitations(actor, u.id, false);
  return tx.associationRequest.count({ where: { userId: u.id } });
}

/** An invitation as the console shows it to the invited user (issue 43): to which organization, from whom, since when. */
export interface MyInvitationDto {
  id: string;
  organization: string;
  fullName: string;
  /** The inviter's Chef name or e-mail (null: that user was deleted). */
  inviter: string | null;
  createdAt: string;
  /** False when the inviter may no longer invite into the organization: accepting is refused (erchef's 403), declining is not. */
  valid: boolean;
}

/**
 * The signed-in user's own pending invitations (Chef's association requests naming them), oldest first, for the
 * console: the same right as `GET /users/U/association_requests` (the user), so a user outside every
 * organization sees theirs too (the right is the server's, not an organization's).
 */
export async function listMyInvitations(actor: Actor): Promise<MyInvitationDto[]> {
  if (actor.kind !== 'user') return [];
  assertOwnInvitations(actor, actor.userId, false);
  const rows = await db().associationRequest.findMany({
    where: { userId: actor.userId },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: { id: true, orgId: true, inviterId: true, createdAt: true, org: { select: { name: true, fullName: true } }, inviter: { select: { chefName: true, email: true } } },
  });
  if (!rows.length) return [];
  const client = db();
  const out: MyInvitationDto[] = [];
  for (const r of rows) {
    out.push({
      id: r.id,
      organization: r.org.name,
      fullName: r.org.fullName,
      inviter: r.inviter ? userName(r.inviter) : null,
      createdAt: r.createdAt.toISOString(),
      valid: await inviterStillAllowed(client, r.inviterId, r.orgId),
    });
  }
  return out;
}

/**
 * True when the inviter may still invite into the organization: the inviter, loaded as an actor of it (`accessOf`:
 * none when deleted or deactivated), is asked `org.invite` (administrators; members in `admins`). Their groups are
 * read only when the row cannot answer without them. `org.invite` reads no team or stage grant, so none is loaded.
 */
async function inviterStillAllowed(tx: Db | Tx, inviterId: string | null, orgId: string): Promise<boolean> {
  if (!inviterId) return false;
  const row = await tx.user.findUnique({ where: { id: inviterId }, select: { id: true, email: true, name: true, chefName: true, isAdmin: true, active: true, sessionVersion: true, orgMemberships: { where: { orgId }, select: { userId: true } } } });
  const inviter = row && accessOf({ ...row, member: row.orgMemberships.length > 0, teamIds: [], grants: [] });
  if (!inviter) return false;
  return can(inviter, 'org.invite') || can(inviter, 'org.invite', { actorGroups: await userGroups(inviter.userId, inviter.member, orgId, tx) });
}

/**
 * Answers an invitation (`PUT /users/U/association_requests/ID {"response": "accept"|"reject"}`): the user, or an
 * administrator for them. Accept makes the user a member (409 "The association already exists." for one); both
 * remove the invitation. 400 for another response (erchef's text), 404 "Cannot find association request: ID" for
 * no such invitation of this user, 403 for an invitation whose inviter may no longer invite.
 */
export async function respondToInvitation(actor: Actor, user: string | UserRef, id: string, body: unknown, opts: { requestId?: string } = {}): Promise<{ organization: string }> {
  return transaction(async (tx) => {
    const u = await findUser(tx, typeof user === 'string' ? { username: user } : user);
    assertOwnInvitations(actor, u.id, true);
    const response = body && typeof body === 'object' && !Array.isArray(body) ? (body as { response?: unknown }).response : undefined;
    if (response !== 'accept' && response !== 'reject') {
      throw new AppError('bad_request', "Param response must be either 'accept' or 'reject'", [{ path: '/response', message: "must be 'accept' or 'reject'" }]);
    }
    const inv = await tx.associationRequest.findUnique({ where: { id }, select: { id: true, orgId: true, userId: true, inviterId: true, org: { select: { name: true } } } });
    if (!inv || inv.userId !== u.id) throw notFoundInvite(id);
    const org = inv.org.name;
    const target = `${org}/users/${userName(u)}`;
    const details = { organization: org, user: u.email, username: u.chefName, invitation: id };
    if (response === 'reject') {
      const removed = await tx.associationRequest.deleteMany({ where: { id } });
      if (removed.count === 0) throw notFoundInvite(id);
      await audit(tx, actor, { action: 'org.invite-reject', targetType: 'organization', target, before: details, requestId: opts.requestId });
      return { organization: org };
    }
    if (!(await inviterStillAllowed(tx, inv.inviterId, inv.orgId))) throw chefStringError('forbidden', INVALID_INVITE);
    // The association (deletes this invitation too); 409 for a member, as erchef answers.
    await addMember(tx, inv.orgId, u.id);
    await audit(tx, actor, { action: 'org.invite-accept', targetType: 'organization', target, after: details, requestId: opts.requestId });
    return { organization: org };
  });
}
