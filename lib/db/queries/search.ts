/**
 * The search index in the database (issue 25): writing an object's rows
 * inside the caller's transaction, and answering a parsed query with one SQL
 * statement over the index (never by loading objects). The SQL is portable
 * between SQLite and PostgreSQL; only placeholders and JSON functions differ.
 *
 * An indexed document is cut into chunks at its top level (documentChunks):
 * one per top-level object attribute (`packages`, `kernel`, `network`, …) and
 * one for its top-level scalars and arrays. A chunk is content-addressed, so
 * the 1,000 rows of a `packages` attribute that 2,000 nodes share are stored
 * once, and a save writes only the chunks it changed (a chef-client run
 * changes `ohai_time`, `uptime_seconds`, `memory`: two small chunks) without
 * flattening or diffing the rest. A document is found by the union of its
 * chunks' rows, which is exactly flattenForIndex of the whole document.
 *
 * A term becomes `d.id IN (SELECT docId FROM SearchDocChunk WHERE chunkId IN
 * (SELECT chunkId FROM SearchEntry WHERE idx = ? AND path IN (paths whose full
 * name or last key is the field) AND value = ?))`, which the (idx, path,
 * value, chunkId) and (chunkId, docId) indexes answer without reading tables;
 * AND / OR / NOT become the same operators over those sets. Wildcards use
 * LIKE on the lowercased value within the field's paths.
 */
import { createHash, randomUUID } from 'node:crypto';
import { db, providerOf, type Tx } from '@/lib/db/client';
import type { DatabaseProvider } from '@/lib/db/url';
import { isMatchAll, literalField, literalValue, lowerPattern, phraseValue } from '@/lib/domain/search/match';
import { flattenForIndex, MAX_TOKEN, normaliseValue, type Json } from '@/lib/domain/search/expand';
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

/** Which stored paths each literal field name of a query is (its full path, or its last key), read once per query. */
type FieldPaths = ReadonlyMap<string, readonly string[]>;

function literalFields(q: SearchQuery, out: Set<string>): Set<string> {
  if (q.kind === 'and' || q.kind === 'or') for (const c of q.clauses) literalFields(c, out);
  else if (q.kind === 'not') literalFields(q.clause, out);
  else if (q.kind !== 'all' && q.field && !q.field.wildcard) out.add(literalField(q.field));
  return out;
}

/**
 * The paths of the query's literal field names, in one statement: the query
 * then names them (`path IN ('platform')`), which the planners estimate far
 * better than a subquery over SearchField.
 */
async function resolveFieldPaths(client: Tx, idx: string, q: SearchQuery): Promise<FieldPaths> {
  const fields = [...literalFields(q, new Set())];
  const out = new Map<string, string[]>(fields.map((f) => [f, []]));
  if (!fields.length) return out;
  const provider = providerOf(client);
  const s = new Sql(provider);
  const rows = await client.$queryRawUnsafe<{ path: string; leaf: string }[]>(
    `SELECT f."path" AS "path", f."leaf" AS "leaf" FROM "SearchField" f WHERE f."idx" = ${s.p(idx)} AND f."path" IN ${inJson(s, provider, fields)} UNION SELECT f."path", f."leaf" FROM "SearchField" f WHERE f."idx" = ${s.p(idx)} AND f."leaf" IN ${inJson(s, provider, fields)}`,
    ...s.params,
  );
  for (const r of rows) {
    for (const key of [r.path, r.leaf]) {
      const paths = out.get(key);
      if (paths && !paths.includes(r.path)) paths.push(r.path);
    }
  }
  return out;
}

/** SQL for the paths a field pattern names (null: any path). */
function fieldPaths(s: Sql, idx: string, field: Pattern | null, known: FieldPaths): string | null {
  if (!field || isMatchAll(field)) return null;
  if (!field.wildcard) return `(${(known.get(literalField(field)) ?? []).map((p) => s.p(p)).join(', ')})`;
  const like = likePattern(lowerPattern(field));
  return `(SELECT f."path" FROM "SearchField" f WHERE f."idx" = ${s.p(idx)} AND (f."path" LIKE ${s.p(like)} ESCAPE '\\' OR f."leaf" LIKE ${s.p(like)} ESCAPE '\\'))`;
}

function leafSql(s: Sql, idx: string, q: Extract<SearchQuery, { kind: 'term' | 'phrase' | 'range' }>, known: FieldPaths): string {
  // A literal field no stored path has matches nothing (decided before any parameter is bound).
  if (q.field && !q.field.wildcard && !isMatchAll(q.field) && !known.get(literalField(q.field))?.length) return '1 = 0';
  const conds = [`e."idx" = ${s.p(idx)}`];
  const paths = fieldPaths(s, idx, q.field, known);
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
  return `d."id" IN (SELECT m."docId" FROM "SearchDocChunk" m WHERE m."chunkId" IN (SELECT e."chunkId" FROM "SearchEntry" e WHERE ${conds.join(' AND ')}))`;
}

function whereSql(s: Sql, idx: string, q: SearchQuery, known: FieldPaths): string {
  switch (q.kind) {
    case 'all':
      return '1 = 1';
    case 'and':
      return `(${q.clauses.map((c) => whereSql(s, idx, c, known)).join(' AND ')})`;
    case 'or':
      return `(${q.clauses.map((c) => whereSql(s, idx, c, known)).join(' OR ')})`;
    case 'not':
      return `NOT (${whereSql(s, idx, q.clause, known)})`;
    default:
      return leafSql(s, idx, q, known);
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
  const known = await resolveFieldPaths(client, idx, q);
  const where = (s: Sql) => `d."idx" = ${s.p(idx)} AND ${whereSql(s, idx, q, known)} AND ${scopeSql(s, scope)}`;
  const count = async () => {
    const c = new Sql(provider);
    const [{ n }] = await client.$queryRawUnsafe<{ n: number | bigint }[]>(`SELECT COUNT(*) AS "n" FROM "SearchDoc" d WHERE ${where(c)}`, ...c.params);
    return Number(n);
  };
  if (page.rows <= 0) return { total: await count(), names: [] };
  const s = new Sql(provider);
  const dir = page.descending ? 'DESC' : 'ASC';
  const w = where(s);
  let order = `d."name" ${dir}`;
  if (page.sortField) {
    const key = `(SELECT MIN(e."value") FROM "SearchDocChunk" m JOIN "SearchEntry" e ON e."chunkId" = m."chunkId" WHERE m."docId" = d."id" AND e."path" = ${s.p(page.sortField.toLowerCase())})`;
    order = `${key} ${dir}, d."name" ${dir}`;
  }
  const rows = await client.$queryRawUnsafe<{ name: string }[]>(`SELECT d."name" AS "name" FROM "SearchDoc" d WHERE ${w} ORDER BY ${order} LIMIT ${s.p(page.rows)} OFFSET ${s.p(page.start)}`, ...s.params);
  // A first page that is not full holds every match: no second statement to count them (Chef asks for 1000 rows).
  const total = page.start === 0 && rows.length < page.rows ? rows.length : await count();
  return { total, names: rows.map((r) => r.name) };
}

/** Rows per INSERT: one JSON parameter holds them all. */
const INSERT_CHUNK = 20_000;

type JsonObject = { [k: string]: Json };

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Bumped when what a chunk's rows are changes (flattenForIndex), so that no chunk written before is reused. */
const CHUNK_VERSION = '1';

/** A part of a document: its chunk id and the part as a document of its own (its rows: flattenForIndex(part)). */
export type DocumentChunks = Map<string, JsonObject>;

/**
 * Cuts an indexed document at its top level: each attribute whose value is a
 * non-empty object is a chunk, the other attributes together are one more.
 * The id hashes the index and the part's JSON: equal parts of two documents of
 * one index are one chunk. No row is computed here: a write flattens only the
 * chunks that are new to the index.
 */
export function documentChunks(idx: string, doc: JsonObject): DocumentChunks {
  const out: DocumentChunks = new Map();
  const rest: JsonObject = {};
  let restKeys = 0;
  const add = (part: JsonObject) => out.set(createHash('sha1').update(`${CHUNK_VERSION}\u0000${idx}\u0000${JSON.stringify(part)}`).digest('base64url'), part);
  for (const k of Object.keys(doc)) {
    const v = doc[k];
    if (isObject(v) && Object.keys(v).length > 0) add({ [k]: v });
    else {
      rest[k] = v;
      restKeys++;
    }
  }
  if (restKeys) add(rest);
  return out;
}

/** SQL for "in this JSON array of strings", one parameter however long the list. */
function inJson(s: Sql, provider: DatabaseProvider, values: readonly string[]): string {
  return provider === 'postgresql' ? `(SELECT json_array_elements_text(${s.p(JSON.stringify(values))}::json))` : `(SELECT value FROM json_each(${s.p(JSON.stringify(values))}))`;
}

/**
 * Inserts rows with one JSON array parameter per statement, expanded by the
 * database (SQLite's json_each, PostgreSQL's json_array_elements): thousands
 * of rows as thousands of bound parameters cost far more to pass than to
 * insert. `constant` fills the first column of every row (the index name)
 * when given; the tuples fill the others in order.
 */
async function insertJsonRows(tx: Tx, table: string, columns: readonly string[], tuples: readonly (readonly (string | number)[])[], opts: { constant?: string; ignoreConflicts?: boolean } = {}): Promise<void> {
  const provider = providerOf(tx);
  const pick = (n: number) => (provider === 'postgresql' ? `j.value->>${n}` : `json_extract(j.value, '$[${n}]')`);
  const width = columns.length - (opts.constant === undefined ? 0 : 1);
  const picks = Array.from({ length: width }, (_, n) => pick(n));
  for (let i = 0; i < tuples.length; i += INSERT_CHUNK) {
    const json = JSON.stringify(tuples.slice(i, i + INSERT_CHUNK));
    const s = new Sql(provider);
    const select = opts.constant === undefined ? picks : [s.p(opts.constant), ...picks];
    const from = provider === 'postgresql' ? `json_array_elements(${s.p(json)}::json) j` : `json_each(${s.p(json)}) j`;
    // `WHERE true`: SQLite needs it before an upsert clause on INSERT … SELECT.
    await tx.$executeRawUnsafe(
      `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) SELECT ${select.join(', ')} FROM ${from} WHERE true${opts.ignoreConflicts ? ' ON CONFLICT DO NOTHING' : ''}`,
      ...s.params,
    );
  }
}

/**
 * Adds `n` references to each chunk (id → its part and n), creating the
 * chunks the index does not have and writing their rows and field names. The
 * upsert holds each chunk row's lock to the end of the transaction, so a
 * concurrent writer dropping the last other reference cannot delete it under
 * this one (see releaseChunks); ids go in sorted order, so two writers lock
 * shared chunks in one order.
 */
async function acquireChunks(tx: Tx, idx: string, chunks: Map<string, { part: JsonObject; n: number }>): Promise<void> {
  if (!chunks.size) return;
  const provider = providerOf(tx);
  const ids = [...chunks.keys()].sort();
  const created: string[] = [];
  for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
    const s = new Sql(provider);
    const json = JSON.stringify(ids.slice(i, i + INSERT_CHUNK).map((id) => [id, chunks.get(id)!.n]));
    const sql =
      provider === 'postgresql'
        ? `INSERT INTO "SearchChunk" ("id", "idx", "refs") SELECT j.value->>0, ${s.p(idx)}, (j.value->>1)::int FROM json_array_elements(${s.p(json)}::json) j ON CONFLICT ("id") DO UPDATE SET "refs" = "SearchChunk"."refs" + EXCLUDED."refs" RETURNING "id", "refs"`
        : `INSERT INTO "SearchChunk" ("id", "idx", "refs") SELECT json_extract(j.value, '$[0]'), ${s.p(idx)}, json_extract(j.value, '$[1]') FROM json_each(${s.p(json)}) j WHERE true ON CONFLICT ("id") DO UPDATE SET "refs" = "refs" + excluded."refs" RETURNING "id", "refs"`;
    const rows = await tx.$queryRawUnsafe<{ id: string; refs: number | bigint }[]>(sql, ...s.params);
    // A chunk whose count is exactly what this write added did not exist (a stored chunk has at least one reference).
    for (const r of rows) if (Number(r.refs) === chunks.get(r.id)!.n) created.push(r.id);
  }
  if (!created.length) return;
  const entries: [string, string, string][] = [];
  const fields = new Map<string, Map<string, true>>();
  const fieldRows: [string, string][] = [];
  for (const id of created) {
    for (const r of flattenForIndex(chunks.get(id)!.part)) {
      entries.push([id, r.path, r.value]);
      let leaves = fields.get(r.path);
      if (!leaves) fields.set(r.path, (leaves = new Map()));
      if (!leaves.has(r.leaf)) {
        leaves.set(r.leaf, true);
        fieldRows.push([r.path, r.leaf]);
      }
    }
  }
  await insertJsonRows(tx, 'SearchEntry', ['idx', 'chunkId', 'path', 'value'], entries, { constant: idx });
  // Field names: only those of the chunks created (every other chunk's were written with it).
  await insertJsonRows(tx, 'SearchField', ['idx', 'path', 'leaf'], fieldRows, { constant: idx, ignoreConflicts: true });
}

/**
 * Takes one reference from each chunk of document `docId` in `ids` and
 * unlinks it, deleting the chunks no document uses any more (their rows and
 * links go with them: ON DELETE CASCADE). The decrement locks each chunk row:
 * a concurrent acquireChunks of the same chunk waits for this transaction and
 * then either finds it (still referenced) or creates it again with its rows.
 */
async function releaseChunks(tx: Tx, docId: string, ids: readonly string[]): Promise<void> {
  if (!ids.length) return;
  const provider = providerOf(tx);
  const dec = new Sql(provider);
  const left = await tx.$queryRawUnsafe<{ id: string; refs: number | bigint }[]>(
    `UPDATE "SearchChunk" SET "refs" = "refs" - 1 WHERE "id" IN ${inJson(dec, provider, [...ids].sort())} RETURNING "id", "refs"`,
    ...dec.params,
  );
  const gone = left.filter((r) => Number(r.refs) <= 0).map((r) => r.id);
  const kept = left.filter((r) => Number(r.refs) > 0).map((r) => r.id);
  if (gone.length) {
    const del = new Sql(provider);
    await tx.$executeRawUnsafe(`DELETE FROM "SearchChunk" WHERE "id" IN ${inJson(del, provider, gone)}`, ...del.params);
  }
  if (kept.length) {
    const unlink = new Sql(provider);
    await tx.$executeRawUnsafe(`DELETE FROM "SearchDocChunk" WHERE "docId" = ${unlink.p(docId)} AND "chunkId" IN ${inJson(unlink, provider, kept)}`, ...unlink.params);
  }
}

/** The document's id and its chunks, or null when it is not indexed. */
async function storedDoc(tx: Tx, idx: string, name: string): Promise<{ id: string; chunks: string[] } | null> {
  const s = new Sql(providerOf(tx));
  const rows = await tx.$queryRawUnsafe<{ id: string; chunkId: string | null }[]>(
    `SELECT d."id" AS "id", m."chunkId" AS "chunkId" FROM "SearchDoc" d LEFT JOIN "SearchDocChunk" m ON m."docId" = d."id" WHERE d."idx" = ${s.p(idx)} AND d."name" = ${s.p(name)}`,
    ...s.params,
  );
  if (!rows.length) return null;
  return { id: rows[0].id, chunks: rows.flatMap((r) => (r.chunkId === null ? [] : [r.chunkId])) };
}

/**
 * Makes object `name` of index `idx` found by the rows of `doc` (its search
 * document: nodeSearchDocument and the like), inside the caller's
 * transaction. Call it after writing the object's own row, which holds that
 * row's lock: concurrent writers of one object then index one after the
 * other, and each sees what the previous one committed. Only the chunks that
 * changed are written (and flattened).
 */
export async function writeIndexDoc(tx: Tx, idx: string, name: string, doc: JsonObject): Promise<void> {
  const provider = providerOf(tx);
  const chunks = documentChunks(idx, doc);
  const stored = await storedDoc(tx, idx, name);
  let docId: string;
  const old = new Set(stored?.chunks ?? []);
  if (stored) docId = stored.id;
  else {
    docId = randomUUID();
    const s = new Sql(provider);
    await tx.$executeRawUnsafe(`INSERT INTO "SearchDoc" ("id", "idx", "name") VALUES (${s.p(docId)}, ${s.p(idx)}, ${s.p(name)})`, ...s.params);
  }
  const removed = [...old].filter((id) => !chunks.has(id));
  const added = [...chunks.keys()].filter((id) => !old.has(id));
  await releaseChunks(tx, docId, removed);
  if (added.length) {
    await acquireChunks(tx, idx, new Map(added.map((id) => [id, { part: chunks.get(id)!, n: 1 }])));
    await insertJsonRows(
      tx,
      'SearchDocChunk',
      ['docId', 'chunkId'],
      added.map((id) => [docId, id]),
    );
  }
}

/**
 * Indexes many objects none of which is indexed yet (a bulk load: an import,
 * the search benchmark's 10,000 nodes), inside the caller's transaction: what
 * writeIndexDoc would write for each, in a few statements for all (each
 * chunk counted, created and flattened once for the whole batch).
 */
export async function writeNewIndexDocsMany(tx: Tx, idx: string, docs: readonly { name: string; doc: JsonObject }[]): Promise<void> {
  if (!docs.length) return;
  const ids = docs.map(() => randomUUID());
  await insertJsonRows(
    tx,
    'SearchDoc',
    ['idx', 'id', 'name'],
    docs.map((d, i) => [ids[i], d.name]),
    { constant: idx },
  );
  const chunks = new Map<string, { part: JsonObject; n: number }>();
  const links: [string, string][] = [];
  docs.forEach((d, i) => {
    for (const [id, part] of documentChunks(idx, d.doc)) {
      const c = chunks.get(id);
      if (c) c.n++;
      else chunks.set(id, { part, n: 1 });
      links.push([ids[i], id]);
    }
  });
  await acquireChunks(tx, idx, chunks);
  await insertJsonRows(tx, 'SearchDocChunk', ['docId', 'chunkId'], links);
}

/** Drops an object from an index (chunks no other object uses go with it). */
export async function removeFromIndex(tx: Tx, idx: string, name: string): Promise<void> {
  const stored = await storedDoc(tx, idx, name);
  if (!stored) return;
  const provider = providerOf(tx);
  await releaseChunks(tx, stored.id, stored.chunks);
  const d = new Sql(provider);
  await tx.$executeRawUnsafe(`DELETE FROM "SearchDoc" WHERE "id" = ${d.p(stored.id)}`, ...d.params);
}

/** Renames an indexed object (a client renamed through PUT /clients/NAME). */
export async function renameInIndex(tx: Tx, idx: string, from: string, to: string): Promise<void> {
  await tx.searchDoc.updateMany({ where: { idx, name: from }, data: { name: to } });
}

/** Drops a whole index (a deleted data bag): its chunks are its own (their ids hash the index). */
export async function dropIndex(tx: Tx, idx: string): Promise<void> {
  await tx.searchDocChunk.deleteMany({ where: { doc: { idx } } });
  await tx.searchEntry.deleteMany({ where: { idx } });
  await tx.searchChunk.deleteMany({ where: { idx } });
  await tx.searchDoc.deleteMany({ where: { idx } });
}
