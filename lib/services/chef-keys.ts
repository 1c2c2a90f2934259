/**
 * Chef keys and clients: the public keys users and clients sign Chef requests
 * with (Chef's /users/:user/keys and /clients/:client/keys), clients
 * themselves, and the organization's validator. Private keys are generated
 * here, returned once, and never stored.
 */
import { generateKeyPairSync } from 'node:crypto';
import { z } from 'zod';
import { db, type Tx } from '@/lib/db/client';
import { assertCan, type Access } from '@/lib/auth/permissions';
import { clientMay, requestorActor, type Requestor } from '@/lib/auth/requestor';
import { normalisePublicKey } from '@/lib/chef/signing';
import { AppError, badRequest, chefStringError, conflict, forbidden, notFound } from '@/lib/errors';
import { audit, type Actor } from './internal/audit';
import { parseInput } from './internal/parse';
import { transaction } from './internal/retry';
import { indexClient, unindexClient } from './internal/search-index';
import { sortedBy } from '@/lib/db/order';

/** Chef's user-name rule (lowercase letters, digits, '-' and '_'). */
export const CHEF_USER_NAME = /^[a-z0-9_-]{1,255}$/;
/** Chef's client-name rule. */
export const CHEF_CLIENT_NAME = /^[A-Za-z0-9_.-]{1,255}$/;
export const KEY_NAME = /^[A-Za-z0-9_.-]{1,255}$/;

export type KeyOwner = { kind: 'user' | 'client'; name: string };

export interface KeyDto {
  name: string;
  publicKey: string;
  expiresAt: Date | null;
  expired: boolean;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** A new RSA key pair in the formats Chef's tools read (PKCS#1 private key, SPKI public key). */
export function generateChefKeyPair(): { publicKey: string; privateKey: string } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  return { publicKey, privateKey };
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

function checkedPublicKey(pem: string, field = '/public_key'): string {
  if (typeof pem !== 'string' || /PRIVATE KEY/.test(pem) || !normalisePublicKey(pem)) throw badRequest('Invalid public key: it must be an RSA public key in PEM format', [{ path: field, message: 'public_key must be an RSA public key in PEM format' }]);
  return pem;
}

function expiresFrom(v: string | undefined): Date | null | undefined {
  if (v === undefined) return undefined;
  return v === 'infinity' ? null : new Date(v);
}

function toDto(k: { name: string; publicKey: string; expiresAt: Date | null; createdAt: Date; lastUsedAt: Date | null }, now = new Date()): KeyDto {
  return { ...k, expired: !!k.expiresAt && k.expiresAt <= now };
}

/** The owner row of a key set: a user (by Chef user name) or a client. 404 when missing. */
async function ownerRef(tx: Tx, owner: KeyOwner): Promise<{ userId?: string; clientId?: string; label: string }> {
  if (owner.kind === 'user') {
    const u = await tx.user.findUnique({ where: { chefName: owner.name }, select: { id: true } });
    if (!u) throw chefStringError('not_found', `Could not find user ${owner.name}`);
    return { userId: u.id, label: owner.name };
  }
  const c = await tx.chefClient.findUnique({ where: { name: owner.name }, select: { id: true } });
  if (!c) throw notFound(`Cannot load client ${owner.name}`);
  return { clientId: c.id, label: owner.name };
}

/**
 * Who may see and change a key set (pedant's rules): public keys are readable
 * by every user of the organization, and a client may read its own; a user's
 * keys are changed only by that user (not even by an admin, as Chef's org
 * admins cannot), a client's keys by admins. Clients change no keys.
 */
function assertKeyAccess(r: Requestor, owner: KeyOwner, write: boolean) {
  if (r.kind === 'client') {
    if (owner.kind === 'client' && owner.name === r.name && !write && !r.validator) return;
    throw forbidden(`missing ${write ? 'update' : 'read'} permission`);
  }
  if (!write) return;
  if (owner.kind === 'client') assertCan(r.access, 'admin.users');
  // User keys: checked against the owner row by id in assertOwnUser.
}

async function assertOwnUser(tx: Tx, r: Requestor, ref: { userId?: string }, owner: KeyOwner, write = true) {
  if (write && r.kind === 'user' && owner.kind === 'user' && ref.userId !== r.access.userId) {
    throw forbidden(`Only '${owner.name}' may change the keys of '${owner.name}'.`);
  }
}

/** The key that signed this request may not be changed or deleted by that request (Chef's rule). */
function assertNotSigningKey(r: Requestor, owner: KeyOwner, keyName: string) {
  const via = r.kind === 'user' ? r.access.via : r.via;
  if (via === `chef-key:${owner.name}/${keyName}`) {
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

export async function listKeys(r: Requestor, owner: KeyOwner): Promise<KeyDto[]> {
  assertKeyAccess(r, owner, false);
  const client = db();
  const ref = await ownerRef(client, owner);
  await assertOwnUser(client, r, ref, owner, false);
  const keys = await client.chefKey.findMany({ where: ownerWhere(ref), orderBy: { name: 'asc' }, select: { name: true, publicKey: true, expiresAt: true, createdAt: true, lastUsedAt: true } }).then(sortedBy((k) => k.name));
  return keys.map((k) => toDto(k));
}

export async function getKey(r: Requestor, owner: KeyOwner, keyName: string): Promise<KeyDto> {
  assertKeyAccess(r, owner, false);
  const client = db();
  const ref = await ownerRef(client, owner);
  await assertOwnUser(client, r, ref, owner, false);
  const key = await client.chefKey.findFirst({ where: { ...ownerWhere(ref), name: keyName }, select: { name: true, publicKey: true, expiresAt: true, createdAt: true, lastUsedAt: true } });
  if (!key) throw noSuchKey(owner, keyName);
  return toDto(key);
}

/** Adds a key; with `create_key` the private key is generated and returned once. 409 when the name is taken. */
export async function createKey(r: Requestor, owner: KeyOwner, raw: unknown, requestId?: string): Promise<{ key: KeyDto; privateKey?: string }> {
  assertKeyAccess(r, owner, true);
  const input = parseInput(ZCreateKeyInput, raw);
  const pair = input.create_key ? generateChefKeyPair() : null;
  const publicKey = pair ? pair.publicKey : checkedPublicKey(input.public_key!);
  return transaction(async (tx) => {
    const ref = await ownerRef(tx, owner);
    await assertOwnUser(tx, r, ref, owner);
    const taken = await tx.chefKey.findFirst({ where: { ...ownerWhere(ref), name: input.name }, select: { id: true } });
    if (taken) throw keyExists(input.name);
    const key = await tx.chefKey.create({
      data: { ...ownerWhere(ref), name: input.name, publicKey, expiresAt: expiresFrom(input.expiration_date) ?? null },
      select: { name: true, publicKey: true, expiresAt: true, createdAt: true, lastUsedAt: true },
    });
    await audit(tx, requestorActor(r), {
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
export async function updateKey(r: Requestor, owner: KeyOwner, keyName: string, raw: unknown, requestId?: string): Promise<{ key: KeyDto; privateKey?: string; renamed: boolean }> {
  assertKeyAccess(r, owner, true);
  const input = parseInput(ZUpdateKeyInput, raw);
  if (input.name === undefined && input.expiration_date === undefined && input.public_key === undefined && !input.create_key) {
    throw chefStringError('bad_request', "At least one of 'name', 'expiration_date', or 'public_key' must be specified");
  }
  const pair = input.create_key ? generateChefKeyPair() : null;
  const publicKey = pair ? pair.publicKey : input.public_key !== undefined ? checkedPublicKey(input.public_key) : undefined;
  return transaction(async (tx) => {
    const ref = await ownerRef(tx, owner);
    await assertOwnUser(tx, r, ref, owner);
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
    await audit(tx, requestorActor(r), {
      action: 'chef-key.update',
      targetType: 'chef-key',
      target: `${owner.kind}:${owner.name}/${keyName}`,
      after: { name: updated.name, expires: input.expiration_date, replaced: publicKey !== undefined },
      requestId,
    });
    return { key: toDto(updated), privateKey: pair?.privateKey, renamed };
  });
}

export async function deleteKey(r: Requestor, owner: KeyOwner, keyName: string, requestId?: string): Promise<KeyDto> {
  assertKeyAccess(r, owner, true);
  return transaction(async (tx) => {
    const ref = await ownerRef(tx, owner);
    await assertOwnUser(tx, r, ref, owner);
    const key = await tx.chefKey.findFirst({ where: { ...ownerWhere(ref), name: keyName }, select: { id: true, name: true, publicKey: true, expiresAt: true, createdAt: true, lastUsedAt: true } });
    if (!key) throw noSuchKey(owner, keyName);
    assertNotSigningKey(r, owner, keyName);
    await tx.chefKey.delete({ where: { id: key.id } });
    await audit(tx, requestorActor(r), { action: 'chef-key.delete', targetType: 'chef-key', target: `${owner.kind}:${owner.name}/${keyName}`, requestId });
    return toDto(key);
  });
}

/** Reserves a Chef actor name for a user or a client; 409 when a user or client already has it. */
export async function claimChefName(tx: Tx, name: string, kind: 'user' | 'client', message: string) {
  const taken = await tx.chefName.findUnique({ where: { name }, select: { name: true } });
  if (taken) throw conflict(message);
  try {
    await tx.chefName.create({ data: { name, kind } });
  } catch (e) {
    if ((e as { code?: string }).code === 'P2002') throw conflict(message);
    throw e;
  }
}

/** A user's Chef name, derived from the e-mail address when the user has none yet (Chef's user-name rule, unique). */
export async function ensureChefUserName(tx: Tx, userId: string): Promise<string> {
  const u = await tx.user.findUniqueOrThrow({ where: { id: userId }, select: { chefName: true, email: true } });
  if (u.chefName) return u.chefName;
  const base = (u.email.split('@')[0].toLowerCase().replace(/[^a-z0-9_-]/g, '-').replace(/^-+|-+$/g, '') || 'user').slice(0, 200);
  for (let i = 0; i < 100; i++) {
    const name = i === 0 ? base : `${base}-${i + 1}`;
    if (await tx.chefName.findUnique({ where: { name }, select: { name: true } })) continue;
    await tx.chefName.create({ data: { name, kind: 'user' } });
    await tx.user.update({ where: { id: userId }, data: { chefName: name } });
    return name;
  }
  throw new AppError('conflict', `No free Chef user name for ${u.email}`);
}

// ---------------------------------------------------------------- clients

export const ZCreateClientInput = z
  .object({
    name: z.string().regex(CHEF_CLIENT_NAME, "may contain only letters, digits, '.', '_' and '-' (1 to 255)"),
    clientname: z.string().optional(),
    public_key: z.string().min(1).optional(),
    create_key: z.boolean().optional(),
    validator: z.boolean().optional(),
    admin: z.boolean().optional(),
    json_class: z.string().optional(),
    chef_type: z.string().optional(),
  })
  .passthrough();

export interface ClientDto {
  name: string;
  validator: boolean;
  createdAt: Date;
  lastSeenAt: Date | null;
  keys: number;
}

function assertClientAdmin(r: Requestor, verb: 'update' | 'delete') {
  if (r.kind === 'client') throw clientForbidden(verb);
  assertCan(r.access, 'admin.users');
}

/**
 * POST /clients: the validator (a node registering itself) or an admin.
 * `create_key` (or, in API v0, no public key at all) makes the server
 * generate the key pair and return the private key once.
 */
/** Chef's checks of a client body, with its messages (one, the first). */
function chefClientBody(raw: unknown, opts: { create: boolean; apiVersion: number }): z.infer<typeof ZCreateClientInput> {
  const b = (raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as Record<string, unknown>;
  const fail = (message: string, path = '') => {
    throw badRequest(message, [{ path, message }]);
  };
  if (opts.create && b.name === undefined && b.clientname === undefined) fail("Field 'name' missing", '/name');
  const name = b.name ?? b.clientname;
  if (name !== undefined && (typeof name !== 'string' || !CHEF_CLIENT_NAME.test(name))) {
    fail(`Invalid client name '${String(name)}' using regex: 'Malformed client name.  Must be A-Z, a-z, 0-9, _, -, or .'.`, '/name');
  }
  if (b.name !== undefined && b.clientname !== undefined && b.name !== b.clientname) fail('name and clientname must match', '/clientname');
  if (opts.create) {
    if (b.private_key === true) fail('Please use create_key: true instead of private_key: true', '/private_key');
    if (b.public_key !== undefined && b.create_key === true) fail('You must specify either create_key or public_key, but not both', '/create_key');
  } else if (opts.apiVersion >= 1 && (b.public_key !== undefined || b.create_key !== undefined || b.private_key !== undefined)) {
    fail('Since Server API v1, all keys must be updated via the keys endpoint. ', '/public_key');
  }
  if (b.public_key !== undefined && (typeof b.public_key !== 'string' || /PRIVATE KEY/.test(b.public_key) || !normalisePublicKey(b.public_key))) fail('Public Key must be a valid key.', '/public_key');
  return parseInput(ZCreateClientInput, { ...b, name: name ?? '' });
}

/** Chef's 403 for a client acting on clients: "missing <verb> permission". */
function clientForbidden(verb: 'create' | 'read' | 'update' | 'delete') {
  return forbidden(`missing ${verb} permission`);
}

export async function createClient(r: Requestor, raw: unknown, opts: { apiVersion: number; requestId?: string }): Promise<{ client: ClientDto; key: KeyDto | null; privateKey?: string }> {
  if (r.kind === 'client' ? !clientMay(r, 'client.register') : !r.access.isAdmin) {
    throw r.kind === 'client' ? clientForbidden('create') : forbidden('Only administrators and the validator may create clients.');
  }
  const input = chefClientBody(raw, { create: true, apiVersion: opts.apiVersion });
  if (input.validator && r.kind === 'client') throw forbidden('The validator may not create validator clients.');
  const generate = input.create_key === true || (!input.public_key && opts.apiVersion === 0);
  const pair = generate ? generateChefKeyPair() : null;
  const publicKey = pair ? pair.publicKey : input.public_key ? checkedPublicKey(input.public_key) : null;
  return transaction(async (tx) => {
    await claimChefName(tx, input.name, 'client', 'Client already exists');
    const client = await tx.chefClient.create({ data: { name: input.name, validator: !!input.validator }, select: { id: true, name: true, validator: true, createdAt: true, lastSeenAt: true } });
    await indexClient(tx, client);
    let key: KeyDto | null = null;
    if (publicKey) {
      const k = await tx.chefKey.create({ data: { clientId: client.id, name: 'default', publicKey }, select: { name: true, publicKey: true, expiresAt: true, createdAt: true, lastUsedAt: true } });
      key = toDto(k);
    }
    await audit(tx, requestorActor(r), { action: 'client.create', targetType: 'client', target: input.name, after: { validator: client.validator, key: !!publicKey }, requestId: opts.requestId });
    return { client: { name: client.name, validator: client.validator, createdAt: client.createdAt, lastSeenAt: client.lastSeenAt, keys: key ? 1 : 0 }, key, privateKey: pair?.privateKey };
  });
}

export async function getClient(r: Requestor, name: string): Promise<ClientDto> {
  // Clients read no client objects, not even their own (the console's rule; Chef lets a client read itself).
  if (r.kind === 'client') throw clientForbidden('read');
  const c = await db().chefClient.findUnique({ where: { name }, select: { name: true, validator: true, createdAt: true, lastSeenAt: true, _count: { select: { keys: true } } } });
  if (!c) throw notFound(`Cannot load client ${name}`);
  return { name: c.name, validator: c.validator, createdAt: c.createdAt, lastSeenAt: c.lastSeenAt, keys: c._count.keys };
}

export async function listClients(r: Requestor): Promise<ClientDto[]> {
  if (r.kind === 'client') throw forbidden(`Client '${r.name}' may not list clients.`);
  const rows = await db().chefClient.findMany({ orderBy: { name: 'asc' }, select: { name: true, validator: true, createdAt: true, lastSeenAt: true, _count: { select: { keys: true } } } }).then(sortedBy((c) => c.name));
  return rows.map((c) => ({ name: c.name, validator: c.validator, createdAt: c.createdAt, lastSeenAt: c.lastSeenAt, keys: c._count.keys }));
}

export const ZUpdateClientInput = z
  .object({
    name: z.string().regex(CHEF_CLIENT_NAME, "may contain only letters, digits, '.', '_' and '-' (1 to 255)").optional(),
    clientname: z.string().optional(),
    validator: z.boolean().optional(),
    admin: z.boolean().optional(),
    public_key: z.string().min(1).optional(),
    private_key: z.boolean().optional(),
    json_class: z.string().optional(),
    chef_type: z.string().optional(),
  })
  .passthrough();

/** PUT /clients/:name (admin): validator flag, rename, or a replaced default key. 201 when renamed. */
export async function updateClient(r: Requestor, name: string, raw: unknown, opts: { apiVersion?: number; requestId?: string } = {}): Promise<{ client: ClientDto; renamed: boolean; privateKey?: string }> {
  assertClientAdmin(r, 'update');
  chefClientBody(raw, { create: false, apiVersion: opts.apiVersion ?? 2 });
  const requestId = opts.requestId;
  const input = parseInput(ZUpdateClientInput, raw);
  const pair = input.private_key === true ? generateChefKeyPair() : null;
  const publicKey = pair ? pair.publicKey : input.public_key ? checkedPublicKey(input.public_key) : undefined;
  return transaction(async (tx) => {
    const c = await tx.chefClient.findUnique({ where: { name }, select: { id: true, validator: true } });
    if (!c) throw notFound(`Cannot load client ${name}`);
    const renamed = input.name !== undefined && input.name !== name;
    if (renamed) {
      await claimChefName(tx, input.name!, 'client', 'Client already exists');
      await tx.chefName.delete({ where: { name } });
    }
    const updated = await tx.chefClient.update({
      where: { id: c.id },
      data: { name: input.name, validator: input.validator },
      select: { name: true, validator: true, createdAt: true, lastSeenAt: true, _count: { select: { keys: true } } },
    });
    await indexClient(tx, updated, name);
    if (publicKey) {
      await tx.chefKey.deleteMany({ where: { clientId: c.id, name: 'default' } });
      await tx.chefKey.create({ data: { clientId: c.id, name: 'default', publicKey } });
    }
    await audit(tx, requestorActor(r), { action: 'client.update', targetType: 'client', target: name, after: { name: updated.name, validator: updated.validator, key: !!publicKey }, requestId });
    return { client: { name: updated.name, validator: updated.validator, createdAt: updated.createdAt, lastSeenAt: updated.lastSeenAt, keys: updated._count.keys }, renamed, privateKey: pair?.privateKey };
  });
}

export async function deleteClient(r: Requestor, name: string, requestId?: string): Promise<ClientDto> {
  assertClientAdmin(r, 'delete');
  return transaction(async (tx) => {
    const c = await tx.chefClient.findUnique({ where: { name }, select: { id: true, name: true, validator: true, createdAt: true, lastSeenAt: true, _count: { select: { keys: true } } } });
    if (!c) throw notFound(`Cannot load client ${name}`);
    await tx.chefClient.delete({ where: { id: c.id } });
    await unindexClient(tx, name);
    await tx.chefName.deleteMany({ where: { name } });
    await audit(tx, requestorActor(r), { action: 'client.delete', targetType: 'client', target: name, before: { validator: c.validator }, requestId });
    return { name: c.name, validator: c.validator, createdAt: c.createdAt, lastSeenAt: c.lastSeenAt, keys: c._count.keys };
  });
}

/** The organization's validator client name, as Chef names it. */
export function validatorName(org: string): string {
  return `${org}-validator`;
}

/**
 * Creates the validator client, or rotates its key: every old key is removed
 * and one new 'default' key is made. Returns the private key (shown once).
 */
export async function rotateValidator(actor: Actor, org: string): Promise<{ name: string; privateKey: string; created: boolean }> {
  const name = validatorName(org);
  const pair = generateChefKeyPair();
  return transaction(async (tx) => {
    let c = await tx.chefClient.findUnique({ where: { name }, select: { id: true } });
    const created = !c;
    if (!c) {
      await claimChefName(tx, name, 'client', `The name '${name}' is taken by a user or client`);
      c = await tx.chefClient.create({ data: { name, validator: true }, select: { id: true } });
    } else {
      await tx.chefClient.update({ where: { id: c.id }, data: { validator: true } });
      await tx.chefKey.deleteMany({ where: { clientId: c.id } });
    }
    await indexClient(tx, { name, validator: true });
    await tx.chefKey.create({ data: { clientId: c.id, name: 'default', publicKey: pair.publicKey } });
    await audit(tx, actor, { action: created ? 'client.create' : 'client.rotate-key', targetType: 'client', target: name, after: { validator: true } });
    return { name, privateKey: pair.privateKey, created };
  });
}

/**
 * Adds a key for a user (by Chef user name or e-mail), giving the user a Chef
 * name first if needed. The key is called 'default' when the user has none of
 * that name, else `key-<n>`. For scripts and the console ("Create key").
 */
export async function addUserKey(actor: Actor, userRef: string, opts: { name?: string; expiresAt?: Date | null } = {}): Promise<{ userName: string; keyName: string; privateKey: string }> {
  const pair = generateChefKeyPair();
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


// ------------------------------------------------------------- console use

/** The signed-in user as a Chef key owner, giving them a Chef user name first if they have none. */
async function selfOwner(access: Access): Promise<KeyOwner> {
  const name = await transaction((tx) => ensureChefUserName(tx, access.userId));
  return { kind: 'user', name };
}

/** Console: generate a key pair for yourself; the private key is returned once. */
export async function createOwnKey(access: Access, input: { name: string; expiresAt?: string | null }): Promise<{ privateKey: string; name: string; userName: string }> {
  const owner = await selfOwner(access);
  const r = await createKey({ kind: 'user', access }, owner, { name: input.name, create_key: true, expiration_date: input.expiresAt || 'infinity' });
  return { privateKey: r.privateKey!, name: r.key.name, userName: owner.name };
}

/** Console: register a public key you made yourself (e.g. with openssl or ssh-keygen -m PEM). */
export async function registerOwnKey(access: Access, input: { name: string; publicKey: string; expiresAt?: string | null }) {
  const owner = await selfOwner(access);
  const r = await createKey({ kind: 'user', access }, owner, { name: input.name, public_key: input.publicKey, expiration_date: input.expiresAt || 'infinity' });
  return { name: r.key.name };
}

/** Console: expire one of your keys now (it stays listed, and no longer signs). */
export async function expireOwnKey(access: Access, name: string) {
  const owner = await selfOwner(access);
  await updateKey({ kind: 'user', access }, owner, name, { expiration_date: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') });
}

export async function deleteOwnKey(access: Access, name: string) {
  await deleteKey({ kind: 'user', access }, await selfOwner(access), name);
}

/** Console: your Chef user name and keys (a name is given on first visit). */
export async function ownKeys(access: Access): Promise<{ userName: string; keys: KeyDto[] }> {
  const owner = await selfOwner(access);
  return { userName: owner.name, keys: await listKeys({ kind: 'user', access }, owner) };
}

/** Console (admin): rotate the validator's key; the private key is returned once. */
export async function rotateValidatorFor(access: Access, org: string) {
  assertCan(access, 'admin.users');
  return rotateValidator(access, org);
}
