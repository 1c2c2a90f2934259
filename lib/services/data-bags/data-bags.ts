/**
 * Chef data bags and their items (GET/POST /data, GET/POST/DELETE /data/:bag,
 * GET/PUT/DELETE /data/:bag/:item), with erchef's validation, messages and
 * status codes, and the console's reads and writes of the same rows.
 *
 * Items are stored exactly as sent (an encrypted item, or a chef-vault item
 * and its `_keys` item, is opaque here: the server never holds a secret).
 *
 * Who may do what (docs/chef-compatibility.md, "Data bags"):
 * - Clients read every bag, as Chef's default lets them, except a bag with
 *   stage restrictions: then only clients whose node is in one of those
 *   stages. Clients never write. The validator does nothing here.
 * - Users: administrators do everything. A team granted `write` on a bag
 *   writes its items and deletes it; `read` reads it. Without a grant a user
 *   reads an unrestricted bag, and a restricted one when they may view one of
 *   its stages. Creating a bag needs a team (the creator's teams are granted
 *   `write` on it). Restrictions and grants are set by administrators.
 *
 * Every write is one transaction with its audit event (who, through which
 * key; before/after documents for plain items; for encrypted items only
 * which fields changed) and the search hook (internal/data-bag-index.ts).
 */
import { db, type Tx } from '@/lib/db/client';
import { actorLabel, assertCan, can, type Access, type Actor, type Resource } from '@/lib/auth/permissions';
import { AppError, badRequest, conflict, forbidden, notFound } from '@/lib/errors';
import { sortedBy } from '@/lib/db/order';
import type { DataBagItemKind, DataBagLevel } from '@/lib/types/data-bags';
import { audit, transaction, assertStorable } from '@/lib/services/funnel';
import { indexDataBagItem, unindexDataBag } from '../../db/queries/data-bag-index';
import { parseLossless, serializeJson } from '@/lib/domain';

export type { DataBagItemKind, DataBagLevel } from '@/lib/types/data-bags';

/** Chef's data bag name and item id rule (erchef chef_regex: `[.[:alnum:]_:-]+`), at most 255 characters here. */
export const DATA_BAG_NAME = /^[A-Za-z0-9_.:-]{1,255}$/;

/** Chef's search index names: a bag named like one would shadow it in search (`search(:node, …)`), so they are refused. */
export const RESERVED_DATA_BAG_NAMES: readonly string[] = ['node', 'client', 'role', 'environment'];

/** The most items one bag may hold (MAX_DATA_BAG_ITEMS, default 10,000). */
export function maxDataBagItems(): number {
  const n = Number(process.env.MAX_DATA_BAG_ITEMS);
  return Number.isInteger(n) && n > 0 ? n : 10_000;
}

type Doc = Record<string, unknown>;

function isObject(v: unknown): v is Doc {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

// ------------------------------------------------------------------ classification

/**
 * What an item is: Chef's encrypted format (a field whose value is an object
 * with `encrypted_data`, as Chef::EncryptedDataBagItem writes formats 1–3),
 * a chef-vault keys item (`ITEM_keys` with `admins` and `clients` lists), or
 * plain JSON.
 */
export function classifyItem(doc: Doc): { kind: DataBagItemKind; version: number | null; encryptedKeys: string[] } {
  const encryptedKeys: string[] = [];
  let version: number | null = null;
  for (const [k, v] of Object.entries(doc)) {
    if (k === 'id' || !isObject(v) || typeof v.encrypted_data !== 'string') continue;
    encryptedKeys.push(k);
    const ver = typeof v.version === 'number' ? v.version : 1;
    version = version === null ? ver : Math.max(version, ver);
  }
  if (encryptedKeys.length) return { kind: 'encrypted', version, encryptedKeys };
  if (typeof doc.id === 'string' && doc.id.endsWith('_keys') && Array.isArray(doc.admins) && Array.isArray(doc.clients)) return { kind: 'vault-keys', version: null, encryptedKeys: [] };
  return { kind: 'plain', version: null, encryptedKeys: [] };
}

/** What the audit log keeps of a document: plain items whole; encrypted items only which fields they hold; vault keys their actors. */
function auditView(doc: Doc | null): unknown {
  if (!doc) return undefined;
  const c = classifyItem(doc);
  if (c.kind === 'encrypted') return { encrypted: true, version: c.version, fields: c.encryptedKeys };
  if (c.kind === 'vault-keys') return { vault_keys: true, admins: doc.admins, clients: doc.clients, search_query: doc.search_query ?? null, mode: doc.mode ?? null };
  return doc;
}

// ------------------------------------------------------------------ validation (erchef's messages)

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest('invalid JSON', [{ path: '', message: 'Body must be valid JSON' }]);
  }
}

/** The stored text of an item that was wrapped (`raw_data`) or lacked its id: as sent, numbers as written. */
function exactItemText(text: string, wrapped: boolean, urlId?: string): string {
  let exact = parseLossless(text) as Doc;
  if (wrapped) exact = exact.raw_data as Doc;
  if (exact.id === undefined && urlId !== undefined) exact = { ...exact, id: urlId };
  return serializeJson(exact);
}

function requireObject(v: unknown): Doc {
  if (!isObject(v)) throw badRequest('Request body must be a JSON object', [{ path: '', message: 'Body must be a JSON object' }]);
  return v;
}

/** POST /data: `{"name": …}` by Chef's rule; other keys are ignored, as erchef stores only the name. */
export function validateBagBody(body: unknown): string {
  const b = requireObject(body);
  if (b.name === undefined) throw badRequest("Field 'name' missing", [{ path: '/name', message: "Field 'name' missing" }]);
  if (typeof b.name !== 'string' || !DATA_BAG_NAME.test(b.name)) throw badRequest("Field 'name' invalid", [{ path: '/name', message: "Field 'name' invalid: A-Z, a-z, 0-9, _, :, . or -, at most 255" }]);
  if (RESERVED_DATA_BAG_NAMES.includes(b.name)) {
    throw badRequest(`Field 'name' invalid: '${b.name}' is the name of a Chef search index (${RESERVED_DATA_BAG_NAMES.join(', ')})`, [{ path: '/name', message: 'the name of a Chef search index' }]);
  }
  return b.name;
}

/**
 * An item body as erchef reads it: a wrapped item (`json_class`
 * Chef::DataBagItem with `raw_data`) is unwrapped; on update a missing id is
 * taken from the URL and a different one is refused. Returns the document
 * and the text to store (the bytes as sent when nothing had to change).
 */
export function validateItemBody(text: string, urlId?: string): { doc: Doc; stored: string } {
  const parsed = requireObject(parseBody(text));
  let doc = parsed;
  let changed = false;
  const wrapped = parsed.json_class === 'Chef::DataBagItem' && parsed.raw_data !== undefined;
  if (wrapped) {
    doc = requireObject(parsed.raw_data);
    changed = true;
  }
  if (urlId !== undefined) {
    if (doc.id === undefined) {
      doc = { ...doc, id: urlId };
      changed = true;
    } else if (doc.id !== urlId) throw badRequest('DataBagItem name mismatch.', [{ path: '/id', message: `must be '${urlId}', the id in the URL` }]);
  }
  if (doc.id === undefined) throw badRequest("Field 'id' missing", [{ path: '/id', message: "Field 'id' missing" }]);
  if (typeof doc.id !== 'string' || !DATA_BAG_NAME.test(doc.id)) throw badRequest("Field 'id' invalid", [{ path: '/id', message: "Field 'id' invalid: A-Z, a-z, 0-9, _, :, . or -, at most 255" }]);
  // Issue 42: an unwrapped or completed item is written from a lossless reading, so its numbers keep their lexemes.
  const stored = changed ? exactItemText(text, wrapped, urlId) : text;
  assertStorable(stored, 'The data bag item');
  return { doc, stored };
}

// ------------------------------------------------------------------ rights

const BAG_SELECT = {
  id: true,
  name: true,
  itemCount: true,
  stages: { select: { stageName: true } },
  grants: { select: { teamId: true, level: true } },
} as const;

type Bag = { id: string; name: string; itemCount: number; stages: { stageName: string }[]; grants: { teamId: string; level: string }[] };

const stagesOf = (bag: Bag) => bag.stages.map((s) => s.stageName).sort();

/** A bag as the permission table sees it (`data.read`, `data.write`): its stage restriction and team grants. */
function bagResource(bag: Pick<Bag, 'stages' | 'grants'>): Resource {
  return { stages: bag.stages.map((s) => s.stageName), teamGrants: bag.grants };
}

/** A user's level on a bag (see the header). */
export function userBagLevel(access: Access, bag: Pick<Bag, 'stages' | 'grants'>): DataBagLevel {
  const resource = bagResource(bag);
  return can(access, 'data.write', resource) ? 'write' : can(access, 'data.read', resource) ? 'read' : 'none';
}

/** Users who may create bags: administrators and members of a team. */
export function userMayCreateBags(access: Access): boolean {
  return can(access, 'data.create');
}

function restrictedMessage(bag: Bag): string {
  const stages = stagesOf(bag);
  return `it is restricted to the clients of ${stages.length === 1 ? 'stage' : 'stages'} ${stages.join(', ')}`;
}

/** Search (issue 25): whether `r` may read bag `name` (its items, GET /search/NAME); null when there is no such bag. */
export async function bagReadable(r: Actor, name: string): Promise<boolean | null> {
  const bag = await loadBag(db(), name);
  return bag ? mayRead(r, bag) : null;
}

function mayRead(r: Actor, bag: Bag): boolean {
  return can(r, 'data.read', bagResource(bag));
}

function assertRead(r: Actor, bag: Bag): void {
  if (mayRead(r, bag)) return;
  // The validator reads no bag at all; others are told why this one is closed to them.
  assertCan(r, 'data.read');
  throw forbidden(`${actorLabel(r)} may not read data bag '${bag.name}': ${restrictedMessage(bag)}${r.kind === 'user' ? ', and you may view none of them' : ''}.`);
}

function assertWrite(r: Actor, bag: Bag): void {
  if (can(r, 'data.write', bagResource(bag))) return;
  throw forbidden(`${actorLabel(r)} may not change data bag '${bag.name}': only administrators and teams granted write on it may.`);
}

function assertCreate(r: Actor): void {
  assertCan(r, 'data.create');
}

// ------------------------------------------------------------------ Chef API

const loadBag = (tx: Tx, name: string) => tx.dataBag.findUnique({ where: { name }, select: BAG_SELECT }) as Promise<Bag | null>;

const bagNotFound = (name: string) => notFound(`Cannot load data bag ${name}`);
/** GET and PUT of a missing item (or of an item of a missing bag). */
const itemNotFound = (bag: string, item: string) => notFound(`Cannot load data bag item ${item} for data bag ${bag}`);
/** DELETE of a missing item. */
const itemNotFoundForDelete = (bag: string, item: string) => notFound(`Cannot load data bag ${bag} item ${item}`);

/** GET /data: the bags the requestor may read. */
export async function listDataBags(r: Actor): Promise<string[]> {
  assertCan(r, 'data.read');
  const bags = (await db().dataBag.findMany({ select: BAG_SELECT }).then(sortedBy((b) => b.name))) as Bag[];
  return bags.filter((b) => mayRead(r, b)).map((b) => b.name);
}

/** POST /data: 201 with the name; 409 "Data bag already exists". */
export async function createDataBag(r: Actor, body: unknown, requestId?: string): Promise<string> {
  const name = validateBagBody(body);
  assertCreate(r);
  return transaction(async (tx) => {
    if (await tx.dataBag.findUnique({ where: { name }, select: { id: true } })) throw conflict('Data bag already exists');
    const bag = await tx.dataBag.create({ data: { name }, select: { id: true } });
    // The creator's teams may write the new bag, unless the creator writes every bag without a grant (administrators).
    const teams = r.kind === 'user' && !can(r, 'data.write', {}) ? [...r.teamIds] : [];
    for (const teamId of teams) await tx.dataBagGrant.create({ data: { bagId: bag.id, teamId, level: 'write' } });
    await audit(tx, r, { action: 'data-bag.create', targetType: 'data-bag', target: name, after: { name, write_teams: teams }, requestId });
    return name;
  });
}

/** GET /data/:bag: item id → nothing (the route adds the uris). */
export async function listDataBagItems(r: Actor, bagName: string): Promise<string[]> {
  const d = db();
  const bag = await loadBag(d, bagName);
  if (!bag) throw bagNotFound(bagName);
  assertRead(r, bag);
  const items = await d.dataBagItem.findMany({ where: { bagId: bag.id }, select: { itemId: true } }).then(sortedBy((i) => i.itemId));
  return items.map((i) => i.itemId);
}

/** DELETE /data/:bag: the bag and all its items; answers Chef's naked bag. */
export async function deleteDataBag(r: Actor, bagName: string, requestId?: string): Promise<{ name: string; json_class: string; chef_type: string }> {
  return transaction(async (tx) => {
    const bag = await loadBag(tx, bagName);
    if (!bag) throw bagNotFound(bagName);
    assertRead(r, bag);
    assertWrite(r, bag);
    const items = await tx.dataBagItem.findMany({ where: { bagId: bag.id }, select: { itemId: true } }).then(sortedBy((i) => i.itemId));
    await unindexDataBag(tx, bagName);
    await tx.dataBag.delete({ where: { id: bag.id } });
    await audit(tx, r, { action: 'data-bag.delete', targetType: 'data-bag', target: bagName, before: { name: bagName, stages: stagesOf(bag), items: items.map((i) => i.itemId) }, requestId });
    return { name: bagName, json_class: 'Chef::DataBag', chef_type: 'data_bag' };
  });
}

/** Chef's answer to an item write: the item with `chef_type` and `data_bag` set. */
function withTypeAndBag(doc: Doc, bag: string): Doc {
  return { ...doc, chef_type: 'data_bag_item', data_bag: bag };
}

/** POST /data/:bag: creates an item (201), 409 when the id is taken, 404 when the bag is missing. */
export async function createDataBagItem(r: Actor, bagName: string, bodyText: string, requestId?: string): Promise<Doc> {
  const { doc, stored } = validateItemBody(bodyText);
  const id = doc.id as string;
  return transaction(async (tx) => {
    const bag = await loadBag(tx, bagName);
    if (!bag) throw notFound(`No data bag '${bagName}' could be found. Please create this data bag before adding items to it.`);
    assertRead(r, bag);
    assertWrite(r, bag);
    if (await tx.dataBagItem.findUnique({ where: { bagId_itemId: { bagId: bag.id, itemId: id } }, select: { id: true } })) {
      throw conflict(`Data Bag Item '${id}' already exists in Data Bag '${bagName}'.`);
    }
    const max = maxDataBagItems();
    const counted = await tx.dataBag.updateMany({ where: { id: bag.id, itemCount: { lt: max } }, data: { itemCount: { increment: 1 } } });
    if (counted.count === 0) {
      throw new AppError('unprocessable', `Data bag '${bagName}' already holds ${max} items, the most one bag may hold (MAX_DATA_BAG_ITEMS); nothing was stored.`, [{ path: '/id', message: `bag full (${max} items)` }]);
    }
    await tx.dataBagItem.create({ data: { bagId: bag.id, itemId: id, document: stored, kind: classifyItem(doc).kind } });
    await audit(tx, r, { action: 'data-bag-item.create', targetType: 'data-bag-item', target: `${bagName}/${id}`, after: auditView(doc), requestId });
    await indexDataBagItem(tx, bagName, id, doc);
    return withTypeAndBag(doc, bagName);
  });
}

async function readItem(tx: Tx, r: Actor, bagName: string, itemId: string, missing: (b: string, i: string) => AppError) {
  const bag = await loadBag(tx, bagName);
  if (!bag) throw missing(bagName, itemId);
  assertRead(r, bag);
  const item = await tx.dataBagItem.findUnique({ where: { bagId_itemId: { bagId: bag.id, itemId } }, select: { id: true, document: true } });
  return { bag, item };
}

/** GET /data/:bag/:item: the document exactly as stored (text). */
export async function getDataBagItem(r: Actor, bagName: string, itemId: string): Promise<string> {
  const { item } = await readItem(db(), r, bagName, itemId, itemNotFound);
  if (!item) throw itemNotFound(bagName, itemId);
  return item.document;
}

/** PUT /data/:bag/:item: replaces an existing item (404 when missing: Chef creates only by POST). */
export async function updateDataBagItem(r: Actor, bagName: string, itemId: string, bodyText: string, requestId?: string): Promise<Doc> {
  const { doc, stored } = validateItemBody(bodyText, itemId);
  return transaction(async (tx) => {
    const { bag, item } = await readItem(tx, r, bagName, itemId, itemNotFound);
    if (!item) throw itemNotFound(bagName, itemId);
    assertWrite(r, bag);
    await tx.dataBagItem.update({ where: { id: item.id }, data: { document: stored, kind: classifyItem(doc).kind, updatedAt: new Date() } });
    await audit(tx, r, {
      action: 'data-bag-item.update',
      targetType: 'data-bag-item',
      target: `${bagName}/${itemId}`,
      before: auditView(JSON.parse(item.document) as Doc),
      after: auditView(doc),
      requestId,
    });
    await indexDataBagItem(tx, bagName, itemId, doc);
    return withTypeAndBag(doc, bagName);
  });
}

/** DELETE /data/:bag/:item: answers Chef's wrapped item. */
export async function deleteDataBagItem(r: Actor, bagName: string, itemId: string, requestId?: string): Promise<Doc> {
  return transaction(async (tx) => {
    const { bag, item } = await readItem(tx, r, bagName, itemId, itemNotFoundForDelete);
    if (!item) throw itemNotFoundForDelete(bagName, itemId);
    assertWrite(r, bag);
    const doc = JSON.parse(item.document) as Doc;
    await tx.dataBagItem.delete({ where: { id: item.id } });
    await tx.dataBag.update({ where: { id: bag.id }, data: { itemCount: { decrement: 1 } } });
    await audit(tx, r, { action: 'data-bag-item.delete', targetType: 'data-bag-item', target: `${bagName}/${itemId}`, before: auditView(doc), requestId });
    await indexDataBagItem(tx, bagName, itemId, null);
    return { name: `data_bag_item_${bagName}_${itemId}`, json_class: 'Chef::DataBagItem', chef_type: 'data_bag_item', data_bag: bagName, raw_data: doc };
  });
}

// ------------------------------------------------------------------ console-only settings (administrators)

/** Restricts a bag to the clients of `stages` (empty: every client reads it again). Administrators only. */
export async function setDataBagStages(access: Access, bagName: string, stages: string[], requestId?: string): Promise<string[]> {
  if (!can(access, 'data.manage')) throw forbidden(`You may not restrict data bag '${bagName}': only administrators may.`);
  const wanted = [...new Set(stages)].sort();
  return transaction(async (tx) => {
    const bag = await loadBag(tx, bagName);
    if (!bag) throw bagNotFound(bagName);
    const known = new Set((await tx.policyGroup.findMany({ where: { name: { in: wanted } }, select: { name: true } })).map((g) => g.name));
    const unknown = wanted.filter((s) => !known.has(s));
    if (unknown.length) throw badRequest(`Unknown stage ${unknown.map((s) => `'${s}'`).join(', ')}`, unknown.map((s) => ({ path: '/stages', message: `no stage named '${s}'` })));
    await tx.dataBagStage.deleteMany({ where: { bagId: bag.id } });
    for (const stageName of wanted) await tx.dataBagStage.create({ data: { bagId: bag.id, stageName } });
    await audit(tx, access, { action: 'data-bag.restrict', targetType: 'data-bag', target: bagName, before: { stages: stagesOf(bag) }, after: { stages: wanted }, requestId });
    return wanted;
  });
}

/** Grants a team `read` or `write` on a bag, or takes its grant away (`none`). Administrators only. */
export async function setDataBagGrant(access: Access, bagName: string, teamId: string, level: 'read' | 'write' | 'none', requestId?: string): Promise<void> {
  if (!can(access, 'data.manage')) throw forbidden(`You may not change who may use data bag '${bagName}': only administrators may.`);
  await transaction(async (tx) => {
    const bag = await loadBag(tx, bagName);
    if (!bag) throw bagNotFound(bagName);
    const team = await tx.team.findUnique({ where: { id: teamId }, select: { id: true, name: true } });
    if (!team) throw badRequest('Unknown team', [{ path: '/teamId', message: 'no such team' }]);
    const before = bag.grants.find((g) => g.teamId === teamId)?.level ?? 'none';
    if (level === 'none') await tx.dataBagGrant.deleteMany({ where: { bagId: bag.id, teamId } });
    else await tx.dataBagGrant.upsert({ where: { bagId_teamId: { bagId: bag.id, teamId } }, create: { bagId: bag.id, teamId, level }, update: { level } });
    await audit(tx, access, { action: 'data-bag.grant', targetType: 'data-bag', target: bagName, before: { team: team.name, level: before }, after: { team: team.name, level }, requestId });
  });
}
