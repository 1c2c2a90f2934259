/**
 * What the Data bags pages show (issue 24): bags the user may read, a bag's
 * items classified (plain, encrypted with format and fields, chef-vault items
 * with who can decrypt them and which nodes their search selects but holds no
 * key for), and an item with its history (diffs for plain items only).
 * Rights are those of the Chef API (lib/services/data-bags/data-bags.ts).
 */
import { db } from '@/lib/db/client';
import { can, type Access } from '@/lib/auth/permissions';
import { AppError, forbidden, notFound } from '@/lib/errors';
import { sortedBy } from '@/lib/db/order';
import type { DataBagDetailDto, DataBagItemDetailDto, DataBagItemSummaryDto, DataBagSummaryDto, VaultInfoDto } from '@/lib/types/data-bags';
import { classifyItem, userBagLevel } from '@/lib/services/data-bags';
import { MAX_ROWS, search } from './search';

const BAG_SELECT = {
  id: true,
  name: true,
  itemCount: true,
  stages: { select: { stageName: true } },
  grants: { select: { teamId: true, level: true, team: { select: { name: true } } } },
} as const;

type BagRow = { id: string; name: string; itemCount: number; stages: { stageName: string }[]; grants: { teamId: string; level: string; team: { name: string } }[] };

function summary(access: Access, b: BagRow): DataBagSummaryDto {
  return {
    name: b.name,
    itemCount: b.itemCount,
    stages: b.stages.map((s) => s.stageName).sort(),
    grants: b.grants.map((g) => ({ teamId: g.teamId, team: g.team.name, level: g.level === 'write' ? 'write' : 'read' })),
    myLevel: userBagLevel(access, b),
  };
}

/** The bags the user may read, by name. */
export async function dataBagsPage(access: Access): Promise<DataBagSummaryDto[]> {
  const bags = (await db().dataBag.findMany({ select: BAG_SELECT }).then(sortedBy((b) => b.name))) as BagRow[];
  return bags.map((b) => summary(access, b)).filter((b) => b.myLevel !== 'none');
}

async function readableBag(access: Access, name: string): Promise<BagRow> {
  const bag = (await db().dataBag.findUnique({ where: { name }, select: BAG_SELECT })) as BagRow | null;
  if (!bag) throw notFound(`Data bag '${name}' does not exist.`);
  if (userBagLevel(access, bag) === 'none') throw forbidden(`You may not read data bag '${name}': it is restricted to stages you may not view.`);
  return bag;
}

type Doc = Record<string, unknown>;
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/**
 * A vault's holders, and the nodes its search query selects (through the
 * same search service and index as GET /search/node, so only nodes the user
 * may see) whose client holds no key: what `knife vault refresh` would add.
 */
async function vaultInfo(access: Access, keys: Doc, bagStages: string[]): Promise<VaultInfoDto> {
  const clients = strings(keys.clients);
  const rawQuery = keys.search_query;
  const searchQuery = typeof rawQuery === 'string' && rawQuery.trim() ? rawQuery : null;
  const info: VaultInfoDto = { admins: strings(keys.admins), clients, searchQuery, mode: typeof keys.mode === 'string' ? keys.mode : null, missing: [], missingNote: null };
  if (!searchQuery) {
    info.missingNote = 'No search query: the vault is shared with the listed clients only.';
    return info;
  }
  let found;
  try {
    found = await search(access, 'node', { q: searchQuery, rows: String(MAX_ROWS) }, { org: '' });
  } catch (e) {
    if (e instanceof AppError && e.code === 'bad_request') {
      info.missingNote = `The vault's search query cannot be evaluated: ${e.message}`;
      return info;
    }
    throw e;
  }
  const have = new Set(clients);
  const stageOf = (row: unknown) => ((row as { policy_group?: unknown }).policy_group as string | undefined) ?? '';
  info.missing = found.hits
    .filter((h) => !bagStages.length || bagStages.includes(stageOf(h.row)))
    .map((h) => h.name)
    .filter((n) => !have.has(n))
    .sort();
  return info;
}

async function itemSummaries(access: Access, bag: BagRow, only?: string): Promise<{ items: DataBagItemSummaryDto[]; docs: Map<string, Doc> }> {
  const rows = await db()
    .dataBagItem.findMany({ where: { bagId: bag.id, ...(only ? { itemId: { in: [only, `${only}_keys`] } } : {}) }, select: { itemId: true, document: true, updatedAt: true } })
    .then(sortedBy((r) => r.itemId));
  const docs = new Map(rows.map((r) => [r.itemId, JSON.parse(r.document) as Doc]));
  const stages = bag.stages.map((s) => s.stageName);
  const items: DataBagItemSummaryDto[] = [];
  for (const r of rows) {
    if (only && r.itemId !== only) continue;
    const doc = docs.get(r.itemId)!;
    const c = classifyItem(doc);
    const keys = docs.get(`${r.itemId}_keys`);
    const isVault = c.kind === 'encrypted' && !!keys && classifyItem(keys).kind === 'vault-keys';
    items.push({ id: r.itemId, kind: c.kind, version: c.version, encryptedKeys: c.encryptedKeys, vault: isVault ? await vaultInfo(access, keys, stages) : null, updatedAt: r.updatedAt.toISOString() });
  }
  return { items, docs };
}

/** A bag with its items; for administrators also the stages and teams its settings can name. */
export async function dataBagDetail(access: Access, name: string): Promise<DataBagDetailDto> {
  const bag = await readableBag(access, name);
  const { items } = await itemSummaries(access, bag);
  const manage = can(access, 'data.manage');
  const [stages, teams] = manage
    ? await Promise.all([db().policyGroup.findMany({ orderBy: { position: 'asc' }, select: { name: true } }), db().team.findMany({ select: { id: true, name: true } }).then(sortedBy((t) => t.name))])
    : [[], []];
  return { ...summary(access, bag), items, canManage: manage, allStages: stages.map((s) => s.name), allTeams: teams };
}

const pretty = (text: string | null): string | null => (text === null ? null : JSON.stringify(JSON.parse(text), null, 2));

/** One item: its document (pretty), and its history from the audit log (documents only for plain items). */
export async function dataBagItemDetail(access: Access, bagName: string, itemId: string): Promise<DataBagItemDetailDto> {
  const bag = await readableBag(access, bagName);
  const { items, docs } = await itemSummaries(access, bag, itemId);
  const item = items[0];
  if (!item) throw notFound(`Data bag '${bagName}' has no item '${itemId}'.`);
  const events = await db().auditEvent.findMany({
    where: { targetType: 'data-bag-item', target: `${bagName}/${itemId}` },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: 50,
    select: { id: true, createdAt: true, actorEmail: true, via: true, action: true, before: true, after: true },
  });
  const isPlainView = (text: string | null) => {
    if (text === null) return true;
    const v = JSON.parse(text) as Doc;
    return !v.encrypted && !v.vault_keys;
  };
  return {
    bag: bagName,
    myLevel: userBagLevel(access, bag),
    item,
    document: JSON.stringify(docs.get(itemId), null, 2),
    history: events.map((e) => {
      const plain = isPlainView(e.before) && isPlainView(e.after);
      return { id: e.id, at: e.createdAt.toISOString(), actor: e.actorEmail, via: e.via, action: e.action, before: plain ? pretty(e.before) : null, after: plain ? pretty(e.after) : null };
    }),
  };
}
