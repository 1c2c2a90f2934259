/**
 * Issue 42: the first administrator of a fresh console, two ways, one rule.
 *
 * - `npm run admin:create -- --email E [--name N] [--password-file F] [--force]` (scripts/admin-create.ts), on the
 *   console's host: refused while an active administrator exists, unless `--force` (break glass: another
 *   administrator, or an existing account made administrator again with a new password).
 * - The first-run page (/setup), reachable only while no active administrator exists and only with a one-time
 *   setup code the server prints in its log at start-up. The code is kept in the database (SHA-256, single use,
 *   24 hours), so it works on whichever instance the browser reaches; making an administrator claims every open
 *   code at once.
 *
 * Two makers at once (two instances, the page and the command): every such transaction first writes the one
 * AdminBootstrap row, so they take turns, and the second one then sees the first's administrator and is refused
 * (a `--force` run excepted, which asks for another administrator on purpose).
 *
 * The account is marked with its origin ("admin-create" or "first-run") so that a later LOCAL_LOGIN=admins
 * (issue 45, SSO) can keep exactly these break-glass accounts signing in with a password.
 */
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { db, type Db, type Tx } from '@/lib/db/client';
import { hashPassword } from '@/lib/auth/password';
import { badRequest, conflict, forbidden } from '@/lib/errors';
import { audit, type SystemActor, transaction } from '@/lib/services/funnel';
import { chefNameTaken, claimChefName, HOME_MEMBERSHIP } from '@/lib/services/organizations';
import { CHEF_USER_NAME_RULE } from './chef-users';
import { ZPassword } from './users';

export type AdminOrigin = 'admin-create' | 'first-run';

/** How long a setup code printed at start-up stays valid. */
export const SETUP_CODE_TTL_MS = 24 * 60 * 60 * 1000;

export const ZFirstAdminInput = z.object({
  email: z.string().trim().toLowerCase().email('must be an email address'),
  name: z.string().trim().max(100).optional(),
  password: ZPassword,
});

export interface FirstAdminResult {
  email: string;
  chefName: string | null;
  /** The account existed and was made an administrator again (with the new password). */
  existing: boolean;
}

const hashCode = (code: string) => createHash('sha256').update(code.trim().toUpperCase().replace(/[^A-Z0-9]/g, '')).digest('hex');

/** The active administrators (e-mails, oldest first). */
export async function activeAdministrators(client: Db | Tx = db()): Promise<string[]> {
  const rows = await client.user.findMany({ where: { isAdmin: true, active: true }, orderBy: { createdAt: 'asc' }, select: { email: true } });
  return rows.map((r) => r.email);
}

/** A Chef user name from an e-mail's local part (lower case, other characters as '-'), or null when none fits. */
export function chefNameFromEmail(email: string): string | null {
  const local = email.split('@')[0].toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '');
  return local && CHEF_USER_NAME_RULE.test(local) ? local : null;
}

/**
 * Makes an administrator (a new account, or an existing one made administrator again) as `origin`. Without
 * `force`, refused (409) while an active administrator exists. `claim` runs inside the same transaction after
 * the turn is taken (the first-run page claims its setup code there).
 */
export async function makeAdministrator(
  raw: { email: string; name?: string; password: string },
  opts: { origin: AdminOrigin; force?: boolean; claim?: (tx: Tx, now: Date) => Promise<void>; requestId?: string },
): Promise<FirstAdminResult> {
  const parsed = ZFirstAdminInput.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue.path[0] ?? '');
    throw badRequest(`${field}: ${issue.message}`, [{ path: `/${field}`, message: issue.message }]);
  }
  const input = parsed.data;
  const passwordHash = await hashPassword(input.password);
  const actor: SystemActor = { kind: 'system', userId: null, email: opts.origin, via: opts.origin };
  return transaction(async (tx) => {
    const now = new Date();
    // The turn: one row every maker writes first (PostgreSQL: a row lock held to commit; SQLite: the write lock).
    await tx.adminBootstrap.upsert({ where: { id: 'install' }, create: { id: 'install', updatedAt: now, by: input.email }, update: { updatedAt: now, by: input.email } });
    const admins = await activeAdministrators(tx);
    if (admins.length && !opts.force) {
      throw conflict(`The console has an active administrator (${admins[0]}${admins.length > 1 ? ` and ${admins.length - 1} more` : ''}): refused. Sign in as them, or run npm run admin:create with --force (break glass).`);
    }
    if (opts.claim) await opts.claim(tx, now);
    // Every open setup code is spent: the first-run page closes with the first administrator, however made.
    await tx.setupCode.updateMany({ where: { claimedAt: null }, data: { claimedAt: now } });
    const found = await tx.user.findUnique({ where: { email: input.email }, select: { id: true, name: true, chefName: true, isAdmin: true, active: true } });
    if (found) {
      await tx.user.update({
        where: { id: found.id },
        data: { isAdmin: true, active: true, passwordHash, origin: opts.origin, sessionVersion: { increment: 1 }, ...(input.name ? { name: input.name } : {}) },
      });
      await audit(tx, actor, {
        action: 'user.update',
        targetType: 'user',
        target: input.email,
        before: { isAdmin: found.isAdmin, active: found.active },
        after: { isAdmin: true, active: true, password: 'set', origin: opts.origin, force: !!opts.force },
        requestId: opts.requestId,
      });
      return { email: input.email, chefName: found.chefName, existing: true };
    }
    let chefName = chefNameFromEmail(input.email);
    if (chefName && (await chefNameTaken(tx, chefName))) chefName = null;
    if (chefName) await claimChefName(tx, chefName, 'user', `Chef name ${chefName} is taken`);
    const name = input.name || input.email.split('@')[0];
    await tx.user.create({ data: { email: input.email, name, passwordHash, isAdmin: true, chefName, origin: opts.origin, orgMemberships: HOME_MEMBERSHIP }, select: { id: true } });
    await audit(tx, actor, { action: 'user.create', targetType: 'user', target: input.email, after: { name, isAdmin: true, chefName, origin: opts.origin, force: !!opts.force }, requestId: opts.requestId });
    return { email: input.email, chefName, existing: false };
  });
}

/** True while the first-run page may be used: no active administrator. */
export async function firstRunOpen(client: Db | Tx = db()): Promise<boolean> {
  return (await client.user.count({ where: { isAdmin: true, active: true } })) === 0;
}

/**
 * At start-up: while no active administrator exists, a new one-time setup code (stored hashed) to print in the
 * server log; null otherwise. Codes look like `K7QF-2M9X-…` (24 characters of base32, 120 bits).
 */
export async function mintSetupCode(client: Db = db(), now = new Date()): Promise<{ code: string; expiresAt: Date } | null> {
  if (!(await firstRunOpen(client))) return null;
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  const bytes = randomBytes(24);
  const raw = Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('');
  const code = raw.match(/.{4}/g)!.join('-');
  const expiresAt = new Date(now.getTime() + SETUP_CODE_TTL_MS);
  await client.setupCode.create({ data: { codeHash: hashCode(code), expiresAt, createdAt: now } });
  return { code, expiresAt };
}

/** What the first-run page says at start-up (and the README quotes). */
export function setupAnnouncement(code: { code: string; expiresAt: Date }, publicUrl: string | undefined): string[] {
  const where = `${publicUrl?.replace(/\/+$/, '') || 'http://<this server>'}/setup`;
  return [
    'No administrator yet. Create the first one:',
    `  in a browser: ${where} with the one-time setup code ${code.code} (valid until ${code.expiresAt.toISOString()}, single use, on any instance)`,
    '  or on this host: npm run admin:create -- --email you@example.com [--name "Your Name"] [--password-file FILE]',
  ];
}

/**
 * The first-run page's submit: the setup code must be an open one (not claimed, not expired) and no active
 * administrator may exist; both are checked again inside the making transaction, after its turn. A wrong, spent
 * or expired code is a 403 that says which without telling codes apart from each other.
 */
export async function claimFirstRun(input: { code: string; email: string; name?: string; password: string }): Promise<FirstAdminResult> {
  const codeHash = hashCode(input.code ?? '');
  return makeAdministrator(input, {
    origin: 'first-run',
    claim: async (tx, now) => {
      const { count } = await tx.setupCode.updateMany({ where: { codeHash, claimedAt: null, expiresAt: { gt: now } }, data: { claimedAt: now } });
      if (count !== 1) throw forbidden('This setup code is not valid: it is wrong, already used or expired. Restart the server for a new one (printed in its log), or run npm run admin:create on its host.');
    },
  });
}
