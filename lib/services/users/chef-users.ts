/**
 * Chef's server-level users API (/users, /users/:name) mapped onto the
 * console's users: a user created here is a console user (display name,
 * e-mail, Chef user name) without a password — one is set in the console
 * (administrators' "Users" page); the Chef API never sets or reads console
 * passwords. Its key is the user's Chef key named 'default'. Administrators
 * (Chef's superuser) create, list, update and delete; a user reads itself.
 */
import { db, type Tx } from '@/lib/db/client';
import { assertCan, type Actor } from '@/lib/auth/permissions';
import { badRequest, conflict, forbidden, notFound } from '@/lib/errors';
import { audit, transaction } from '@/lib/services/funnel';
import { checkedPublicKey, generateChefKeyPair } from '@/lib/auth/key-pairs';
import { claimChefName } from '@/lib/services/organizations';

/** Chef's user-name rule (chef_regex user_name). */
export const CHEF_USER_NAME_RULE = /^[a-z0-9_-]{1,255}$/;
/** erchef's e-mail check, simplified to what it accepts in practice (local@domain.tld). */
const EMAIL = /^[^\s@"]+@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/i;

export interface ChefUserDto {
  username: string;
  email: string;
  displayName: string;
  /** The user's key named 'default' (Chef's API v0 shows it as the user's `public_key`). */
  publicKey: string | null;
  /** Issue 42: Chef's first_name and last_name as last sent (null: never given; the display name's words then). */
  firstName?: string | null;
  lastName?: string | null;
}

const SELECT = { id: true, chefName: true, email: true, name: true, firstName: true, lastName: true, chefKeys: { where: { name: 'default' }, select: { publicKey: true } } } as const;

function dto(u: { chefName: string | null; email: string; name: string; firstName: string | null; lastName: string | null; chefKeys: { publicKey: string }[] }): ChefUserDto {
  return { username: u.chefName ?? '', email: u.email, displayName: u.name, publicKey: u.chefKeys[0]?.publicKey ?? null, firstName: u.firstName, lastName: u.lastName };
}

/** The checks erchef makes of a user body (chef_user:parse_binary_json), with its messages; the first failure. */
function userFields(raw: unknown, op: 'create' | 'update', apiVersion: number) {
  const b = (raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : null) as Record<string, unknown> | null;
  const fail = (message: string, path = '') => {
    throw badRequest(message, [{ path, message }]);
  };
  if (!b) return fail('invalid JSON');
  const body: Record<string, unknown> = { ...b };
  // API v0: a null public_key is no key; private_key: true asks for a new key pair (and drops any public_key sent).
  if (apiVersion === 0 && body.public_key === null) delete body.public_key;
  if (apiVersion === 0 && body.private_key === true) delete body.public_key;
  if (apiVersion >= 1 && (body.private_key !== undefined || (op === 'update' && (body.public_key !== undefined || body.create_key !== undefined)))) {
    fail(op === 'update' ? 'Since Server API v1, all keys must be updated via the keys endpoint. ' : "Field 'private_key' invalid", '/public_key');
  }
  const username = body.name ?? body.username;
  if (username === undefined) fail("Field 'username' missing", '/username');
  if (typeof username !== 'string' || !CHEF_USER_NAME_RULE.test(username)) fail("Field 'username' invalid", '/username');
  if (typeof body.display_name !== 'string') fail(body.display_name === undefined ? "Field 'display_name' missing" : "Field 'display_name' invalid", '/display_name');
  for (const f of ['first_name', 'last_name', 'middle_name', 'twitter_account', 'city', 'country']) {
    if (body[f] !== undefined && typeof body[f] !== 'string') fail(`Field '${f}' invalid`, `/${f}`);
  }
  if (typeof body.email !== 'string' || !EMAIL.test(body.email)) fail('email must be valid', '/email');
  if (body.password !== undefined && (typeof body.password !== 'string' || body.password.length < 6)) fail('Password must have at least 6 characters', '/password');
  if (op === 'create' && body.password === undefined) fail("Field 'password' missing", '/password');
  if (body.private_key !== undefined && typeof body.private_key !== 'boolean') fail("Field 'private_key' invalid", '/private_key');
  if (body.public_key !== undefined) {
    if (typeof body.public_key !== 'string') fail("Field 'public_key' invalid", '/public_key');
    checkedPublicKey(body.public_key as string);
  }
  if (body.create_key !== undefined && typeof body.create_key !== 'boolean') fail("Field 'create_key' invalid", '/create_key');
  if (op === 'create' && body.create_key === true && body.public_key !== undefined) fail('You must specify either create_key or public_key, but not both', '/create_key');
  const { password: _password, id: _id, ...echo } = body;
  return {
    username: username as string,
    email: (body.email as string).toLowerCase(),
    displayName: (body.display_name as string).trim() || (username as string),
    firstName: body.first_name as string | undefined,
    lastName: body.last_name as string | undefined,
    publicKey: body.public_key as string | undefined,
    generate: op === 'create' ? body.create_key === true || (apiVersion === 0 && body.public_key === undefined) : apiVersion === 0 && body.private_key === true,
    /** The body as erchef answers it on update (no password, no id). */
    echo: { ...echo, ...(username !== undefined ? { username } : {}), email: (body.email as string).toLowerCase() },
  };
}

async function emailTaken(tx: Tx, email: string, exceptId?: string) {
  const u = await tx.user.findUnique({ where: { email }, select: { id: true } });
  return !!u && u.id !== exceptId;
}

/** GET /users: every user with a Chef name (administrators). */
export async function listChefUsers(actor: Actor): Promise<string[]> {
  assertCan(actor, 'admin.users');
  const rows = await db().user.findMany({ where: { chefName: { not: null }, active: true }, select: { chefName: true } });
  return rows.map((r) => r.chefName!).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** GET /users/:name: the user itself, or an administrator. */
export async function getChefUser(actor: Actor, name: string): Promise<ChefUserDto> {
  const u = await db().user.findFirst({ where: { chefName: name, active: true }, select: SELECT });
  assertCan(actor, 'user.read', { userId: u?.id ?? `missing:${name}` });
  if (!u) throw notFound(`Could not find user ${name}`);
  return dto(u);
}

/** POST /users (administrators): a console user without a password, with the key sent or a generated one. */
export async function createChefUser(actor: Actor, raw: unknown, opts: { apiVersion: number; requestId?: string; origin?: 'import' }): Promise<{ user: ChefUserDto; privateKey?: string }> {
  assertCan(actor, 'admin.users');
  const f = userFields(raw, 'create', opts.apiVersion);
  const pair = f.generate ? await generateChefKeyPair() : null;
  const publicKey = pair?.publicKey ?? f.publicKey ?? null;
  return transaction(async (tx) => {
    if (await emailTaken(tx, f.email)) throw conflict('Username or email address already in use.');
    await claimChefName(tx, f.username, 'user', 'Username or email address already in use.');
    const u = await tx.user.create({ data: { email: f.email, name: f.displayName, firstName: f.firstName ?? null, lastName: f.lastName ?? null, chefName: f.username, passwordHash: '', isAdmin: false, origin: opts.origin ?? null }, select: { id: true } });
    if (publicKey) await tx.chefKey.create({ data: { userId: u.id, name: 'default', publicKey } });
    await audit(tx, actor, { action: 'user.create', targetType: 'user', target: f.email, after: { chefName: f.username, name: f.displayName, key: !!publicKey, via: 'chef-api' }, requestId: opts.requestId });
    return { user: { username: f.username, email: f.email, displayName: f.displayName, publicKey, firstName: f.firstName ?? null, lastName: f.lastName ?? null }, privateKey: pair?.privateKey };
  });
}

/**
 * PUT /users/:name (administrators): display name, e-mail and (API v0) the
 * default key — a new public key, or `private_key: true` for a generated pair.
 * Renaming is not offered (400). Answers erchef's body: what was sent, with
 * the key the user now has.
 */
export async function updateChefUser(actor: Actor, name: string, raw: unknown, opts: { apiVersion: number; requestId?: string }): Promise<{ user: ChefUserDto; echo: Record<string, unknown>; privateKey?: string }> {
  assertCan(actor, 'admin.users');
  const f = userFields(raw, 'update', opts.apiVersion);
  if (f.username !== name) throw badRequest(`Renaming users is not supported: username '${f.username}' does not match '${name}'`, [{ path: '/username', message: 'must match the URL' }]);
  const pair = f.generate ? await generateChefKeyPair() : null;
  const newKey = pair?.publicKey ?? f.publicKey;
  return transaction(async (tx) => {
    const u = await tx.user.findFirst({ where: { chefName: name, active: true }, select: { id: true, email: true, name: true } });
    if (!u) throw notFound(`Could not find user ${name}`);
    if (await emailTaken(tx, f.email, u.id)) throw conflict('Username or email address already in use.');
    await tx.user.update({ where: { id: u.id }, data: { email: f.email, name: f.displayName, ...(f.firstName !== undefined ? { firstName: f.firstName } : {}), ...(f.lastName !== undefined ? { lastName: f.lastName } : {}) } });
    if (newKey) {
      await tx.chefKey.deleteMany({ where: { userId: u.id, name: 'default' } });
      await tx.chefKey.create({ data: { userId: u.id, name: 'default', publicKey: newKey } });
    }
    await audit(tx, actor, { action: 'user.update', targetType: 'user', target: f.email, before: { email: u.email, name: u.name }, after: { email: f.email, name: f.displayName, key: !!newKey, via: 'chef-api' }, requestId: opts.requestId });
    const now = await tx.user.findUniqueOrThrow({ where: { id: u.id }, select: SELECT });
    return { user: dto(now), echo: f.echo, privateKey: pair?.privateKey };
  });
}

/** DELETE /users/:name (administrators, not themselves): the user and everything that is theirs (keys, tokens, grants, memberships). */
export async function deleteChefUser(actor: Actor, name: string, requestId?: string): Promise<ChefUserDto> {
  assertCan(actor, 'admin.users');
  return transaction(async (tx) => {
    const u = await tx.user.findFirst({ where: { chefName: name }, select: { ...SELECT, isAdmin: true } });
    if (!u) throw notFound(`Could not find user ${name}`);
    if (u.id === actor.userId) throw forbidden('You may not delete yourself.');
    await tx.user.delete({ where: { id: u.id } });
    await tx.chefName.deleteMany({ where: { name, kind: 'user' } });
    await audit(tx, actor, { action: 'user.delete', targetType: 'user', target: u.email, before: { chefName: name, name: u.name, isAdmin: u.isAdmin, via: 'chef-api' }, requestId });
    return dto(u);
  });
}
