/**
 * Issue 45, single sign-on: the writes. A sign-in through the provider (find the linked account, link by verified
 * e-mail, or create one just in time), the group sync that follows every sign-in and session refresh (memberships of
 * teams with groups, and the administrator flag of OIDC_ADMIN_GROUPS), a person gone at the provider, and the
 * administrators' own edits (a team's groups, linking and unlinking an identity). Each is one transaction with its
 * audit events; two instances on one PostgreSQL take turns on the identity row (the first statement of every sync
 * writes it) and the unique keys of User.email and OidcIdentity(issuer, subject) make concurrent first sign-ins of one
 * person one account (the loser's transaction runs again and finds the winner's).
 *
 * The provider's answer is verified before anything here runs (next-auth and openid-client: signature, issuer,
 * audience, expiry, state, nonce, PKCE); what arrives is the claims it vouched for.
 */
import type { z } from 'zod';
import { ZLinkIdentityInput, ZTeamGroupsInput, ZUnlinkIdentityInput } from '@/lib/validation/sso';
import type { Tx } from '@/lib/db/client';
import { db } from '@/lib/db/client';
import { assertCan, type Access } from '@/lib/auth/permissions';
import { badRequest, conflict, notFound } from '@/lib/errors';
import { adminChange, decideGroups, isBreakGlass, membershipChanges, type GroupsClaim, type TeamGroups } from '@/lib/domain/sso';
import { audit, type SystemActor, transaction } from '@/lib/services/funnel';
import { decryptSecret, encryptSecret } from '@/lib/auth/secret-box';
import { HOME_MEMBERSHIP } from '@/lib/services/organizations';

export { ZLinkIdentityInput, ZTeamGroupsInput, ZUnlinkIdentityInput };

/** User.origin of an account made by its first sign-in through the provider. */
export const JIT_ORIGIN = 'oidc';

export interface SsoSettings {
  issuer: string;
  adminGroups: readonly string[];
  linkVerifiedEmail: boolean;
}

export interface OidcSignInInput {
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  groups: GroupsClaim;
  refreshToken: string | null;
  requestId?: string | null;
}

/** Why a sign-in through the provider was refused (the error page says each in words: app/login/error). */
export type SsoRefusal = 'no-email' | 'email-taken' | 'no-groups' | 'missing-groups' | 'deactivated';

export type OidcSignInOutcome =
  | { ok: true; userId: string; email: string; name: string; sessionVersion: number; created: boolean; linked: boolean }
  | { ok: false; code: SsoRefusal; subject: string; email: string | null };

const IDENTITY_USER = { id: true, email: true, name: true, isAdmin: true, active: true, origin: true, sessionVersion: true } as const;

/** The teams that have groups, with their groups (the whole mapping: a few rows per team). */
async function teamGroups(tx: Tx): Promise<TeamGroups[]> {
  const rows = await tx.teamIdpGroup.findMany({ select: { teamId: true, group: true, team: { select: { name: true } } } });
  const byTeam = new Map<string, TeamGroups & { groups: string[] }>();
  for (const r of rows) {
    const t = byTeam.get(r.teamId) ?? { teamId: r.teamId, team: r.team.name, groups: [] };
    t.groups.push(r.group);
    byTeam.set(r.teamId, t);
  }
  return [...byTeam.values()];
}

interface SyncUser {
  id: string;
  email: string;
  isAdmin: boolean;
  origin: string | null;
}

interface SyncResult {
  added: string[];
  removed: string[];
  mappedGroups: string[];
  admin: { before: boolean; after: boolean };
  /** The person has some right from their groups (a team with groups, or an administrator group). */
  anyAccess: boolean;
}

/**
 * Makes the person's memberships of teams with groups, and the administrator flag when OIDC_ADMIN_GROUPS is set,
 * follow `groups`; each change audited (via `oidc:<why>`). Runs inside the caller's transaction, after the caller
 * has written the identity row (the turn-taking between instances).
 */
async function syncGroups(tx: Tx, user: SyncUser, identity: { adminFromGroups: boolean }, groups: ReadonlySet<string>, settings: SsoSettings, actor: SystemActor, requestId?: string | null): Promise<SyncResult> {
  const teams = await teamGroups(tx);
  const decision = decideGroups(groups, teams, settings.adminGroups);
  const current = new Set((await tx.teamMember.findMany({ where: { userId: user.id }, select: { teamId: true } })).map((m) => m.teamId));
  const changes = membershipChanges(current, decision, teams);
  const names = new Map(teams.map((t) => [t.teamId, t.team]));
  if (changes.add.length) await tx.teamMember.createMany({ data: changes.add.map((teamId) => ({ teamId, userId: user.id })) });
  if (changes.remove.length) await tx.teamMember.deleteMany({ where: { userId: user.id, teamId: { in: changes.remove } } });
  for (const teamId of changes.add) {
    await audit(tx, actor, { action: 'team.add-member', targetType: 'team', target: `${names.get(teamId)}/${user.email}`, before: { member: false }, after: { member: true, source: 'identity-provider groups', groups: decision.teams.get(teamId)!.groups }, requestId });
  }
  for (const teamId of changes.remove) {
    await audit(tx, actor, { action: 'team.remove-member', targetType: 'team', target: `${names.get(teamId)}/${user.email}`, before: { member: true }, after: { member: false, source: 'identity-provider groups', reason: 'in none of the team’s groups' }, requestId });
  }
  const admin = adminChange(decision, { isAdmin: user.isAdmin, adminFromGroups: identity.adminFromGroups }, settings.adminGroups.length > 0);
  if (admin.isAdmin !== user.isAdmin || admin.adminFromGroups !== identity.adminFromGroups) {
    await tx.user.update({ where: { id: user.id }, data: { isAdmin: admin.isAdmin } });
    await tx.oidcIdentity.update({ where: { userId: user.id }, data: { adminFromGroups: admin.adminFromGroups } });
    if (admin.isAdmin !== user.isAdmin) {
      await audit(tx, actor, { action: 'user.update', targetType: 'user', target: user.email, before: { isAdmin: user.isAdmin }, after: { isAdmin: admin.isAdmin, source: 'identity-provider groups (OIDC_ADMIN_GROUPS)' }, requestId });
    }
  }
  const names2 = (ids: string[]) => ids.map((id) => names.get(id)!).sort();
  return { added: names2(changes.add), removed: names2(changes.remove), mappedGroups: decision.mappedGroups, admin: { before: user.isAdmin, after: admin.isAdmin }, anyAccess: decision.teams.size > 0 || decision.admin };
}

/** A JIT account lives on its groups: without any it has no access (linked local accounts keep their own rights). */
const livesOnGroups = (u: { origin: string | null }) => u.origin === JIT_ORIGIN;

/**
 * A sign-in through the provider, after next-auth verified its answer: the linked account, else an account linked by
 * the verified-e-mail rule, else a new account (just in time); then the group sync, the identity's bookkeeping and the
 * sign-in's audit event, in one transaction. Refusals change nothing but what the groups took away (an account
 * already linked loses the memberships its groups no longer give, even when the sign-in is refused for it).
 */
export async function oidcSignIn(settings: SsoSettings, input: OidcSignInInput, now = new Date()): Promise<OidcSignInOutcome> {
  const refused = (code: SsoRefusal): OidcSignInOutcome => ({ ok: false, code, subject: input.subject, email: input.email });
  // A missing groups claim is a configuration problem (scope or claim name), not "in no group": nothing is changed.
  if (!input.groups.ok) return refused('missing-groups');
  const groups = input.groups.groups;
  const email = input.email?.trim().toLowerCase() || null;
  const refreshToken = input.refreshToken ? encryptSecret(input.refreshToken) : null;
  return transaction(async (tx) => {
    let identity = await tx.oidcIdentity.findUnique({ where: { issuer_subject: { issuer: settings.issuer, subject: input.subject } }, select: { userId: true, adminFromGroups: true, status: true, user: { select: IDENTITY_USER } } });
    let created = false;
    let linked = false;
    const actorFor = (u: { id: string; email: string }): SystemActor => ({ kind: 'system', userId: u.id, email: u.email, via: 'oidc:sign-in' });
    if (!identity) {
      if (!email) return refused('no-email');
      const existing = await tx.user.findUnique({ where: { email }, select: { ...IDENTITY_USER, oidcIdentity: { select: { id: true } } } });
      if (existing) {
        // Linking an existing account: an administrator's act, or the verified-e-mail rule when it is on. Never a
        // break-glass account, never one linked to another identity already.
        if (!settings.linkVerifiedEmail || !input.emailVerified || existing.oidcIdentity || isBreakGlass(existing)) return refused('email-taken');
        await tx.oidcIdentity.create({ data: { userId: existing.id, issuer: settings.issuer, subject: input.subject, linkedBy: 'verified-email', email, syncedAt: now } });
        await audit(tx, actorFor(existing), { action: 'user.identity-link', targetType: 'user', target: existing.email, after: { issuer: settings.issuer, subject: input.subject, linkedBy: 'verified-email' }, requestId: input.requestId });
        linked = true;
        identity = { userId: existing.id, adminFromGroups: false, status: 'active', user: existing };
      } else {
        // Just in time: an account with no rights but its groups'; none of them mapped, no account.
        const teams = await teamGroups(tx);
        const decision = decideGroups(groups, teams, settings.adminGroups);
        if (decision.teams.size === 0 && !decision.admin) return refused('no-groups');
        const user = await tx.user.create({
          data: { email, name: (input.name?.trim() || email).slice(0, 100), passwordHash: '', origin: JIT_ORIGIN, orgMemberships: HOME_MEMBERSHIP, oidcIdentity: { create: { issuer: settings.issuer, subject: input.subject, linkedBy: 'jit', email, syncedAt: now } } },
          select: IDENTITY_USER,
        });
        await audit(tx, actorFor(user), { action: 'user.create', targetType: 'user', target: user.email, after: { name: user.name, isAdmin: false, origin: 'single sign-on (just in time)', issuer: settings.issuer, subject: input.subject }, requestId: input.requestId });
        created = true;
        identity = { userId: user.id, adminFromGroups: false, status: 'active', user };
      }
    }
    const user = identity.user;
    // The turn-taking row: written first, so two syncs of one person (two instances) run one after the other.
    await tx.oidcIdentity.update({ where: { userId: user.id }, data: { lastSignInAt: now } });
    // Deactivated by an administrator: refused. Deactivated because the provider no longer knew them: back with them.
    const reactivate = !user.active && identity.status === 'removed' && livesOnGroups(user);
    if (!user.active && !reactivate) return refused('deactivated');
    const actor = actorFor(user);
    const sync = await syncGroups(tx, user, identity, groups, settings, actor, input.requestId);
    const noAccess = livesOnGroups(user) && !sync.anyAccess;
    await tx.oidcIdentity.update({
      where: { userId: user.id },
      data: { syncedAt: now, groups: JSON.stringify(sync.mappedGroups), email, status: noAccess ? 'no-groups' : 'active', refreshingUntil: null, ...(noAccess ? { refreshToken: null } : { refreshToken }) },
    });
    if (noAccess) {
      await audit(tx, actor, { action: 'user.sign-in-refused', targetType: 'user', target: user.email, after: { method: 'oidc', issuer: settings.issuer, reason: 'in no mapped group', teams_removed: sync.removed }, requestId: input.requestId });
      return refused('no-groups');
    }
    if (reactivate) {
      await tx.user.update({ where: { id: user.id }, data: { active: true } });
      await audit(tx, actor, { action: 'user.update', targetType: 'user', target: user.email, before: { active: false }, after: { active: true, source: 'signed in through the identity provider again' }, requestId: input.requestId });
    }
    await audit(tx, actor, {
      action: 'user.sign-in',
      targetType: 'user',
      target: user.email,
      after: { method: 'oidc', issuer: settings.issuer, subject: input.subject, ...(created ? { account: 'created' } : linked ? { account: 'linked by verified e-mail' } : {}), groups: sync.mappedGroups, teams_added: sync.added, teams_removed: sync.removed, ...(sync.admin.before !== sync.admin.after ? { admin: sync.admin.after } : {}) },
      requestId: input.requestId,
    });
    return { ok: true, userId: user.id, email: user.email, name: user.name, sessionVersion: user.sessionVersion, created, linked };
  });
}

/** A password sign-in, for the audit log (how each person signed in). */
export async function recordPasswordSignIn(userId: string, requestId?: string | null): Promise<void> {
  await transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { id: userId }, select: { id: true, email: true } });
    if (!user) return;
    await audit(tx, { kind: 'system', userId: user.id, email: user.email, via: 'password' }, { action: 'user.sign-in', targetType: 'user', target: user.email, after: { method: 'password' }, requestId });
  });
}

// ---- session refresh ----

/** How long one instance may take to refresh a person before another may try (the provider answers in well under it). */
export const REFRESH_LEASE_MS = 30_000;

/**
 * Takes the turn to refresh a person's identity (any instance): only while nobody else holds it and only from the
 * sync the caller saw, so one stored refresh token is sent once (providers that rotate them revoke the whole grant
 * when one is used twice). Null: someone else is refreshing, or it was refreshed meanwhile, or there is nothing to
 * refresh with.
 */
export async function claimRefresh(userId: string, seenSyncedAt: Date, now = new Date()): Promise<{ refreshToken: string | null; subject: string } | null> {
  const taken = await db().oidcIdentity.updateMany({
    where: { userId, syncedAt: seenSyncedAt, status: 'active', OR: [{ refreshingUntil: null }, { refreshingUntil: { lt: now } }] },
    data: { refreshingUntil: new Date(now.getTime() + REFRESH_LEASE_MS) },
  });
  if (taken.count !== 1) return null;
  const row = await db().oidcIdentity.findUnique({ where: { userId }, select: { refreshToken: true, subject: true } });
  if (!row) return null;
  let refreshToken: string | null = null;
  try {
    refreshToken = row.refreshToken ? decryptSecret(row.refreshToken) : null;
  } catch {
    refreshToken = null; // encrypted under another secret: as if none
  }
  return { refreshToken, subject: row.subject };
}

/** Gives the turn back without a change (the provider could not be asked): the next request tries again. */
export async function releaseRefresh(userId: string): Promise<void> {
  await db().oidcIdentity.updateMany({ where: { userId }, data: { refreshingUntil: null } });
}

export type RefreshOutcome = { ok: true } | { ok: false; status: 'no-groups' | 'removed' | 'deactivated' };

/** The provider confirmed the person again with these groups: the same sync as at sign-in, without a sign-in event. */
export async function applyRefresh(settings: SsoSettings, userId: string, groups: ReadonlySet<string>, refreshToken: string | null, now = new Date(), requestId?: string | null): Promise<RefreshOutcome> {
  return transaction(async (tx) => {
    const identity = await tx.oidcIdentity.update({ where: { userId }, data: { refreshingUntil: null }, select: { adminFromGroups: true, user: { select: IDENTITY_USER } } });
    const user = identity.user;
    if (!user.active) return { ok: false, status: 'deactivated' };
    const sync = await syncGroups(tx, user, identity, groups, settings, { kind: 'system', userId: user.id, email: user.email, via: 'oidc:refresh' }, requestId);
    const noAccess = livesOnGroups(user) && !sync.anyAccess;
    await tx.oidcIdentity.update({ where: { userId }, data: { syncedAt: now, groups: JSON.stringify(sync.mappedGroups), status: noAccess ? 'no-groups' : 'active', ...(refreshToken ? { refreshToken: encryptSecret(refreshToken) } : {}), ...(noAccess ? { refreshToken: null } : {}) } });
    return noAccess ? { ok: false, status: 'no-groups' } : { ok: true };
  });
}

/**
 * The provider no longer knows the person (it refused their refresh token, or gave none to refresh with): their
 * memberships from groups and their administrator flag from groups end, the identity is marked removed and, for an
 * account made just in time, the account is deactivated (its API tokens and Chef keys stop with it). One
 * transaction, audited. A linked local account keeps its own rights and its password.
 */
export async function markIdentityRemoved(settings: SsoSettings, userId: string, why: string, now = new Date(), requestId?: string | null): Promise<void> {
  await transaction(async (tx) => {
    const identity = await tx.oidcIdentity.update({ where: { userId }, data: { refreshingUntil: null, status: 'removed', refreshToken: null, syncedAt: now, groups: '[]' }, select: { adminFromGroups: true, user: { select: IDENTITY_USER } } });
    const user = identity.user;
    const actor: SystemActor = { kind: 'system', userId: user.id, email: user.email, via: 'oidc:refresh' };
    const sync = await syncGroups(tx, user, identity, new Set(), { ...settings, adminGroups: settings.adminGroups.length ? settings.adminGroups : ['\0'] }, actor, requestId);
    const deactivate = user.active && livesOnGroups(user);
    if (deactivate) await tx.user.update({ where: { id: user.id }, data: { active: false, sessionVersion: { increment: 1 } } });
    await audit(tx, actor, { action: 'user.identity-removed', targetType: 'user', target: user.email, after: { issuer: settings.issuer, reason: why, teams_removed: sync.removed, ...(deactivate ? { active: false } : {}) }, requestId });
  });
}

// ---- administrators ----

/** Admin: replaces a team's identity-provider groups (memberships follow at each member's next sign-in or refresh). */
export async function setTeamIdpGroups(access: Access, input: z.output<typeof ZTeamGroupsInput>, requestId?: string | null) {
  assertCan(access, 'admin.users');
  const groups = [...new Set(input.groups)].sort();
  return transaction(async (tx) => {
    const team = await tx.team.findUnique({ where: { name: input.team }, select: { id: true, name: true, idpGroups: { select: { group: true } } } });
    if (!team) throw notFound(`No team '${input.team}'`);
    const before = team.idpGroups.map((g) => g.group).sort();
    if (before.join('\0') === groups.join('\0')) return { team: team.name, groups };
    await tx.teamIdpGroup.deleteMany({ where: { teamId: team.id } });
    if (groups.length) await tx.teamIdpGroup.createMany({ data: groups.map((group) => ({ teamId: team.id, group })) });
    await audit(tx, access, { action: 'team.idp-groups', targetType: 'team', target: team.name, before: { groups: before }, after: { groups }, requestId });
    return { team: team.name, groups };
  });
}

/** A team's groups (GET /api/v1/teams/{team}/idp_groups). */
export async function teamIdpGroups(access: Access, teamName: string) {
  assertCan(access, 'admin.users');
  const team = await db().team.findUnique({ where: { name: teamName }, select: { name: true, idpGroups: { select: { group: true } } } });
  if (!team) throw notFound(`No team '${teamName}'`);
  return { team: team.name, groups: team.idpGroups.map((g) => g.group).sort() };
}


/** Admin: links an account to the provider identity with this subject (the error page of a refused sign-in shows it). */
export async function linkIdentity(access: Access, settings: Pick<SsoSettings, 'issuer'>, input: z.output<typeof ZLinkIdentityInput>) {
  assertCan(access, 'admin.users');
  return transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { email: input.email }, select: { id: true, email: true, oidcIdentity: { select: { subject: true } } } });
    if (!user) throw notFound(`No user '${input.email}'`);
    if (user.oidcIdentity) throw conflict(`${user.email} is already linked to the identity '${user.oidcIdentity.subject}'; unlink it first`);
    const taken = await tx.oidcIdentity.findUnique({ where: { issuer_subject: { issuer: settings.issuer, subject: input.subject } }, select: { user: { select: { email: true } } } });
    if (taken) throw badRequest(`The identity '${input.subject}' is linked to ${taken.user.email} already`, [{ path: '/subject', message: 'linked to another account' }]);
    // Not synced yet: the first sign-in through the provider syncs (until then, only the account's own rights).
    await tx.oidcIdentity.create({ data: { userId: user.id, issuer: settings.issuer, subject: input.subject, linkedBy: 'admin', syncedAt: new Date(0), status: 'active' } });
    await audit(tx, access, { action: 'user.identity-link', targetType: 'user', target: user.email, after: { issuer: settings.issuer, subject: input.subject, linkedBy: 'admin' } });
    return { email: user.email, subject: input.subject };
  });
}


/** Admin: ends the link (the account keeps what it has; its sessions through the provider end). */
export async function unlinkIdentity(access: Access, input: z.output<typeof ZUnlinkIdentityInput>) {
  assertCan(access, 'admin.users');
  return transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { email: input.email }, select: { id: true, email: true, oidcIdentity: { select: { issuer: true, subject: true } } } });
    if (!user) throw notFound(`No user '${input.email}'`);
    if (!user.oidcIdentity) return { email: user.email, unlinked: false };
    await tx.oidcIdentity.delete({ where: { userId: user.id } });
    await audit(tx, access, { action: 'user.identity-unlink', targetType: 'user', target: user.email, before: { issuer: user.oidcIdentity.issuer, subject: user.oidcIdentity.subject } });
    return { email: user.email, unlinked: true };
  });
}
