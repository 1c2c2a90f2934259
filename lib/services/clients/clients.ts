/**
 * Chef clients: nodes' machine identities and the organization's validator
 * (Chef's /clients). A client's default key may be generated here (returned
 * once, never stored).
 */
import { z } from 'zod';
import { db, type Tx } from '@/lib/db/client';
import { withActorGroups, claimChefName, releaseClientName, stageValidatorName, validatorName } from '@/lib/services/organizations';
import { assertCan, can, type Access, type Action, type Actor, type Resource } from '@/lib/auth/permissions';
import { badRequest, conflict, forbidden, notFound } from '@/lib/errors';
import { audit, type AuditActor, parseInput, transaction } from '@/lib/services/funnel';
import { indexClient, unindexClient } from '../../db/queries/search-index';
import { sortedBy } from '@/lib/db/order';
import { CHEF_CLIENT_NAME, checkedPublicKey, generateChefKeyPair, normalisePublicKey } from '@/lib/auth/key-pairs';
import { toDto, type KeyDto } from '@/lib/services/keys';
import { HOME_ORG_ID } from '@/lib/domain/organizations';
import { assertNodeClientRights, mayEnroll } from '@/lib/services/stages';

/**
 * Issue 23 (step 4): which organization's clients a call is about (default: the home organization's). Clients
 * of another organization are found only there; what is about Chef objects (the node-name check, the search
 * index, nodes hidden by stage) applies to the home organization only, where the objects are.
 */
export interface ClientOrg {
  orgId?: string;
}
const orgOf = (o?: ClientOrg) => o?.orgId ?? HOME_ORG_ID;
const isHome = (o?: ClientOrg) => orgOf(o) === HOME_ORG_ID;

export const ZCreateClientInput = z
  .object({
    name: z.string().regex(CHEF_CLIENT_NAME, "may contain only letters, digits, '.', '_' and '-' (1 to 255)"),
    clientname: z.string().optional(),
    public_key: z.string().min(1).optional(),
    create_key: z.boolean().optional(),
    validator: z.boolean().optional(),
    /** Ignored, as erchef ignores it (clients are not admins; pedant sends "true" as a string). */
    admin: z.unknown().optional(),
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
  /** The public key of the client's key named 'default' (Chef's API v0 shows it as the client's `public_key`). */
  publicKey?: string | null;
}

/** The client's key named 'default', whose public key API v0 shows (clientJson); search rows select it too. */
export const DEFAULT_KEY = { where: { name: 'default' }, select: { publicKey: true } } as const;

/**
 * A client as Chef's API shows it (erchef's client JSON), for GET, PUT and
 * DELETE /clients/:name and for search rows alike (pedant compares a search
 * row with the GET): API v0 adds the default key's `public_key`, first, as
 * erchef writes it. No version (the console's own callers): the body without it.
 */
export function clientJson(c: { name: string; validator: boolean; publicKey?: string | null }, org: string, apiVersion?: number) {
  const base = { name: c.name, clientname: c.name, orgname: org, validator: c.validator, json_class: 'Chef::ApiClient', chef_type: 'client' };
  return apiVersion === 0 && c.publicKey ? { public_key: c.publicKey, ...base } : base;
}

/** The permission table's client rows (admins; a client itself; the validator registers), refused as erchef does. */
function assertClient(r: Actor, action: Action, verb: 'create' | 'read' | 'update' | 'delete', resource: Resource = {}) {
  if (!can(r, action, resource)) throw chefMissing(verb);
}

/**
 * POST /clients: the validator (a node registering itself) or an admin.
 * `create_key` (or, in API v0, no public key at all) makes the server
 * generate the key pair and return the private key once.
 */
/** Chef's checks of a client body, with its messages (one, the first). */
function chefClientFields(raw: unknown, opts: { create: boolean; apiVersion: number }): Record<string, unknown> {
  const b0 = (raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as Record<string, unknown>;
  // API v0: `public_key: null` is no key (erchef generates one on create and keeps the current one on update).
  const b = opts.apiVersion === 0 && b0.public_key === null ? Object.fromEntries(Object.entries(b0).filter(([k]) => k !== 'public_key')) : b0;
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
    if (b.private_key === true && opts.apiVersion >= 1) fail('Please use create_key: true instead of private_key: true', '/private_key');
    if (b.public_key !== undefined && b.create_key === true) fail('You must specify either create_key or public_key, but not both', '/create_key');
  } else if (opts.apiVersion >= 1 && (b.public_key !== undefined || b.create_key !== undefined || b.private_key !== undefined)) {
    fail('Since Server API v1, all keys must be updated via the keys endpoint. ', '/public_key');
  } else if (opts.apiVersion === 0 && b.private_key !== undefined && typeof b.private_key !== 'boolean') {
    fail("Field 'private_key' invalid", '/private_key');
  }
  if (b.public_key !== undefined && (typeof b.public_key !== 'string' || /PRIVATE KEY/.test(b.public_key) || !normalisePublicKey(b.public_key))) fail('Public Key must be a valid key.', '/public_key');
  return { ...b, ...(name !== undefined ? { name } : {}) };
}

/** erchef's 403: "missing <verb> permission". */
function chefMissing(verb: 'create' | 'read' | 'update' | 'delete') {
  return forbidden(`missing ${verb} permission`);
}

/**
 * Issue 28: a node's name is claimed once. The validator registers a client
 * only for a name with no node object, or whose node was created by a client
 * of that same name (the registration flow: validator → POST /clients → the
 * new client's POST /nodes). Any other existing node (created by a user,
 * reported through /api/v1, seeded) belongs to its creator, as a node's ACL
 * does in Chef Server: taking it over needs an administrator.
 * Issue 41: and only when the node is in no stage or in one the validator may
 * enroll into (docs/stage-binding.md: the plain validator's key must not give
 * back a production node whose client an admin deleted).
 */
async function assertNodeNameFree(tx: Tx, validator: Actor & { kind: 'client' }, name: string): Promise<void> {
  const node = await tx.node.findUnique({ where: { name }, select: { registeredByClient: true, group: { select: { name: true, openEnrollment: true } } } });
  if (node && node.registeredByClient !== name) {
    throw forbidden(`Node '${name}' already exists and was not registered by a client of that name: the validator may not create a client for it. Taking over an existing node needs an administrator (create the client as an admin, or delete the node first).`);
  }
  if (node?.group && !mayEnroll(validator.enrollStage, node.group)) {
    const why = validator.enrollStage ? `this validator enrolls only into stage '${validator.enrollStage}'` : `stage '${node.group.name}' does not allow open enrollment`;
    throw forbidden(`Node '${name}' is in stage '${node.group.name}' and ${why}: the validator may not create a client for it. Register it with ${node.group.name}'s stage validator, or have an administrator create the client.`);
  }
}

export async function createClient(r: Actor, raw: unknown, opts: { apiVersion: number; requestId?: string } & ClientOrg): Promise<{ client: ClientDto; key: KeyDto | null; privateKey?: string }> {
  assertClient(r, 'client.create', 'create', await withActorGroups(r, {}, { orgId: orgOf(opts) }));
  const input = parseInput(ZCreateClientInput, chefClientFields(raw, { create: true, apiVersion: opts.apiVersion }));
  if (input.validator) assertClient(r, 'client.create-validator', 'create');
  const generate = input.create_key === true || (!input.public_key && opts.apiVersion === 0);
  const pair = generate ? await generateChefKeyPair() : null;
  const publicKey = pair ? pair.publicKey : input.public_key ? checkedPublicKey(input.public_key) : null;
  // Issue 41: a validator's clients enroll where it does (a stage validator's stage, or the open stages).
  const enrollStage = r.kind === 'client' && r.validator && !input.validator ? (r.enrollStage ?? null) : null;
  return transaction(async (tx) => {
    await claimChefName(tx, input.name, 'client', 'Client already exists', orgOf(opts));
    if (isHome(opts)) {
      if (r.kind === 'client') await assertNodeNameFree(tx, r, input.name);
      else await assertNodeClientRights(tx, r, input.name, `create client '${input.name}'`);
    }
    const client = await tx.chefClient.create({ data: { name: input.name, validator: !!input.validator, orgId: orgOf(opts), enrollStage }, select: { id: true, name: true, validator: true, createdAt: true, lastSeenAt: true } });
    if (isHome(opts)) await indexClient(tx, client);
    let key: KeyDto | null = null;
    if (publicKey) {
      const k = await tx.chefKey.create({ data: { clientId: client.id, name: 'default', publicKey }, select: { name: true, publicKey: true, expiresAt: true, createdAt: true, lastUsedAt: true } });
      key = toDto(k);
    }
    await audit(tx, r, { action: 'client.create', targetType: 'client', target: input.name, after: { validator: client.validator, key: !!publicKey }, requestId: opts.requestId });
    return { client: { name: client.name, validator: client.validator, createdAt: client.createdAt, lastSeenAt: client.lastSeenAt, keys: key ? 1 : 0 }, key, privateKey: pair?.privateKey };
  });
}

/**
 * Issue 28: a node's client is named like the node, so a client list would
 * reveal the nodes of stages the reader may not see (GET /nodes/:name answers
 * 404 for them). The names among `names` that are nodes in such stages.
 */
async function hiddenNodeNames(actor: Actor, names: string[]): Promise<Set<string>> {
  if (!names.length) return new Set();
  const nodes = await db().node.findMany({ where: { name: { in: names } }, select: { name: true, group: { select: { name: true } } } });
  return new Set(nodes.filter((n) => !can(actor, 'node.read', { node: n.name, stage: n.group?.name ?? null })).map((n) => n.name));
}

/**
 * erchef loads a named client before it decides who may act on it: a missing one is 404 for everyone (knife's
 * `client create` asks with a PUT first and creates on the 404, the validator included).
 */
async function assertClientExists(name: string, org?: ClientOrg): Promise<void> {
  const c = await db().chefClient.findUnique({ where: { orgId_name: { orgId: orgOf(org), name } }, select: { id: true } });
  if (!c) throw notFound(`Cannot load client ${name}`);
}

export async function getClient(r: Actor, name: string, org?: ClientOrg): Promise<ClientDto> {
  const c = await db().chefClient.findUnique({ where: { orgId_name: { orgId: orgOf(org), name } }, select: { name: true, validator: true, createdAt: true, lastSeenAt: true, _count: { select: { keys: true } }, keys: DEFAULT_KEY } });
  if (!c) throw notFound(`Cannot load client ${name}`);
  // Users read every client; a client itself only (Chef's default).
  assertClient(r, 'client.read', 'read', { client: name });
  if (isHome(org) && (await hiddenNodeNames(r, [name])).has(name)) throw notFound(`Cannot load client ${name}`);
  return { name: c.name, validator: c.validator, createdAt: c.createdAt, lastSeenAt: c.lastSeenAt, keys: c._count.keys, publicKey: c.keys[0]?.publicKey ?? null };
}

export async function listClients(r: Actor, org?: ClientOrg): Promise<ClientDto[]> {
  assertCan(r, 'client.list');
  const all = await db().chefClient.findMany({ where: { orgId: orgOf(org) }, orderBy: { name: 'asc' }, select: { name: true, validator: true, createdAt: true, lastSeenAt: true, _count: { select: { keys: true } } } }).then(sortedBy((c) => c.name));
  const hidden = isHome(org) ? await hiddenNodeNames(r, all.map((c) => c.name)) : new Set<string>();
  const rows = all.filter((c) => !hidden.has(c.name));
  return rows.map((c) => ({ name: c.name, validator: c.validator, createdAt: c.createdAt, lastSeenAt: c.lastSeenAt, keys: c._count.keys }));
}

export const ZUpdateClientInput = z
  .object({
    name: z.string().regex(CHEF_CLIENT_NAME, "may contain only letters, digits, '.', '_' and '-' (1 to 255)").optional(),
    clientname: z.string().optional(),
    validator: z.boolean().optional(),
    /** Ignored, as erchef ignores it (clients are not admins; pedant sends "true" as a string). */
    admin: z.unknown().optional(),
    public_key: z.string().min(1).optional(),
    private_key: z.boolean().optional(),
    json_class: z.string().optional(),
    chef_type: z.string().optional(),
  })
  .passthrough();

/** PUT /clients/:name (admin): validator flag, rename, or a replaced default key. 201 when renamed. */
export async function updateClient(r: Actor, name: string, raw: unknown, opts: { apiVersion?: number; requestId?: string } & ClientOrg = {}): Promise<{ client: ClientDto; renamed: boolean; privateKey?: string }> {
  await assertClientExists(name, opts);
  assertClient(r, 'client.update', 'update', await withActorGroups(r, { client: name }, { orgId: orgOf(opts) }));
  const fields = chefClientFields(raw, { create: false, apiVersion: opts.apiVersion ?? 2 });
  const requestId = opts.requestId;
  const input = parseInput(ZUpdateClientInput, fields);
  // Making a client a validator is an admin's (a client may not promote itself).
  if (input.validator) assertClient(r, 'client.create-validator', 'update');
  const pair = input.private_key === true ? await generateChefKeyPair() : null;
  const publicKey = pair ? pair.publicKey : input.public_key ? checkedPublicKey(input.public_key) : undefined;
  return transaction(async (tx) => {
    const c = await tx.chefClient.findUnique({ where: { orgId_name: { orgId: orgOf(opts), name } }, select: { id: true, validator: true } });
    if (!c) throw notFound(`Cannot load client ${name}`);
    const renamed = input.name !== undefined && input.name !== name;
    if (renamed) {
      await claimChefName(tx, input.name!, 'client', 'Client already exists', orgOf(opts));
      // Issue 41 (finding 3): a rename never takes an existing node's name from a client; a user needs the node's stage.
      if (isHome(opts)) await assertRenameFree(tx, r, input.name!);
      await releaseClientName(tx, name, orgOf(opts));
    }
    // Issue 41 (finding 6): replacing the key of a node's client (API v0) is a key write on that node's client.
    if (publicKey && isHome(opts)) await assertNodeClientRights(tx, r, name, `replace the key of client '${name}'`);
    const updated = await tx.chefClient.update({
      where: { id: c.id },
      data: { name: input.name, validator: input.validator },
      select: { name: true, validator: true, createdAt: true, lastSeenAt: true, _count: { select: { keys: true } }, keys: DEFAULT_KEY },
    });
    if (isHome(opts)) await indexClient(tx, updated, name);
    if (publicKey) {
      await tx.chefKey.deleteMany({ where: { clientId: c.id, name: 'default' } });
      await tx.chefKey.create({ data: { clientId: c.id, name: 'default', publicKey } });
    }
    const keys = updated._count.keys + (publicKey && !updated.keys.length ? 1 : 0);
    await audit(tx, r, { action: 'client.update', targetType: 'client', target: name, after: { name: updated.name, validator: updated.validator, key: !!publicKey }, requestId });
    return { client: { name: updated.name, validator: updated.validator, createdAt: updated.createdAt, lastSeenAt: updated.lastSeenAt, keys, publicKey: publicKey ?? updated.keys[0]?.publicKey ?? null }, renamed, privateKey: pair?.privateKey };
  });
}

export async function deleteClient(r: Actor, name: string, requestId?: string, org?: ClientOrg): Promise<ClientDto> {
  await assertClientExists(name, org);
  assertClient(r, 'client.delete', 'delete', await withActorGroups(r, { client: name }, { orgId: orgOf(org) }));
  return transaction(async (tx) => {
    const c = await tx.chefClient.findUnique({ where: { orgId_name: { orgId: orgOf(org), name } }, select: { id: true, name: true, validator: true, createdAt: true, lastSeenAt: true, _count: { select: { keys: true } }, keys: DEFAULT_KEY } });
    if (!c) throw notFound(`Cannot load client ${name}`);
    await tx.chefClient.delete({ where: { id: c.id } });
    if (isHome(org)) await unindexClient(tx, name);
    await releaseClientName(tx, name, orgOf(org));
    await audit(tx, r, { action: 'client.delete', targetType: 'client', target: name, before: { validator: c.validator }, requestId });
    return { name: c.name, validator: c.validator, createdAt: c.createdAt, lastSeenAt: c.lastSeenAt, keys: c._count.keys, publicKey: c.keys[0]?.publicKey ?? null };
  });
}


/**
 * Creates the validator client, or rotates its key: every old key is removed
 * and one new 'default' key is made. Returns the private key (shown once).
 * Issue 41: with `stage`, the stage validator `<org>-validator-<stage>` (its
 * clients may place their node only in that stage; the stage must exist);
 * without, the organization's plain validator (its clients enroll into the
 * stages with open enrollment).
 */
export async function rotateValidator(actor: AuditActor, org: string, opts: { stage?: string } = {}): Promise<{ name: string; privateKey: string; created: boolean; stage: string | null }> {
  const stage = opts.stage ?? null;
  // Client names take no ':' (stage names may): it becomes '.'.
  const name = stage === null ? validatorName(org) : stageValidatorName(org, stage).replace(/:/g, '.');
  if (!CHEF_CLIENT_NAME.test(name)) throw badRequest(`The stage validator's name '${name}' is longer than 255 characters.`, [{ path: '/stage', message: 'is too long for a validator name' }]);
  const pair = await generateChefKeyPair();
  return transaction(async (tx) => {
    if (stage !== null && !(await tx.policyGroup.findUnique({ where: { name: stage }, select: { id: true } }))) throw notFound(`Cannot find policy group '${stage}'`);
    let c = await tx.chefClient.findUnique({ where: { orgId_name: { orgId: HOME_ORG_ID, name } }, select: { id: true, validator: true, enrollStage: true } });
    if (c && stage !== null && (!c.validator || c.enrollStage !== stage)) throw conflict(`The name '${name}' is taken by a client that is not stage '${stage}''s validator.`);
    const created = !c;
    if (!c) {
      await claimChefName(tx, name, 'client', `The name '${name}' is taken by a user or client`);
      c = await tx.chefClient.create({ data: { name, validator: true, orgId: HOME_ORG_ID, enrollStage: stage }, select: { id: true, validator: true, enrollStage: true } });
    } else {
      await tx.chefClient.update({ where: { id: c.id }, data: { validator: true, enrollStage: stage } });
      await tx.chefKey.deleteMany({ where: { clientId: c.id } });
    }
    await indexClient(tx, { name, validator: true });
    await tx.chefKey.create({ data: { clientId: c.id, name: 'default', publicKey: pair.publicKey } });
    await audit(tx, actor, { action: created ? 'client.create' : 'client.rotate-key', targetType: 'client', target: name, groupName: stage, after: { validator: true, ...(stage !== null ? { enroll_stage: stage } : {}) } });
    return { name, privateKey: pair.privateKey, created, stage };
  });
}

/**
 * Issue 41 (finding 3): a rename into the name of an existing node: never by a client (a client named like a node
 * acts as it); by a user, with the node's stage rights (assertNodeClientRights).
 */
async function assertRenameFree(tx: Tx, actor: Actor, to: string): Promise<void> {
  if (!(await tx.node.findUnique({ where: { name: to }, select: { id: true } }))) return;
  if (actor.kind === 'client') throw forbidden(`Client '${actor.name}' may not rename itself to '${to}': a node has that name, and a client named like a node acts as that node. Only a user with rights on that node's stage may give a client its name.`);
  await assertNodeClientRights(tx, actor, to, `rename client to '${to}'`);
}

/** Console (admin): rotate the validator's key (with `stage`: that stage's validator); the private key is returned once. */
export async function rotateValidatorFor(access: Access, org: string, opts: { stage?: string } = {}) {
  assertCan(access, 'admin.users');
  return rotateValidator(access, org, opts);
}
