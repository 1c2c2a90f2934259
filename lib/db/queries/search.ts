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
 * A term becomes the set `SELECT docId FROM SearchDocChunk WHERE
 * chunkId IN (SELECT chunkId FROM SearchEntry WHERE idx = ? AND path IN (paths
 * whose full name or last key is the field) AND value = ?)`, which the (idx,
 * path, value, chunkId) and (chunkId, docId) indexes answer without reading
 * tables; AND / OR / NOT become INTERSECT / UNION / EXCEPT of those sets, and
 * the documents are read by id for the matches only. Wildcards use LIKE on
 * the lowercased value within the field's paths.
 */
import { createHash, randomUUID } from 'node:crypto';
import { db, providerOf, sqliteDirect, type Tx } from '@/lib/db/client';
import type { DatabaseProvider } from '@/lib/db/url';
import { isMatchAll, literalField, literalValue, lowerPattern, phraseValue } from '@/lib/domain/search/match';
import { flattenForIndex, MAX_TOKEN, normaliseValue, type Json } from '@/lib/domain/search/expand';
import type { Pattern, SearchQuery } from '@/lib/domain/search/parse';
import { databaseFile } from '@/lib/db/url';
import { DEADLINE_FUNCTION, offThreadAll, SearchDeadlineError } from './search-worker';

export { isSearchDeadline } from './search-worker';

class Sql {
  readonly params: unknown[] = [];
  /**
   * Issue 41: on a search run off the event loop (lib/db/queries/search-worker.ts), every index scan calls the
   * worker's deadline function first, so a statement stops once the search's time is up.
   */
  constructor(
    private readonly provider: DatabaseProvider,
    readonly deadline = false,
  ) {}
  p(v: unknown): string {
    this.params.push(v);
    return this.provider === 'postgresql' ? `$${this.params.length}` : '?';
  }
}

/**
 * Runs one of the index's statements: on SQLite directly on the client's
 * connection, inside its transaction when it is one (sqliteDirect: Prisma's
 * own cost per statement was two thirds of a node save's index write), else
 * through Prisma.
 */
async function execSql(client: Tx, sql: string, params: readonly unknown[]): Promise<void> {
  const direct = sqliteDirect(client);
  if (direct) direct.run(sql, params);
  else await client.$executeRawUnsafe(sql, ...params);
}

/** How a search's read statements run: on the given client (querySql) or on a worker thread (search-worker.ts). */
type Reads = { provider: DatabaseProvider; deadline: boolean; all<T>(sql: string, params: readonly unknown[]): Promise<T[]> };

/** The reads of a search on `client`, in its thread (a transaction's, a benchmark's own client). */
function clientReads(client: Tx): Reads {
  return { provider: providerOf(client), deadline: false, all: (sql, params) => querySql(client, sql, params) };
}

/** A statement of the index that returns rows (as execSql). */
async function querySql<T>(client: Tx, sql: string, params: readonly unknown[]): Promise<T[]> {
  const direct = sqliteDirect(client);
  return direct ? direct.all<T>(sql, params) : client.$queryRawUnsafe<T[]>(sql, ...params);
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
async function resolveFieldPaths(reads: Reads, idx: string, q: SearchQuery): Promise<FieldPaths> {
  const fields = [...literalFields(q, new Set())];
  const out = new Map<string, string[]>(fields.map((f) => [f, []]));
  if (!fields.length) return out;
  const provider = reads.provider;
  const s = new Sql(provider);
  const rows = await reads.all<{ path: string; leaf: string }>(`SELECT f."path" AS "path", f."leaf" AS "leaf" FROM "SearchField" f WHERE f."idx" = ${s.p(idx)} AND f."path" IN ${inJson(s, provider, fields)} UNION SELECT f."path", f."leaf" FROM "SearchField" f WHERE f."idx" = ${s.p(idx)} AND f."leaf" IN ${inJson(s, provider, fields)}`, s.params);
  for (const r of rows) {
    for (const key of [r.path, r.leaf]) {
      const paths = out.get(key);
      if (paths && !paths.includes(r.path)) paths.push(r.path);
    }
  }
  return out;
}

/** Above this many paths, a field's paths are one JSON parameter (fieldPaths). */
const MANY_PATHS = 32;

/** SQL for the paths a field pattern names (null: any path). */
function fieldPaths(s: Sql, idx: string, field: Pattern | null, known: FieldPaths): string | null {
  if (!field || isMatchAll(field)) return null;
  if (!field.wildcard) {
    const paths = known.get(literalField(field)) ?? [];
    // Issue 41: a field name many paths end in (`version`: every package's) as one JSON parameter, so that a query
    // the budget accepts never runs out of bound parameters (SQLite's 32,766); a few paths are named one by one.
    return paths.length > MANY_PATHS ? inJson(s, s['provider'], paths) : `(${paths.map((p) => s.p(p)).join(', ')})`;
  }
  const like = likePattern(lowerPattern(field));
  return `(SELECT f."path" FROM "SearchField" f WHERE f."idx" = ${s.p(idx)} AND (f."path" LIKE ${s.p(like)} ESCAPE '\\' OR f."leaf" LIKE ${s.p(like)} ESCAPE '\\'))`;
}

type Leaf = Extract<SearchQuery, { kind: 'term' | 'phrase' | 'range' }>;

const isLeaf = (q: SearchQuery): q is Leaf => q.kind === 'term' || q.kind === 'phrase' || q.kind === 'range';

/** The conditions on SearchEntry `e` of a term, phrase or range (null: it matches nothing). */
function leafConds(s: Sql, idx: string, q: Leaf, known: FieldPaths): string | null {
  // A literal field no stored path has matches nothing (decided before any parameter is bound).
  if (q.field && !q.field.wildcard && !isMatchAll(q.field) && !known.get(literalField(q.field))?.length) return null;
  // The deadline is asked once every 4,096 rows scanned (a call per row would cost more than the scan).
  const conds = [...(s.deadline ? [`(e."rowid" % 4096 <> 0 OR ${DEADLINE_FUNCTION}() = 1)`] : []), `e."idx" = ${s.p(idx)}`];
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
  return conds.join(' AND ');
}

function leafSql(s: Sql, idx: string, q: Leaf, known: FieldPaths): string {
  const conds = leafConds(s, idx, q, known);
  if (conds === null) return `SELECT m."docId" FROM "SearchDocChunk" m WHERE 1 = 0`;
  return `SELECT m."docId" FROM "SearchDocChunk" m WHERE m."chunkId" IN (SELECT e."chunkId" FROM "SearchEntry" e WHERE ${conds})`;
}

/** The leaves that are positive clauses of an AND with at least two such leaves: where a chunk-level intersection can pay. */
function andLeaves(q: SearchQuery, out: Leaf[] = []): Leaf[] {
  if (q.kind === 'and') {
    const leaves = q.clauses.filter(isLeaf);
    if (leaves.length >= 2) out.push(...leaves);
    for (const c of q.clauses) if (!isLeaf(c)) andLeaves(c, out);
  } else if (q.kind === 'or') for (const c of q.clauses) andLeaves(c, out);
  else if (q.kind === 'not') andLeaves(q.clause, out);
  return out;
}

/**
 * Which of the AND clauses' terms (andLeaves) are found, right now, only in
 * documents' top-values chunks (TOP_CHUNK): `policy_group:production`,
 * `platform:ubuntu`, `name:web*`. One statement, one EXISTS a term, each
 * reading the term's own index range. Since a document has at most one such
 * chunk, the documents matching several of them are those of the chunks
 * matching all of them: the AND intersects chunk ids (a term has one row
 * per distinct chunk) and reads links for the common chunks only, instead of
 * every term's documents (on PostgreSQL, 7,334 link probes for the benchmark's
 * AND query at 10,000 nodes instead of ~1,300). A term also found in another
 * chunk (`kernel_release:…`, a document indexed before the prefix) keeps the
 * general plan.
 */
async function topOnlyTerms(reads: Reads, idx: string, q: SearchQuery, known: FieldPaths): Promise<ReadonlySet<Leaf>> {
  const leaves = andLeaves(q);
  if (!leaves.length) return new Set();
  const s = new Sql(reads.provider, reads.deadline);
  const checks: { leaf: Leaf; col: string }[] = [];
  const cols: string[] = [];
  for (const leaf of leaves) {
    const conds = leafConds(s, idx, leaf, known);
    if (conds === null) continue;
    const col = `t${checks.length}`;
    checks.push({ leaf, col });
    cols.push(`CASE WHEN EXISTS (SELECT 1 FROM "SearchEntry" e WHERE ${conds} AND e."chunkId" NOT LIKE '${TOP_CHUNK}%') THEN 0 ELSE 1 END AS "${col}"`);
  }
  if (!checks.length) return new Set();
  const [row] = await reads.all<Record<string, number | bigint>>(`SELECT ${cols.join(', ')}`, s.params);
  return new Set(checks.filter((c) => Number(row[c.col]) === 1).map((c) => c.leaf));
}

/**
 * The ids ("docId") of the documents of `idx` a query matches, as set
 * operations over its terms' sets: AND intersects (and takes away its NOT
 * clauses), OR unites, NOT takes away from the whole index. `compound` says
 * the SQL is a compound SELECT (which must be wrapped to be a member of
 * another: SQLite takes no parentheses around one).
 */
function docSetSql(s: Sql, idx: string, q: SearchQuery, known: FieldPaths, top: ReadonlySet<Leaf> = new Set()): { sql: string; compound: boolean } {
  const all = () => `SELECT a."id" AS "docId" FROM "SearchDoc" a WHERE a."idx" = ${s.p(idx)}`;
  let n = 0;
  const member = (x: { sql: string; compound: boolean }) => (x.compound ? `SELECT "docId" FROM (${x.sql}) u${n++}` : x.sql);
  switch (q.kind) {
    case 'all':
      return { sql: all(), compound: false };
    case 'and': {
      const tops = q.clauses.filter((c): c is Leaf => isLeaf(c) && top.has(c));
      const pos: ({ sql: string; compound: boolean } | SearchQuery)[] = q.clauses.filter((c) => c.kind !== 'not' && !(tops.length >= 2 && tops.includes(c as Leaf)));
      if (tops.length >= 2) {
        // The chunks every top-only term matches, then their documents (one a chunk: a document has one top-values chunk).
        const chunks = tops.map((c) => `SELECT e."chunkId" FROM "SearchEntry" e WHERE ${leafConds(s, idx, c, known)}`).join(' INTERSECT ');
        pos.unshift({ sql: `SELECT m."docId" FROM "SearchDocChunk" m WHERE m."chunkId" IN (${chunks})`, compound: false });
      }
      const neg = q.clauses.flatMap((c) => (c.kind === 'not' ? [c.clause] : []));
      const set = (c: { sql: string; compound: boolean } | SearchQuery) => ('sql' in c ? c : docSetSql(s, idx, c, known, top));
      const head = pos.length ? pos.map((c) => member(set(c))).join(' INTERSECT ') : all();
      return { sql: [head, ...neg.map((c) => member(set(c)))].join(' EXCEPT '), compound: pos.length + neg.length > 1 || !pos.length };
    }
    case 'or':
      return { sql: q.clauses.map((c) => member(docSetSql(s, idx, c, known, top))).join(' UNION '), compound: q.clauses.length > 1 };
    case 'not':
      return { sql: `${all()} EXCEPT ${member(docSetSql(s, idx, q.clause, known, top))}`, compound: true };
    default:
      return { sql: leafSql(s, idx, q, known), compound: false };
  }
}

/** A set's ids each once: a compound SELECT's already are; a term's may repeat (two chunks of one document matching). */
function distinctIds(set: { sql: string; compound: boolean }): string {
  return set.compound ? set.sql : `SELECT DISTINCT v."docId" FROM (${set.sql}) v`;
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
  opts: { deadline?: number } = {},
): Promise<SearchPage> {
  // Issue 41: with a deadline, the process-wide client's search is bounded: on SQLite its statements run on worker
  // threads (the event loop stays free) and stop at the deadline; on PostgreSQL (whose queries never block the
  // event loop) the transaction's statement_timeout stops them. Either way a late search is a SearchDeadlineError.
  const root = db();
  if (opts.deadline !== undefined && client === root) {
    const provider = providerOf(root);
    if (provider === 'sqlite') {
      const file = databaseFile();
      const deadline = opts.deadline;
      return runSearch({ provider, deadline: true, all: (sql, params) => offThreadAll(file, sql, params, deadline) }, idx, q, scope, page);
    }
    const ms = Math.max(1, Math.round(opts.deadline - Date.now()));
    try {
      return await root.$transaction(
        async (tx) => {
          await tx.$executeRawUnsafe(`SET LOCAL statement_timeout = ${ms}`);
          return runSearch(clientReads(tx as Tx), idx, q, scope, page);
        },
        { timeout: ms + 10_000, maxWait: 10_000 },
      );
    } catch (e) {
      if (isStatementTimeout(e)) throw new SearchDeadlineError();
      throw e;
    }
  }
  return runSearch(clientReads(client), idx, q, scope, page);
}

/** PostgreSQL's "canceling statement due to statement timeout" (57014), however the driver wraps it. */
function isStatementTimeout(e: unknown): boolean {
  for (let cur: unknown = e, i = 0; cur && i < 6; cur = (cur as { cause?: unknown }).cause, i++) {
    const c = cur as { code?: unknown; originalCode?: unknown; message?: unknown; meta?: { code?: unknown } };
    if (c.code === '57014' || c.originalCode === '57014' || c.meta?.code === '57014') return true;
    if (typeof c.message === 'string' && c.message.includes('statement timeout')) return true;
  }
  return false;
}

async function runSearch(reads: Reads, idx: string, q: SearchQuery, scope: SearchScope, page: { start: number; rows: number; sortField?: string | null; descending?: boolean }): Promise<SearchPage> {
  const provider = reads.provider;
  const known = await resolveFieldPaths(reads, idx, q);
  const top = await topOnlyTerms(reads, idx, q, known);
  // The matching ids first (a set, see docSetSql), then their documents by id; every document for `*:*`.
  const from = (s: Sql) =>
    q.kind === 'all'
      ? `"SearchDoc" d WHERE d."idx" = ${s.p(idx)} AND ${scopeSql(s, scope)}`
      : `(${distinctIds(docSetSql(s, idx, q, known, top))}) x JOIN "SearchDoc" d ON d."id" = x."docId" WHERE d."idx" = ${s.p(idx)} AND ${scopeSql(s, scope)}`;
  const count = async () => {
    const c = new Sql(provider, reads.deadline);
    const [{ n }] = await reads.all<{ n: number | bigint }>(`SELECT COUNT(*) AS "n" FROM ${from(c)}`, c.params);
    return Number(n);
  };
  if (page.rows <= 0) return { total: await count(), names: [] };
  const s = new Sql(provider, reads.deadline);
  const dir = page.descending ? 'DESC' : 'ASC';
  const f = from(s);
  let order = `d."name" ${dir}`;
  if (page.sortField) {
    const key = `(SELECT MIN(e."value") FROM "SearchDocChunk" m JOIN "SearchEntry" e ON e."chunkId" = m."chunkId" WHERE m."docId" = d."id" AND e."path" = ${s.p(page.sortField.toLowerCase())})`;
    order = `${key} ${dir}, d."name" ${dir}`;
  }
  // The total comes with the page (a window over every match, before LIMIT): the matches are found once, not again to count them.
  const rows = await reads.all<{ name: string; total: number | bigint }>(`SELECT d."name" AS "name", COUNT(*) OVER () AS "total" FROM ${f} ORDER BY ${order} LIMIT ${s.p(page.rows)} OFFSET ${s.p(page.start)}`, s.params);
  // No row: nothing matches, or the page starts past the last match (then count them).
  const total = rows.length ? Number(rows[0].total) : page.start === 0 ? 0 : await count();
  return { total, names: rows.map((r) => r.name) };
}

/** Rows per INSERT: one JSON parameter holds them all. */
const INSERT_CHUNK = 20_000;

type JsonObject = { [k: string]: Json };

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Bumped when what a chunk's rows are changes (flattenForIndex), so that no chunk written before is reused. */
const CHUNK_VERSION = '1';

/**
 * Top-level attributes every chef-client run changes (Ohai's clock and uptime
 * plugins). They form a chunk of their own, so a run's save replaces a chunk
 * of a few rows instead of the one holding every top-level value (name,
 * platform, addresses, …), which then stays as it is.
 */
const VOLATILE_KEYS: ReadonlySet<string> = new Set(['ohai_time', 'uptime', 'uptime_seconds', 'idletime', 'idletime_seconds']);

/** A part of a document: its chunk id and the part as a document of its own (its rows: flattenForIndex(part)). */
export type DocumentChunks = Map<string, JsonObject>;

/**
 * The id prefix of a document's top-values chunk (its top-level scalars and
 * arrays: name, platform, policy_group, …). A document has at most one, so
 * an AND of terms found only in such chunks is an intersection of chunk ids
 * (topOnlyTerms). `.` is in no other chunk id (base64url hashes, `legacy:`
 * and a cuid), so the prefix tells the chunk's kind from its id alone.
 */
const TOP_CHUNK = 't.';

/**
 * Cuts an indexed document at its top level: each attribute whose value is a
 * non-empty object is a chunk, the volatile attributes (VOLATILE_KEYS) one
 * more, the other attributes together one more (its id starts with
 * TOP_CHUNK). The id hashes the index and
 * the part's JSON: equal parts of two documents of one index are one chunk.
 * No row is computed here: a write flattens only the chunks that are new to
 * the index.
 */
export function documentChunks(idx: string, doc: JsonObject): DocumentChunks {
  const out: DocumentChunks = new Map();
  const rest: JsonObject = {};
  const volatile: JsonObject = {};
  let restKeys = 0;
  let volatileKeys = 0;
  const add = (part: JsonObject, prefix = '') => out.set(prefix + createHash('sha1').update(`${CHUNK_VERSION}\u0000${idx}\u0000${JSON.stringify(part)}`).digest('base64url'), part);
  for (const k of Object.keys(doc)) {
    const v = doc[k];
    if (isObject(v) && Object.keys(v).length > 0) add({ [k]: v });
    else if (VOLATILE_KEYS.has(k)) {
      volatile[k] = v;
      volatileKeys++;
    } else {
      rest[k] = v;
      restKeys++;
    }
  }
  if (restKeys) add(rest, TOP_CHUNK);
  if (volatileKeys) add(volatile);
  return out;
}

/** SQL for "in this JSON array of strings", one parameter however long the list. */
function inJson(s: Sql, provider: DatabaseProvider, values: readonly string[]): string {
  return provider === 'postgresql' ? `(SELECT json_array_elements_text(${s.p(JSON.stringify(values))}::json))` : `(SELECT value FROM json_each(${s.p(JSON.stringify(values))}))`;
}

/**
 * SQL for "`col` is one of these chunk ids", one parameter however long the
 * list. On PostgreSQL an array (`= ANY`), which the planner answers with one
 * index probe per id; a set-returning function in `IN (SELECT …)` is
 * estimated at 100 rows and joined by hashing the whole table. Chunk ids
 * (base64url hashes, `legacy:` and a cuid) hold no space.
 */
function inIds(s: Sql, provider: DatabaseProvider, col: string, ids: readonly string[]): string {
  return provider === 'postgresql' ? `${col} = ANY(string_to_array(${s.p(ids.join(' '))}, ' '))` : `${col} IN (SELECT value FROM json_each(${s.p(JSON.stringify(ids))}))`;
}

/**
 * Inserts rows with one JSON array parameter per statement, expanded by the
 * database (SQLite's json_each, PostgreSQL's json_array_elements): thousands
 * of rows as thousands of bound parameters cost far more to pass than to
 * insert. `constant` fills the first column of every row (the index name)
 * when given; the tuples fill the others in order.
 */
async function insertJsonRows(tx: Tx, table: string, columns: readonly string[], tuples: readonly (readonly (string | number)[])[], opts: { constant?: string; ignoreConflicts?: boolean } = {}): Promise<void> {
  for (let i = 0; i < tuples.length; i += INSERT_CHUNK) {
    const s = new Sql(providerOf(tx));
    await execSql(tx, insertJsonSql(s, table, columns, JSON.stringify(tuples.slice(i, i + INSERT_CHUNK)), opts), s.params);
  }
}

/** The INSERT of insertJsonRows for one JSON array of tuples (`json`). */
function insertJsonSql(s: Sql, table: string, columns: readonly string[], json: string, opts: { constant?: string; ignoreConflicts?: boolean } = {}): string {
  const provider = s['provider'];
  const pick = (n: number) => (provider === 'postgresql' ? `j.value->>${n}` : `json_extract(j.value, '$[${n}]')`);
  const width = columns.length - (opts.constant === undefined ? 0 : 1);
  const picks = Array.from({ length: width }, (_, n) => pick(n));
  const select = opts.constant === undefined ? picks : [s.p(opts.constant), ...picks];
  const from = provider === 'postgresql' ? `json_array_elements(${s.p(json)}::json) j` : `json_each(${s.p(json)}) j`;
  // `WHERE true`: SQLite needs it before an upsert clause on INSERT … SELECT.
  return `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) SELECT ${select.join(', ')} FROM ${from} WHERE true${opts.ignoreConflicts ? ' ON CONFLICT DO NOTHING' : ''}`;
}

/** A chunk's reference count after a write changed it. */
type ChunkRefs = { id: string; refs: number };

/**
 * Changes chunks' reference counts by `delta` (id → +n or -n) in one upsert,
 * in id order (the database's), creating the chunks the index does not have
 * with their count. The upsert holds each chunk row's lock to the end of the
 * transaction, so a concurrent writer dropping the last other reference
 * cannot delete a chunk under this one, nor this one under it; two writers
 * lock shared chunks in one order. A decrement always finds its chunk (the
 * caller holds a reference to it).
 */
async function changeRefs(tx: Tx, idx: string, delta: ReadonlyMap<string, number>): Promise<ChunkRefs[]> {
  if (!delta.size) return [];
  const provider = providerOf(tx);
  const out: ChunkRefs[] = [];
  const ids = [...delta.keys()];
  for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
    const s = new Sql(provider);
    const json = JSON.stringify(ids.slice(i, i + INSERT_CHUNK).map((id) => [id, delta.get(id)!]));
    const sql =
      provider === 'postgresql'
        ? `INSERT INTO "SearchChunk" ("id", "idx", "refs") SELECT j.value->>0, ${s.p(idx)}, (j.value->>1)::int FROM json_array_elements(${s.p(json)}::json) j ORDER BY 1 ON CONFLICT ("id") DO UPDATE SET "refs" = "SearchChunk"."refs" + EXCLUDED."refs" RETURNING "id", "refs"`
        : `INSERT INTO "SearchChunk" ("id", "idx", "refs") SELECT json_extract(j.value, '$[0]'), ${s.p(idx)}, json_extract(j.value, '$[1]') FROM json_each(${s.p(json)}) j WHERE true ON CONFLICT ("id") DO UPDATE SET "refs" = "refs" + excluded."refs" RETURNING "id", "refs"`;
    for (const r of await querySql<{ id: string; refs: number | bigint }>(tx, sql, s.params)) out.push({ id: r.id, refs: Number(r.refs) });
  }
  return out;
}

/** The rows of the chunks a write created (each flattened once) and their field names (each once). */
function createdRows(created: readonly string[], partOf: (id: string) => JsonObject): { entries: [string, string, string][]; fields: [string, string][] } {
  const entries: [string, string, string][] = [];
  const fields = new Map<string, Set<string>>();
  const fieldRows: [string, string][] = [];
  for (const id of created) {
    for (const r of flattenForIndex(partOf(id))) {
      entries.push([id, r.path, r.value]);
      let leaves = fields.get(r.path);
      if (!leaves) fields.set(r.path, (leaves = new Set()));
      if (!leaves.has(r.leaf)) {
        leaves.add(r.leaf);
        fieldRows.push([r.path, r.leaf]);
      }
    }
  }
  return { entries, fields: fieldRows };
}

/**
 * Adds `n` references to each chunk (id → its part and n), creating the
 * chunks the index does not have and writing their rows and field names.
 */
async function acquireChunks(tx: Tx, idx: string, chunks: Map<string, { part: JsonObject; n: number }>): Promise<void> {
  // A chunk whose count is exactly what this write added did not exist (a stored chunk has at least one reference).
  const created = (await changeRefs(tx, idx, new Map([...chunks].map(([id, c]) => [id, c.n])))).filter((r) => r.refs === chunks.get(r.id)!.n).map((r) => r.id);
  if (!created.length) return;
  const { entries, fields } = createdRows(created, (id) => chunks.get(id)!.part);
  await insertJsonRows(tx, 'SearchEntry', ['idx', 'chunkId', 'path', 'value'], entries, { constant: idx });
  // Field names: only those of the chunks created (every other chunk's were written with it).
  await insertJsonRows(tx, 'SearchField', ['idx', 'path', 'leaf'], fields, { constant: idx, ignoreConflicts: true });
}

/** What a write does after changing reference counts: chunks to delete, links to drop and add, rows of new chunks. */
interface ChunkChanges {
  docId: string;
  /** Chunks whose last reference this write dropped (their rows and links go by ON DELETE CASCADE). */
  gone: string[];
  /** Chunks this document left that others still use: only the link goes. */
  left: string[];
  /** Chunks this document now uses. */
  added: string[];
  entries: [string, string, string][];
  fields: [string, string][];
}

/**
 * Applies a write's changes: on PostgreSQL in one statement (each part a
 * data-modifying WITH; none touches a row another part does), on SQLite (or
 * for a document of very many rows) one statement per part that has work.
 */
async function applyChanges(tx: Tx, idx: string, c: ChunkChanges): Promise<void> {
  const provider = providerOf(tx);
  if (provider === 'postgresql' && c.entries.length <= INSERT_CHUNK) {
    const s = new Sql(provider);
    const parts: string[] = [];
    if (c.gone.length) parts.push(`DELETE FROM "SearchChunk" WHERE ${inIds(s, provider, '"id"', c.gone)}`);
    if (c.left.length) parts.push(`DELETE FROM "SearchDocChunk" WHERE "docId" = ${s.p(c.docId)} AND ${inIds(s, provider, '"chunkId"', c.left)}`);
    if (c.entries.length) parts.push(insertJsonSql(s, 'SearchEntry', ['idx', 'chunkId', 'path', 'value'], JSON.stringify(c.entries), { constant: idx }));
    if (c.fields.length) parts.push(insertJsonSql(s, 'SearchField', ['idx', 'path', 'leaf'], JSON.stringify(c.fields), { constant: idx, ignoreConflicts: true }));
    if (c.added.length) parts.push(`INSERT INTO "SearchDocChunk" ("docId", "chunkId") SELECT ${s.p(c.docId)}, unnest(string_to_array(${s.p(c.added.join(' '))}, ' '))`);
    if (!parts.length) return;
    await execSql(tx, `WITH ${parts.map((p, i) => `w${i} AS (${p})`).join(', ')} SELECT 1`, s.params);
    return;
  }
  if (c.gone.length) {
    const s = new Sql(provider);
    await execSql(tx, `DELETE FROM "SearchChunk" WHERE ${inIds(s, provider, '"id"', c.gone)}`, s.params);
  }
  if (c.left.length) {
    const s = new Sql(provider);
    await execSql(tx, `DELETE FROM "SearchDocChunk" WHERE "docId" = ${s.p(c.docId)} AND ${inIds(s, provider, '"chunkId"', c.left)}`, s.params);
  }
  await insertJsonRows(tx, 'SearchEntry', ['idx', 'chunkId', 'path', 'value'], c.entries, { constant: idx });
  await insertJsonRows(tx, 'SearchField', ['idx', 'path', 'leaf'], c.fields, { constant: idx, ignoreConflicts: true });
  await insertJsonRows(
    tx,
    'SearchDocChunk',
    ['docId', 'chunkId'],
    c.added.map((id) => [c.docId, id]),
  );
}

/** The document's id and its chunks, or null when it is not indexed. */
async function storedDoc(tx: Tx, idx: string, name: string): Promise<{ id: string; chunks: string[] } | null> {
  const s = new Sql(providerOf(tx));
  const rows = await querySql<{ id: string; chunkId: string | null }>(tx, `SELECT d."id" AS "id", m."chunkId" AS "chunkId" FROM "SearchDoc" d LEFT JOIN "SearchDocChunk" m ON m."docId" = d."id" WHERE d."idx" = ${s.p(idx)} AND d."name" = ${s.p(name)}`, s.params);
  if (!rows.length) return null;
  return { id: rows[0].id, chunks: rows.flatMap((r) => (r.chunkId === null ? [] : [r.chunkId])) };
}

/**
 * PostgreSQL: the document row (created when missing) and the reference
 * changes of a write in one statement: the chunks the document has and does
 * not keep lose one reference, those it gains get one (created with it when
 * new), all in one upsert in id order. Returns the document's id and each
 * changed chunk's count.
 */
async function pgSwapChunks(tx: Tx, idx: string, name: string, ids: readonly string[]): Promise<{ docId: string; changed: ChunkRefs[] }> {
  const s = new Sql('postgresql');
  const rows = await querySql<{ doc: string; id: string | null; refs: number | bigint | null }>(tx, `WITH doc AS (INSERT INTO "SearchDoc" ("id", "idx", "name") VALUES (${s.p(randomUUID())}, ${s.p(idx)}, ${s.p(name)}) ON CONFLICT ("idx", "name") DO UPDATE SET "name" = EXCLUDED."name" RETURNING "id"),
      new AS (SELECT unnest(string_to_array(${s.p(ids.join(' '))}, ' ')) AS "id"),
      old AS (SELECT m."chunkId" AS "id" FROM "SearchDocChunk" m JOIN doc ON m."docId" = doc."id"),
      up AS (INSERT INTO "SearchChunk" ("id", "idx", "refs")
        SELECT x."id", ${s.p(idx)}, x."d" FROM (SELECT o."id", -1 AS "d" FROM old o WHERE o."id" NOT IN (SELECT "id" FROM new) UNION ALL SELECT n."id", 1 FROM new n WHERE n."id" NOT IN (SELECT "id" FROM old)) x ORDER BY x."id"
        ON CONFLICT ("id") DO UPDATE SET "refs" = "SearchChunk"."refs" + EXCLUDED."refs" RETURNING "id", "refs")
    SELECT (SELECT "id" FROM doc) AS "doc", up."id" AS "id", up."refs" AS "refs" FROM (SELECT 1) one LEFT JOIN up ON true`, s.params);
  return { docId: rows[0].doc, changed: rows.flatMap((r) => (r.id === null ? [] : [{ id: r.id, refs: Number(r.refs) }])) };
}

/**
 * Makes object `name` of index `idx` found by the rows of `doc` (its search
 * document: nodeSearchDocument and the like), inside the caller's
 * transaction. Call it after writing the object's own row, which holds that
 * row's lock: concurrent writers of one object then index one after the
 * other, and each sees what the previous one committed. Only the chunks that
 * changed are written (and only the new ones flattened): on PostgreSQL in
 * two statements (one when nothing changed), on SQLite in one read, one
 * upsert and one statement per kind of change.
 */
export async function writeIndexDoc(tx: Tx, idx: string, name: string, doc: JsonObject): Promise<void> {
  const provider = providerOf(tx);
  const chunks = documentChunks(idx, doc);
  let docId: string;
  let changed: ChunkRefs[];
  if (provider === 'postgresql') ({ docId, changed } = await pgSwapChunks(tx, idx, name, [...chunks.keys()]));
  else {
    const stored = await storedDoc(tx, idx, name);
    const old = new Set(stored?.chunks ?? []);
    if (stored) docId = stored.id;
    else {
      docId = randomUUID();
      const s = new Sql(provider);
      await execSql(tx, `INSERT INTO "SearchDoc" ("id", "idx", "name") VALUES (${s.p(docId)}, ${s.p(idx)}, ${s.p(name)})`, s.params);
    }
    const delta = new Map<string, number>();
    for (const id of old) if (!chunks.has(id)) delta.set(id, -1);
    for (const id of chunks.keys()) if (!old.has(id)) delta.set(id, 1);
    changed = await changeRefs(tx, idx, delta);
  }
  if (!changed.length) return;
  const c: ChunkChanges = { docId, gone: [], left: [], added: [], entries: [], fields: [] };
  const created: string[] = [];
  for (const r of changed) {
    if (chunks.has(r.id)) {
      c.added.push(r.id);
      if (r.refs === 1) created.push(r.id);
    } else if (r.refs <= 0) c.gone.push(r.id);
    else c.left.push(r.id);
  }
  ({ entries: c.entries, fields: c.fields } = createdRows(created, (id) => chunks.get(id)!));
  await applyChanges(tx, idx, c);
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

/**
 * Takes one reference from each chunk of document `docId` in `ids` and
 * unlinks it, deleting the chunks no document uses any more (their rows and
 * links go with them: ON DELETE CASCADE).
 */
async function releaseChunks(tx: Tx, docId: string, idx: string, ids: readonly string[]): Promise<void> {
  if (!ids.length) return;
  const left = await changeRefs(tx, idx, new Map(ids.map((id) => [id, -1])));
  await applyChanges(tx, idx, {
    docId,
    gone: left.filter((r) => r.refs <= 0).map((r) => r.id),
    left: left.filter((r) => r.refs > 0).map((r) => r.id),
    added: [],
    entries: [],
    fields: [],
  });
}

/** Drops an object from an index (chunks no other object uses go with it). */
export async function removeFromIndex(tx: Tx, idx: string, name: string): Promise<void> {
  const stored = await storedDoc(tx, idx, name);
  if (!stored) return;
  const provider = providerOf(tx);
  await releaseChunks(tx, stored.id, idx, stored.chunks);
  const d = new Sql(provider);
  await execSql(tx, `DELETE FROM "SearchDoc" WHERE "id" = ${d.p(stored.id)}`, d.params);
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
