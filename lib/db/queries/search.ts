/**
 * The search index in the database (issue 25): writing an object's rows
 * inside the caller's transaction, and answering a parsed query with one SQL
 * statement over the index (never by loading objects). The SQL is portable
 * between SQLite and PostgreSQL; only placeholders differ.
 *
 * A term becomes `d.id IN (SELECT docId FROM SearchEntry WHERE idx = ? AND
 * path IN (paths whose full name or last key is the field) AND value = ?)`,
 * which the (idx, path, value) index answers; AND / OR / NOT become the same
 * operators over those sets. Wildcards use LIKE on the lowercased value within
 * the field's paths (the index narrows to one field first, so even a leading
 * wildcard reads at most one row per object and field).
 */
import { createHash } from 'node:crypto';
import { db, providerOf, type Tx } from '@/lib/db/client';
import type { DatabaseProvider } from '@/lib/db/url';
import { isMatchAll, literalField, literalValue, lowerPattern, phraseValue } from '@/lib/domain/search/match';
import { MAX_TOKEN, normaliseValue, type IndexRow } from '@/lib/domain/search/expand';
import type { Pattern, SearchQuery } from '@/lib/domain/search/parse';

class Sql {
  readonly params: unknown[] = [];
  constructor(private readonly provider: DatabaseProvider) {}
  p(v: unknown): string {
    this.params.push(v);
    return this.provider === 'postgresql' ? `$${this.params.length}` : '?';
  }
}

/** A LIKE pattern (escape character `\`) for a lowercased wildcard pattern. */
export function likePattern(p: Pattern): string {
  return p.parts.map((x) => ('lit' in x ? x.lit.toLowerCase().replace(/[\\%_]/g, '\\$&') : x.wild === '*' ? '%' : '_')).join('');
}

function fieldPaths(s: Sql, idx: string, field: Pattern | null): string | null {
  if (!field || isMatchAll(field)) return null;
  if (!field.wildcard) {
    const f = literalField(field);
    return `(SELECT f."path" FROM "SearchField" f WHERE f."idx" = ${s.p(idx)} AND (f."path" = ${s.p(f)} OR f."leaf" = ${s.p(f)}))`;
  }
  const like = likePattern(lowerPattern(field));
  return `(SELECT f."path" FROM "SearchField" f WHERE f."idx" = ${s.p(idx)} AND (f."path" LIKE ${s.p(like)} ESCAPE '\\' OR f."leaf" LIKE ${s.p(like)} ESCAPE '\\'))`;
}

function leafSql(s: Sql, idx: string, q: Extract<SearchQuery, { kind: 'term' | 'phrase' | 'range' }>): string {
  const conds = [`e."idx" = ${s.p(idx)}`];
  const paths = fieldPaths(s, idx, q.field);
  if (paths) conds.push(`e."path" IN ${paths}`);
  if (q.kind === 'term') {
    if (!q.value.wildcard) conds.push(`e."value" = ${s.p(literalValue(q.value))}`);
    else if (!isMatchAll(q.value)) conds.push(`e."value" LIKE ${s.p(likePattern(lowerPattern(q.value)))} ESCAPE '\\'`);
  } else if (q.kind === 'phrase') {
    const v = phraseValue(q.words);
    if (v.length < MAX_TOKEN) {
      const prefix = `${v} `.replace(/[\\%_]/g, '\\$&');
      conds.push(`(e."value" = ${s.p(v)} OR e."value" LIKE ${s.p(`${prefix}%`)} ESCAPE '\\')`);
    } else conds.push(`e."value" = ${s.p(v)}`);
  } else {
    // Byte order, as Lucene compares terms (PostgreSQL's default collation would not).
    const col = s['provider'] === 'postgresql' ? `e."value" COLLATE "C"` : `e."value"`;
    if (q.from !== null) conds.push(`${col} ${q.fromInclusive ? '>=' : '>'} ${s.p(normaliseValue(q.from))}`);
    if (q.to !== null) conds.push(`${col} ${q.toInclusive ? '<=' : '<'} ${s.p(normaliseValue(q.to))}`);
  }
  return `d."id" IN (SELECT e."docId" FROM "SearchEntry" e WHERE ${conds.join(' AND ')})`;
}

function whereSql(s: Sql, idx: string, q: SearchQuery): string {
  switch (q.kind) {
    case 'all':
      return '1 = 1';
    case 'and':
      return `(${q.clauses.map((c) => whereSql(s, idx, c)).join(' AND ')})`;
    case 'or':
      return `(${q.clauses.map((c) => whereSql(s, idx, c)).join(' OR ')})`;
    case 'not':
      return `NOT (${whereSql(s, idx, q.clause)})`;
    default:
      return leafSql(s, idx, q);
  }
}

/**
 * Which objects of an index a requestor sees: all; the nodes of some stages
 * (read from the node row at query time, so a moved node or a deleted stage
 * counts at once) plus named ones; or only named ones.
 */
export type SearchScope =
  | { kind: 'all' }
  | { kind: 'nodes'; groupIds: string[]; includeUnstaged: boolean; names: string[] }
  | { kind: 'names'; names: string[] };

function scopeSql(s: Sql, scope: SearchScope): string {
  if (scope.kind === 'all') return '1 = 1';
  const ors: string[] = [];
  if (scope.kind === 'nodes') {
    const nodeOrs: string[] = [];
    if (scope.includeUnstaged) nodeOrs.push(`n."groupId" IS NULL`);
    if (scope.groupIds.length) nodeOrs.push(`n."groupId" IN (${scope.groupIds.map((g) => s.p(g)).join(', ')})`);
    if (nodeOrs.length) ors.push(`d."name" IN (SELECT n."name" FROM "Node" n WHERE ${nodeOrs.join(' OR ')})`);
  }
  if (scope.names.length) ors.push(`d."name" IN (${scope.names.map((n) => s.p(n)).join(', ')})`);
  return ors.length ? `(${ors.join(' OR ')})` : '1 = 0';
}

export interface SearchPage {
  total: number;
  names: string[];
}

/**
 * The names of the objects of index `idx` matching `q` within `scope`, ordered
 * by `sortField`'s smallest value (then by name) or by name, a page of them,
 * and how many match in all.
 */
export async function searchIndex(
  idx: string,
  q: SearchQuery,
  scope: SearchScope,
  page: { start: number; rows: number; sortField?: string | null; descending?: boolean },
  client: Tx = db(),
): Promise<SearchPage> {
  const provider = providerOf(client);
  const count = new Sql(provider);
  const where = (s: Sql) => `d."idx" = ${s.p(idx)} AND ${whereSql(s, idx, q)} AND ${scopeSql(s, scope)}`;
  const countSql = `SELECT COUNT(*) AS "n" FROM "SearchDoc" d WHERE ${where(count)}`;
  const [{ n }] = await client.$queryRawUnsafe<{ n: number | bigint }[]>(countSql, ...count.params);
  const total = Number(n);
  if (total === 0 || page.rows <= 0 || page.start >= total) return { total, names: [] };
  const s = new Sql(provider);
  const dir = page.descending ? 'DESC' : 'ASC';
  const w = where(s);
  let order = `d."name" ${dir}`;
  if (page.sortField) {
    const key = `(SELECT MIN(e."value") FROM "SearchEntry" e WHERE e."docId" = d."id" AND e."path" = ${s.p(page.sortField.toLowerCase())})`;
    order = `${key} ${dir}, d."name" ${dir}`;
  }
  const rows = await client.$queryRawUnsafe<{ name: string }[]>(
    `SELECT d."name" AS "name" FROM "SearchDoc" d WHERE ${w} ORDER BY ${order} LIMIT ${s.p(page.rows)} OFFSET ${s.p(page.start)}`,
    ...s.params,
  );
  return { total, names: rows.map((r) => r.name) };
}

const CHUNK = 500;

function rowsDigest(rows: readonly IndexRow[]): string {
  const h = createHash('sha1');
  for (const r of rows) h.update(`${r.path}\u0000${r.leaf}\u0000${r.value}\u0001`);
  return h.digest('hex');
}

/**
 * Replaces the rows object `name` of index `idx` is found by, inside the
 * caller's transaction. Call it after writing the object's own row, which
 * holds that row's lock: concurrent writers of one object then index one
 * after the other, and each sees what the previous one committed.
 *
 * `previous` (the rows of the object as the caller read it) lets an update
 * write only what changed, as a chef-client run changes a few Ohai values
 * among thousands. It is trusted only when its digest is the one stored;
 * otherwise (a concurrent writer got there first, an object indexed before
 * this existed) every row is rewritten.
 */
export async function writeIndexRows(tx: Tx, idx: string, name: string, rows: readonly IndexRow[], previous: readonly IndexRow[] | null): Promise<void> {
  const provider = providerOf(tx);
  const digest = rowsDigest(rows);
  const doc = await tx.searchDoc.findUnique({ where: { idx_name: { idx, name } }, select: { id: true, digest: true } });
  let docId: string;
  let old: readonly IndexRow[] = [];
  if (!doc) {
    docId = (await tx.searchDoc.create({ data: { idx, name, digest }, select: { id: true } })).id;
  } else {
    docId = doc.id;
    if (doc.digest === digest) return;
    if (previous && doc.digest === rowsDigest(previous)) old = previous;
    else await tx.searchEntry.deleteMany({ where: { docId } });
    await tx.searchDoc.update({ where: { id: docId }, data: { digest } });
  }
  const key = (r: IndexRow) => `${r.path}\u0000${r.value}`;
  const before = new Set(old.map(key));
  const after = new Map<string, IndexRow>();
  for (const r of rows) after.set(key(r), r);
  const removed = [...before].filter((k) => !after.has(k));
  const added = [...after.entries()].filter(([k]) => !before.has(k)).map(([, r]) => r);

  for (let i = 0; i < removed.length; i += CHUNK) {
    const s = new Sql(provider);
    const docParam = s.p(docId);
    const pairs = removed.slice(i, i + CHUNK).map((k) => {
      const [path, value] = k.split('\u0000');
      return `("path" = ${s.p(path)} AND "value" = ${s.p(value)})`;
    });
    await tx.$executeRawUnsafe(`DELETE FROM "SearchEntry" WHERE "docId" = ${docParam} AND (${pairs.join(' OR ')})`, ...s.params);
  }
  for (let i = 0; i < added.length; i += CHUNK) {
    const s = new Sql(provider);
    const values = added.slice(i, i + CHUNK).map((r) => `(${s.p(docId)}, ${s.p(idx)}, ${s.p(r.path)}, ${s.p(r.value)})`);
    await tx.$executeRawUnsafe(`INSERT INTO "SearchEntry" ("docId", "idx", "path", "value") VALUES ${values.join(', ')}`, ...s.params);
  }
  // Field names: only the (path, leaf) pairs this write may have introduced.
  const oldFields = new Set(old.map((r) => `${r.path}\u0000${r.leaf}`));
  const newFields = new Map<string, IndexRow>();
  for (const r of rows) {
    const k = `${r.path}\u0000${r.leaf}`;
    if (!oldFields.has(k)) newFields.set(k, r);
  }
  const fields = [...newFields.values()];
  for (let i = 0; i < fields.length; i += CHUNK) {
    const s = new Sql(provider);
    const values = fields.slice(i, i + CHUNK).map((r) => `(${s.p(idx)}, ${s.p(r.path)}, ${s.p(r.leaf)})`);
    await tx.$executeRawUnsafe(`INSERT INTO "SearchField" ("idx", "path", "leaf") VALUES ${values.join(', ')} ON CONFLICT DO NOTHING`, ...s.params);
  }
}

/** Drops an object from an index (its rows go with it). */
export async function removeFromIndex(tx: Tx, idx: string, name: string): Promise<void> {
  await tx.searchDoc.deleteMany({ where: { idx, name } });
}

/** Renames an indexed object (a client renamed through PUT /clients/NAME). */
export async function renameInIndex(tx: Tx, idx: string, from: string, to: string): Promise<void> {
  await tx.searchDoc.updateMany({ where: { idx, name: from }, data: { name: to } });
}

/** Drops a whole index (a deleted data bag). */
export async function dropIndex(tx: Tx, idx: string): Promise<void> {
  await tx.searchDoc.deleteMany({ where: { idx } });
}
