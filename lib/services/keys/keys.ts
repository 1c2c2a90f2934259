/**
 * Chef keys: the public keys users and clients sign Chef requests with
 * (Chef's /users/:user/keys and /clients/:client/keys). A private key is
 * generated only on request (create_key), returned once, and never stored.
 * Clients live in chef-clients.ts, users' own keys (console and scripts) in
 * chef-user-keys.ts, key generation in lib/auth/key-pairs.ts.
 */
import { z } from 'zod';
import { db, type Tx } from '@/lib/db/client';
import { can, type Action, type Actor, type Resource } from '@/lib/auth/permissions';
import { chefStringError, forbidden, notFound } from '@/lib/errors';
import { withActorGroups, withOrgAdminFacts } from '@/lib/services/organizations';
import { audit, parseInput, transaction } from '@/lib/services/funnel';
import { sortedBy } from '@/lib/db/order';
import { HOME_ORG_ID } from '@/lib/domain/organizations';
import { checkedPublicKey, generateChefKeyPair, KEY_NAME } from '@/lib/auth/key-pairs';
import { assertNodeClientRights } from '@/lib/services/stages';

/**
 * Whose key set. `serverLevel`: a user's keys read through Chef's server-level /users/:user/keys, where the
 * user and Chef's superuser read them whether or not the user is a member of the organization (issue 23:
 * `user.read`, a server-scoped row); through the organization the rule is `key.read` (its members).
 */
export type KeyOwner = {
  kind: 'user' | 'client';
  name: string;
  serverLevel?: boolean;
  /**
   * Issue 23 (step 4): the organization of the URL (default: the home one). A client is found only in its own.
   * Issue 41: given for a user's keys (a Chef request through an organization), the user must be its member.
   */
  orgId?: string;
};

export interface KeyDto {
  name: string;
  publicKey: string;
  expiresAt: Date | null;
  expired: boolean;
  createdAt: Date;
  lastUsedAt: Date | null;
}

const expiration = z
  .string()
  .refine((v) => v === 'infinity' || (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/.test(v) && Number.isFinite(Date.parse(v))), {
    message: "must be an ISO 8601 date and time (e.g. 2027-01-01T00:00:00Z) or 'infinity'",
  });

export const ZCreateKeyInput = z
  .object({
    name: z.string().regex(KEY_NAME, "may contain only letters, digits, '.', '_' and '-' (1 to 255)"),
    public_key: z.string().min(1, 'must be a PEM public key').optional(),
    create_key: z.boolean().optional(),
    expiration_date: expiration,
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.public_key && v.create_key) ctx.addIssue({ code: 'custom', path: ['create_key'], message: "cannot be true when 'public_key' is given" });
    if (!v.public_key && !v.create_key) ctx.addIssue({ code: 'custom', path: ['public_key'], message: "is required unless 'create_key' is true" });
  });

export const ZUpdateKeyInput = z
  .object({
    name: z.string().regex(KEY_NAME, "may contain only letters, digits, '.', '_' and '-' (1 to 255)").optional(),
    public_key: z.string().min(1, 'must be a PEM public key').optional(),
    create_key: z.boolean().optional(),
    expiration_date: expiration.optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.public_key && v.create_key) ctx.addIssue({ code: 'custom', path: ['create_key'], message: "cannot be true when 'public_key' is given" });
  });

function expiresFrom(v: string | undefined): Date | null | undefined {
  if (v === undefined) return undefined;
  return v === 'infinity' ? null : new Date(v);
}

export function toDto(k: { name: string; publicKey: string; expiresAt: Date | null; createdAt: Date; lastUsedAt: Date | null }, now = new Date()): KeyDto {
  return { ...k, expired: !!k.expiresAt && k.expiresAt <= now };
}

/** The owner row of a key set: a user (by Chef user name) or a client. 404 when missing. */
async function ownerRef(tx: Tx, owner: KeyOwner): Promise<{ userId?: string; clientId?: string; label: string }> {
  if (owner.kind === 'user') {
    const u = await tx.user.findUnique({ where: { chefName: owner.name }, select: { id: true } });
    if (!u) throw chefStringError('not_found', `Could not find user ${owner.name}`);
    // Issue 41: through an organization, a user's keys are its members' only (another organization's clients and
    // members read nothing of users outside it), answered as GET /organizations/O/users/U answers a non-member.
    if (!owner.serverLevel && owner.orgId !== undefined) {
      const orgId = owner.orgId;
      if (!(await tx.orgMember.findUnique({ where: { orgId_userId: { orgId, userId: u.id } }, select: { userId: true } }))) {
        const org = await tx.organization.findUnique({ where: { id: orgId }, select: { name: true } });
        throw chefStringError('not_found', `Cannot find a user ${owner.name} in organization ${org?.name ?? ''}`);
      }
    }
    return { userId: u.id, label: owner.name };
  }
  const c = await tx.chefClient.findUnique({ where: { orgId_name: { orgId: owner.orgId ?? HOME_ORG_ID, name: owner.name } }, select: { id: true } });
  if (!c) throw notFound(`Cannot load client ${owner.name}`);
  return { clientId: c.id, label: owner.name };
}

/**
 * Who may see and change a key set (pedant's rules, as the permission table's
 * `key.read`, `client-key.write` and `user-key.write` rows): public keys are
 * readable by every member of the organization, clients included; a user's
 * keys are changed by that user and by the console's admins (Chef's
 * superuser: the console has no org admin apart from its admins), a
 * client's keys by admins and the client itself. Refused:
 * Chef's "missing read/update permission". Whose a user's key set is, is
 * known once the owner row is loaded: the write functions check again with `ref`.
 */
async function assertKeyAccess(r: Actor, owner: KeyOwner, write: boolean, ref?: { userId?: string }) {
  const serverRead = !write && owner.kind === 'user' && !!owner.serverLevel;
  const action: Action = serverRead ? 'user.read' : !write ? 'key.read' : owner.kind === 'client' ? 'client-key.write' : 'user-key.write';
  const base: Resource = owner.kind === 'client' ? { client: owner.name } : { userId: ref?.userId };
  if ((write || serverRead) && owner.kind === 'user' && !ref) return;
  // Rules that do not read the owner row were checked before it was loaded (once: they load the actor's groups).
  if (ref && (action === 'key.read' || action === 'client-key.write')) return;
  // Issue 23 (step 3): org-scoped reads are public_key_read_access's, clients' key writes org admins' too;
  // server-level reads of a user's keys also the org admins of an organization the user is a member of.
  const resource =
    action === 'key.read' ? await withActorGroups(r, base, { clients: true, orgId: owner.orgId })
    : action === 'client-key.write' ? await withActorGroups(r, base, { orgId: owner.orgId })
    : action === 'user.read' && ref?.userId ? await withOrgAdminFacts(r, ref.userId, base)
    : base;
  if (!can(r, action, resource)) throw forbidden(`missing ${write ? 'update' : 'read'} permission`);
}

/**
 * Issue 41 (finding 6): a key written on a home client named like a node lets its holder act as that node, so a
 * user (org admins included) needs the node's stage rights too; the client itself writes its own keys (Chef's
 * default). Checked inside the write's transaction, once the owner row is known.
 */
async function assertNodeKeyWrite(tx: Tx, r: Actor, owner: KeyOwner, verb: string): Promise<void> {
  if (owner.kind !== 'client' || (owner.orgId ?? HOME_ORG_ID) !== HOME_ORG_ID) return;
  await assertNodeClientRights(tx, r, owner.name, `${verb} client '${owner.name}'`);
}

/** The key that signed this request may not be changed or deleted by that request (Chef's rule). */
function assertNotSigningKey(r: Actor, owner: KeyOwner, keyName: string) {
  if (r.via === `chef-key:${owner.name}/${keyName}`) {
    throw chefStringError('forbidden', `The key '${keyName}' was used to authenticate this request and cannot be modified or deleted.`);
  }
}

function noSuchKey(owner: KeyOwner, keyName: string) {
  return chefStringError('not_found', `There is no key named ${keyName} associated with ${owner.name}.`);
}

function keyExists(name: string) {
  return chefStringError('conflict', `a key with the name '${name}' already exists for this actor.`);
}

function ownerWhere(ref: { userId?: string; clientId?: string }) {
  return ref.userId ? { userId: ref.userId } : { clientId: ref.clientId! };
}

export async function listKeys(r: Actor, owner: KeyOwner): Promise<KeyDto[]> {
  await assertKeyAccess(r, owner, false);
  const client = db();
  const ref = await ownerRef(client, owner);
  await assertKeyAccess(r, owner, false, ref);
  const keys = await client.chefKey.findMany({ where: ownerWhere(ref), orderBy: { name: 'asc' }, select: { name: true, publicKey: true, expiresAt: true, createdAt: true, lastUsedAt: true } }).then(sortedBy((k) => k.name));
  return keys.map((k) => toDto(k));
}

export async function getKey(r: Actor, owner: KeyOwner, keyName: string): Promise<KeyDto> {
  await assertKeyAccess(r, owner, false);
  const client = db();
  const ref = await ownerRef(client, owner);
  await assertKeyAccess(r, owner, false, ref);
  const key = await client.chefKey.findFirst({ where: { ...ownerWhere(ref), name: keyName }, select: { name: true, publicKey: true, expiresAt: true, createdAt: true, lastUsedAt: true } });
  if (!key) throw noSuchKey(owner, keyName);
  return toDto(key);
}

/** Adds a key; with `create_key` the private key is generated and returned once. 409 when the name is taken. */
export async function createKey(r: Actor, owner: KeyOwner, raw: unknown, requestId?: string): Promise<{ key: KeyDto; privateKey?: string }> {
  await assertKeyAccess(r, owner, true);
  const input = parseInput(ZCreateKeyInput, raw);
  const pair = input.create_key ? await generateChefKeyPair() : null;
  const publicKey = pair ? pair.publicKey : checkedPublicKey(input.public_key!);
  return transaction(async (tx) => {
    const ref = await ownerRef(tx, owner);
    await assertKeyAccess(r, owner, true, ref);
    await assertNodeKeyWrite(tx, r, owner, 'add a key to');
    const taken = await tx.chefKey.findFirst({ where: { ...ownerWhere(ref), name: input.name }, select: { id: true } });
    if (taken) throw keyExists(input.name);
    const key = await tx.chefKey.create({
      data: { ...ownerWhere(ref), name: input.name, publicKey, expiresAt: expiresFrom(input.expiration_date) ?? null },
      select: { name: true, publicKey: true, expiresAt: true, createdAt: true, lastUsedAt: true },
    });
    await audit(tx, r, {
      action: 'chef-key.create',
      targetType: 'chef-key',
      target: `${owner.kind}:${owner.name}/${input.name}`,
      after: { expires: input.expiration_date, generated: !!pair },
      requestId,
    });
    return { key: toDto(key), privateKey: pair?.privateKey };
  });
}

/** Renames, replaces or re-dates a key. Returns the key and whether it was renamed (Chef answers 201 then). */
export async function updateKey(r: Actor, owner: KeyOwner, keyName: string, raw: unknown, requestId?: string): Promise<{ key: KeyDto; privateKey?: string; renamed: boolean }> {
  await assertKeyAccess(r, owner, true);
  const input = parseInput(ZUpdateKeyInput, raw);
  if (input.name === undefined && input.expiration_date === undefined && input.public_key === undefined && !input.create_key) {
    throw chefStringError('bad_request', "At least one of 'name', 'expiration_date', or 'public_key' must be specified");
  }
  const pair = input.create_key ? await generateChefKeyPair() : null;
  const publicKey = pair ? pair.publicKey : input.public_key !== undefined ? checkedPublicKey(input.public_key) : undefined;
  return transaction(async (tx) => {
    const ref = await ownerRef(tx, owner);
    await assertKeyAccess(r, owner, true, ref);
    await assertNodeKeyWrite(tx, r, owner, 'change a key of');
    const key = await tx.chefKey.findFirst({ where: { ...ownerWhere(ref), name: keyName }, select: { id: true } });
    if (!key) throw noSuchKey(owner, keyName);
    assertNotSigningKey(r, owner, keyName);
    const renamed = input.name !== undefined && input.name !== keyName;
    if (renamed && (await tx.chefKey.findFirst({ where: { ...ownerWhere(ref), name: input.name }, select: { id: true } }))) throw keyExists(input.name!);
    const updated = await tx.chefKey.update({
      where: { id: key.id },
      data: { name: input.name, publicKey, expiresAt: expiresFrom(input.expiration_date) },
      select: { name: true, publicKey: true, expiresAt: true, createdAt: true, lastUsedAt: true },
    });
    await audit(tx, r, {
      action: 'chef-key.update',
      targetType: 'chef-key',
      target: `${owner.kind}:${owner.name}/${keyName}`,
      after: { name: updated.name, expires: input.expiration_date, replaced: publicKey !== undefined },
      requestId,
    });
    return { key: toDto(updated), privateKey: pair?.privateKey, renamed };
  });
}

export async function deleteKey(r: Actor, owner: KeyOwner, keyName: string, requestId?: string): Promise<KeyDto> {
  await assertKeyAccess(r, owner, true);
  return transaction(async (tx) => {
    const ref = await ownerRef(tx, owner);
    await assertKeyAccess(r, owner, true, ref);
    await assertNodeKeyWrite(tx, r, owner, 'delete a key of');
    const key = await tx.chefKey.findFirst({ where: { ...ownerWhere(ref), name: keyName }, select: { id: true, name: true, publicKey: true, expiresAt: true, createdAt: true, lastUsedAt: true } });
    if (!key) throw noSuchKey(owner, keyName);
    assertNotSigningKey(r, owner, keyName);
    await tx.chefKey.delete({ where: { id: key.id } });
    await audit(tx, r, { action: 'chef-key.delete', targetType: 'chef-key', target: `${owner.kind}:${owner.name}/${keyName}`, requestId });
    return toDto(key);
  });
}
