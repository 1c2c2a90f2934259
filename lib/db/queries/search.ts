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
import { createHash, randomUUID } from 'node:crypto';
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

/** Rows per DELETE (2 parameters a row: under SQLite's 32,766 and PostgreSQL's 65,535 parameters). */
const CHUNK = 2000;
/** Rows per INSERT: one JSON parameter holds them all. */
const INSERT_CHUNK = 20_000;

/**
 * Inserts index rows with one JSON array parameter per statement, expanded by
 * the database (SQLite's json_each, PostgreSQL's json_array_elements): a node's
 * thousands of rows as thousands of bound parameters cost far more to pass than
 * to insert.
 */
async function insertJsonRows(tx: Tx, table: 'SearchEntry' | 'SearchField', idx: string, tuples: readonly (readonly string[])[]): Promise<void> {
  const provider = providerOf(tx);
  const target = table === 'SearchEntry' ? `"SearchEntry" ("docId", "idx", "path", "value")` : `"SearchField" ("idx", "path", "leaf")`;
  const conflict = table === 'SearchField' ? ' ON CONFLICT DO NOTHING' : '';
  for (let i = 0; i < tuples.length; i += INSERT_CHUNK) {
    const json = JSON.stringify(tuples.slice(i, i + INSERT_CHUNK));
    const pick = (n: number) => (provider === 'postgresql' ? `j.value->>${n}` : `json_extract(j.value, '$[${n}]')`);
    const idxParam = provider === 'postgresql' ? '$1' : '?';
    const from = provider === 'postgresql' ? `json_array_elements($2::json) j` : `json_each(?) j`;
    const select = table === 'SearchEntry' ? `${pick(0)}, ${idxParam}, ${pick(1)}, ${pick(2)}` : `${idxParam}, ${pick(0)}, ${pick(1)}`;
    // `WHERE true`: SQLite needs it before an upsert clause on INSERT … SELECT.
    await tx.$executeRawUnsafe(`INSERT INTO ${target} SELECT ${select} FROM ${from} WHERE true${conflict}`, idx, json);
  }
}

function rowsDigest(rows: readonly IndexRow[]): string {
  // One string hashed once: thousands of small update() calls cost more than the hashing.
  let text = '';
  for (const r of rows) text += `${r.path}\u0000${r.leaf}\u0000${r.value}\u0001`;
  return createHash('sha1').update(text).digest('hex');
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
  // Rows by path then value (and fields by path then leaf): set lookups on the rows' own strings, no joined keys.
  const group = (rs: readonly IndexRow[], second: 'value' | 'leaf') => {
    const m = new Map<string, Map<string, IndexRow>>();
    for (const r of rs) {
      let inner = m.get(r.path);
      if (!inner) m.set(r.path, (inner = new Map()));
      if (!inner.has(r[second])) inner.set(r[second], r);
    }
    return m;
  };
  const has = (m: Map<string, Map<string, IndexRow>>, a: string, b: string) => m.get(a)?.has(b) ?? false;
  const before = group(old, 'value');
  const after = group(rows, 'value');
  const removed: [string, string][] = [];
  for (const [path, values] of before) for (const value of values.keys()) if (!has(after, path, value)) removed.push([path, value]);
  const added: IndexRow[] = [];
  for (const [path, values] of after) for (const [value, r] of values) if (!has(before, path, value)) added.push(r);

  for (let i = 0; i < removed.length; i += CHUNK) {
    const s = new Sql(provider);
    const docParam = s.p(docId);
    const pairs = removed.slice(i, i + CHUNK).map(([path, value]) => `("path" = ${s.p(path)} AND "value" = ${s.p(value)})`);
    await tx.$executeRawUnsafe(`DELETE FROM "SearchEntry" WHERE "docId" = ${docParam} AND (${pairs.join(' OR ')})`, ...s.params);
  }
  await insertJsonRows(
    tx,
    'SearchEntry',
    idx,
    added.map((r) => [docId, r.path, r.value]),
  );
  // Field names: only the (path, leaf) pairs this write may have introduced.
  const oldFields = group(old, 'leaf');
  const newFields = new Map<string, IndexRow>();
  for (const r of rows) if (!has(oldFields, r.path, r.leaf)) newFields.set(`${r.path}\u0000${r.leaf}`, r);
  await insertJsonRows(
    tx,
    'SearchField',
    idx,
    [...newFields.values()].map((r) => [r.path, r.leaf]),
  );
}

/**
 * Indexes many objects none of which is indexed yet (a bulk load: an import,
 * the search benchmark's 10,000 nodes), inside the caller's transaction: the
 * rows writeIndexRows would write for each, in fewer statements (entries of
 * several objects per INSERT, each field name once for the whole batch).
 */
export async function writeNewIndexRowsMany(tx: Tx, idx: string, docs: readonly { name: string; rows: readonly IndexRow[] }[]): Promise<void> {
  if (!docs.length) return;
  const provider = providerOf(tx);
  const ids = docs.map(() => randomUUID());
  await tx.searchDoc.createMany({ data: docs.map((d, i) => ({ id: ids[i], idx, name: d.name, digest: rowsDigest(d.rows) })) });
  const entries: [string, IndexRow][] = [];
  const fields = new Map<string, IndexRow>();
  docs.forEach((d, i) => {
    const seen = new Set<string>();
    for (const r of d.rows) {
      const k = `${r.path}\u0000${r.value}`;
      if (!seen.has(k)) {
        seen.add(k);
        entries.push([ids[i], r]);
      }
      fields.set(`${r.path}\u0000${r.leaf}`, r);
    }
  });
  await insertJsonRows(
    tx,
    'SearchEntry',
    idx,
    entries.map(([docId, r]) => [docId, r.path, r.value]),
  );
  await insertJsonRows(
    tx,
    'SearchField',
    idx,
    [...fields.values()].map((r) => [r.path, r.leaf]),
  );
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
