import { z } from 'zod';
import { assertCan, type Access } from '@/lib/auth/permissions';
import { hashPassword } from '@/lib/auth/password';
import { badRequest, conflict, notFound } from '@/lib/errors';
import { audit, transaction } from '@/lib/services/funnel';
import { HOME_MEMBERSHIP } from '@/lib/services/organizations';

// Each input schema here is the one definition of its rules: the server actions (lib/actions/admin/users-actions.ts) parse with it
// at their edge, and the functions take the parsed output; what stays below are the rules that need the database.

const email = z.string().trim().toLowerCase().email('must be an email address');
/** The console's password rule (also the first administrator's: lib/services/users/first-admin.ts). */
export const ZPassword = z.string().min(10, 'must be at least 10 characters').max(200, 'is at most 200 characters');
const password = ZPassword;

export const ZCreateUserInput = z.object({ email, name: z.string().trim().min(1, 'is required').max(100), password, isAdmin: z.boolean().default(false) });

/** Admin: creates a user with an initial password. */
export async function createUser(access: Access, input: z.output<typeof ZCreateUserInput>) {
  assertCan(access, 'admin.users');
  const passwordHash = await hashPassword(input.password);
  return transaction(async (tx) => {
    if (await tx.user.findUnique({ where: { email: input.email }, select: { id: true } })) throw conflict(`A user '${input.email}' already exists`);
    const user = await tx.user.create({ data: { email: input.email, name: input.name, isAdmin: input.isAdmin, passwordHash, orgMemberships: HOME_MEMBERSHIP }, select: { id: true, email: true } });
    await audit(tx, access, { action: 'user.create', targetType: 'user', target: user.email, after: { name: input.name, isAdmin: input.isAdmin } });
    return user;
  });
}

export const ZUpdateUserInput = z.object({
  email,
  active: z.boolean().optional(),
  isAdmin: z.boolean().optional(),
  password: password.optional(),
  name: z.string().trim().min(1, 'is required').max(100).optional(),
});

/** Admin: deactivate/reactivate, grant/revoke admin, reset password, rename. Admins cannot lock themselves out. */
export async function updateUser(access: Access, input: z.output<typeof ZUpdateUserInput>) {
  assertCan(access, 'admin.users');
  const passwordHash = input.password ? await hashPassword(input.password) : undefined;
  return transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { email: input.email }, select: { id: true, active: true, isAdmin: true, name: true } });
    if (!user) throw notFound(`No user '${input.email}'`);
    if (user.id === access.userId && (input.active === false || input.isAdmin === false)) {
      throw badRequest('You cannot deactivate yourself or remove your own admin flag; ask another admin', [{ path: input.active === false ? '/active' : '/isAdmin', message: 'not for your own account' }]);
    }
    // A new password or a deactivation ends the user's existing sessions (issue 17, item 7).
    const endSessions = !!input.password || input.active === false;
    const data = { active: input.active, isAdmin: input.isAdmin, name: input.name, passwordHash, ...(endSessions ? { sessionVersion: { increment: 1 } } : {}) };
    await tx.user.update({ where: { id: user.id }, data });
    // Issue 28: a password reset or a deactivation also ends the user's credentials: every live API token is
    // revoked and every Chef key expires now (kept, listed as expired, so the user or an admin can review them and
    // register new ones). A stolen token or key does not survive the reset that was meant to lock its thief out.
    let ended: { tokens: number; chef_keys: number } | undefined;
    if (endSessions) {
      const now = new Date();
      const tokens = await tx.apiToken.updateMany({ where: { userId: user.id, revokedAt: null }, data: { revokedAt: now } });
      const keys = await tx.chefKey.updateMany({ where: { userId: user.id, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] }, data: { expiresAt: now } });
      ended = { tokens: tokens.count, chef_keys: keys.count };
    }
    await audit(tx, access, {
      action: input.password ? 'user.reset-password' : 'user.update',
      targetType: 'user',
      target: input.email,
      before: { active: user.active, isAdmin: user.isAdmin, name: user.name },
      after: { active: input.active ?? user.active, isAdmin: input.isAdmin ?? user.isAdmin, name: input.name ?? user.name, passwordChanged: !!input.password, ...(ended ? { credentials_ended: ended } : {}) },
    });
    return { email: input.email };
  });
}

export const ZSignOutEverywhereInput = z.object({ email });

/** Ends every browser session of a user at once: admins for anyone, anyone for themselves. API tokens are revoked separately. */
export async function signOutEverywhere(access: Access, input: z.output<typeof ZSignOutEverywhereInput>) {
  if (input.email !== access.email) assertCan(access, 'admin.users');
  return transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { email: input.email }, select: { id: true } });
    if (!user) throw notFound(`No user '${input.email}'`);
    await tx.user.update({ where: { id: user.id }, data: { sessionVersion: { increment: 1 } } });
    await audit(tx, access, { action: 'user.sign-out-everywhere', targetType: 'user', target: input.email });
    return { email: input.email };
  });
}

export const ZTeamInput = z.object({ name: z.string().trim().regex(/^[a-z0-9][a-z0-9_-]{0,49}$/, 'must be 1 to 50 lowercase letters, digits, _ or -'), description: z.string().max(300).default('') });

/** Admin: creates a team. */
export async function createTeam(access: Access, input: z.output<typeof ZTeamInput>) {
  assertCan(access, 'admin.users');
  return transaction(async (tx) => {
    if (await tx.team.findUnique({ where: { name: input.name }, select: { id: true } })) throw conflict(`A team '${input.name}' already exists`);
    const team = await tx.team.create({ data: input, select: { id: true, name: true } });
    await audit(tx, access, { action: 'team.create', targetType: 'team', target: team.name, after: input });
    return team;
  });
}

export const ZMembershipInput = z.object({ team: z.string().trim().min(1, 'is required'), email, member: z.boolean() });

/** Admin: adds a user to a team or removes them. */
export async function setTeamMembership(access: Access, input: z.output<typeof ZMembershipInput>) {
  assertCan(access, 'admin.users');
  return transaction(async (tx) => {
    const team = await tx.team.findUnique({ where: { name: input.team }, select: { id: true } });
    if (!team) throw notFound(`No team '${input.team}'`);
    const user = await tx.user.findUnique({ where: { email: input.email }, select: { id: true } });
    if (!user) throw notFound(`No user '${input.email}'`);
    const key = { teamId_userId: { teamId: team.id, userId: user.id } };
    const existing = await tx.teamMember.findUnique({ where: key });
    if (!!existing === input.member) return { changed: false };
    if (input.member) await tx.teamMember.create({ data: { teamId: team.id, userId: user.id } });
    else await tx.teamMember.delete({ where: key });
    await audit(tx, access, { action: input.member ? 'team.add-member' : 'team.remove-member', targetType: 'team', target: `${input.team}/${input.email}`, before: { member: !input.member }, after: { member: input.member } });
    return { changed: true };
  });
}
