/**
 * Users' own Chef keys, for the console ("Connect Chef tools") and scripts:
 * a Chef user name given on first use, keys generated (private key returned
 * once, never stored), registered, expired and deleted through the same key
 * service the Chef API uses (chef-keys.ts).
 */
import type { Access } from '@/lib/auth/permissions';
import type { Tx } from '@/lib/db/client';
import { AppError, badRequest, conflict, notFound } from '@/lib/errors';
import { audit, type AuditActor, transaction } from '@/lib/services/funnel';
import { generateChefKeyPair, KEY_NAME } from '@/lib/auth/key-pairs';
import { createKey, deleteKey, listKeys, updateKey, type KeyDto, type KeyOwner } from './keys';
import { chefNameTaken } from '@/lib/services/organizations';

/** A user's Chef name, derived from the e-mail address when the user has none yet (Chef's user-name rule, unique). */
export async function ensureChefUserName(tx: Tx, userId: string): Promise<string> {
  const u = await tx.user.findUniqueOrThrow({ where: { id: userId }, select: { chefName: true, email: true } });
  if (u.chefName) return u.chefName;
  const base = (u.email.split('@')[0].toLowerCase().replace(/[^a-z0-9_-]/g, '-').replace(/^-+|-+$/g, '') || 'user').slice(0, 200);
  for (let i = 0; i < 100; i++) {
    const name = i === 0 ? base : `${base}-${i + 1}`;
    if (await chefNameTaken(tx, name)) continue;
    await tx.chefName.create({ data: { name, kind: 'user' } });
    await tx.user.update({ where: { id: userId }, data: { chefName: name } });
    return name;
  }
  throw new AppError('conflict', `No free Chef user name for ${u.email}`);
}

/**
 * Adds a key for a user (by Chef user name or e-mail), giving the user a Chef
 * name first if needed. The key is called 'default' when the user has none of
 * that name, else `key-<n>`. For scripts and the console ("Create key").
 */
export async function addUserKey(actor: AuditActor, userRef: string, opts: { name?: string; expiresAt?: Date | null } = {}): Promise<{ userName: string; keyName: string; privateKey: string }> {
  const pair = await generateChefKeyPair();
  return transaction(async (tx) => {
    const u = await tx.user.findFirst({ where: { OR: [{ chefName: userRef }, { email: userRef }] }, select: { id: true, active: true } });
    if (!u) throw notFound(`No user with Chef name or e-mail '${userRef}'`);
    if (!u.active) throw badRequest(`User '${userRef}' is deactivated`);
    const userName = await ensureChefUserName(tx, u.id);
    let keyName = opts.name;
    if (keyName) {
      if (!KEY_NAME.test(keyName)) throw badRequest(`Key name '${keyName}' may contain only letters, digits, '.', '_' and '-'`, [{ path: '/name', message: 'invalid key name' }]);
      if (await tx.chefKey.findFirst({ where: { userId: u.id, name: keyName }, select: { id: true } })) throw conflict(`Key with name '${keyName}' already exists`);
    } else {
      const names = new Set((await tx.chefKey.findMany({ where: { userId: u.id }, select: { name: true } })).map((k) => k.name));
      keyName = 'default';
      for (let i = 2; names.has(keyName); i++) keyName = `key-${i}`;
    }
    await tx.chefKey.create({ data: { userId: u.id, name: keyName, publicKey: pair.publicKey, expiresAt: opts.expiresAt ?? null } });
    await audit(tx, actor, { action: 'chef-key.create', targetType: 'chef-key', target: `user:${userName}/${keyName}`, after: { generated: true } });
    return { userName, keyName, privateKey: pair.privateKey };
  });
}

/** The signed-in user as a Chef key owner, giving them a Chef user name first if they have none. */
async function selfOwner(access: Access): Promise<KeyOwner> {
  const name = await transaction((tx) => ensureChefUserName(tx, access.userId));
  return { kind: 'user', name };
}

/** Console: generate a key pair for yourself; the private key is returned once. */
export async function createOwnKey(access: Access, input: { name: string; expiresAt?: string | null }): Promise<{ privateKey: string; name: string; userName: string }> {
  const owner = await selfOwner(access);
  const r = await createKey(access, owner, { name: input.name, create_key: true, expiration_date: input.expiresAt || 'infinity' });
  return { privateKey: r.privateKey!, name: r.key.name, userName: owner.name };
}

/** Console: register a public key you made yourself (e.g. with openssl or ssh-keygen -m PEM). */
export async function registerOwnKey(access: Access, input: { name: string; publicKey: string; expiresAt?: string | null }) {
  const owner = await selfOwner(access);
  const r = await createKey(access, owner, { name: input.name, public_key: input.publicKey, expiration_date: input.expiresAt || 'infinity' });
  return { name: r.key.name };
}

/** Console: expire one of your keys now (it stays listed, and no longer signs). */
export async function expireOwnKey(access: Access, name: string) {
  const owner = await selfOwner(access);
  await updateKey(access, owner, name, { expiration_date: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') });
}

export async function deleteOwnKey(access: Access, name: string) {
  await deleteKey(access, await selfOwner(access), name);
}

/** Console: your Chef user name and keys (a name is given on first visit). */
export async function ownKeys(access: Access): Promise<{ userName: string; keys: KeyDto[] }> {
  const owner = await selfOwner(access);
  return { userName: owner.name, keys: await listKeys(access, owner) };
}
