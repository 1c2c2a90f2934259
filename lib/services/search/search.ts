/**
 * Chef search (issue 25): GET /search, GET /search/INDEX and partial search
 * (POST /search/INDEX), answered from the index the writes keep in the same
 * transaction (lib/db/queries/search.ts), never by scanning objects here.
 *
 * Who sees what: the rows a GET would show, by the permission table
 * (lib/auth/permissions.ts): a node row by `node.read` (users by the stages
 * they may view; clients every node, only their own stage's under stage
 * isolation), a client row by `client.read` (users all, a client itself), a
 * data bag by `data.read`; the validator searches nothing (`search.read`).
 */
import { db } from '@/lib/db/client';
import { assertCan, can, type Actor } from '@/lib/auth/permissions';
import { isSearchDeadline, searchIndex, type SearchScope } from '@/lib/db/queries/search';
import { AppError, badRequest, forbidden, notFound } from '@/lib/errors';
import { parseSearchQuery, SearchBudgetError, SearchSyntaxError, type SearchBudget, type SearchBudgetLimit, type SearchQuery } from '@/lib/domain/search/parse';
import { nodeSearchDocument, valueAt, type Json } from '@/lib/domain/search/expand';
import { NODE_SELECT, nodeDocument, nodeJson } from '@/lib/services/nodes';
import { parseLossless } from '@/lib/domain';
import { clientJson, DEFAULT_KEY } from '@/lib/services/clients';
import { bagReadable, listDataBags } from '@/lib/services/data-bags';
import { bagIndex } from '../../db/queries/search-index';
import { HOME_ORG_ID } from '@/lib/domain/organizations';

/** The indexes every organization has; each data bag adds one named like the bag. */
export const BUILT_IN_INDEXES = ['client', 'node'] as const;

/** Rows per page when the request names none (chef-client and knife ask for 1000). */
export const DEFAULT_ROWS = 1000;
export const MAX_ROWS = 10_000;

export interface SearchParams {
  q?: string | null;
  rows?: string | null;
  start?: string | null;
  sort?: string | null;
}

/** One object found: its index's name for it, the JSON Chef returns as a row, and the JSON partial search reads paths from. */
export interface SearchHit {
  name: string;
  /** Path below the organization URL: nodes/NAME, clients/NAME, data/BAG/ID. */
  path: string;
  row: Json;
  partialSource: Json;
}

export interface SearchResult {
  total: number;
  start: number;
  hits: SearchHit[];
}

/**
 * Issue 41 (finding 5): the query budget (docs/stage-binding.md, "Search budget"), from the environment: a query
 * over any limit is a 400 naming it, before the index is read. Defaults measured with bench/search-budget.bench.ts.
 */
const BUDGET_ENV: Record<SearchBudgetLimit, [string, number]> = {
  length: ['SEARCH_MAX_QUERY_LENGTH', 4096],
  clauses: ['SEARCH_MAX_CLAUSES', 256],
  wildcards: ['SEARCH_MAX_WILDCARDS', 16],
  depth: ['SEARCH_MAX_DEPTH', 32],
};

function envInt(name: string, dflt: number): number {
  const n = Number(process.env[name]);
  return process.env[name] !== undefined && Number.isInteger(n) && n > 0 ? n : dflt;
}

export function searchBudget(): SearchBudget {
  const v = (l: SearchBudgetLimit) => envInt(...BUDGET_ENV[l]);
  return { maxLength: v('length'), maxClauses: v('clauses'), maxWildcards: v('wildcards'), maxDepth: v('depth') };
}

/** How long one search may take (SEARCH_TIMEOUT_MS, default 5000): its statements stop then, and the answer is a 400. */
export function searchTimeoutMs(): number {
  return envInt('SEARCH_TIMEOUT_MS', 5000);
}

/**
 * The databases' own refusals of a statement too large or too deep (only reachable with a raised budget): the
 * query's fault, a 400 rather than a 500.
 */
const TOO_COMPLEX = /too many terms in compound SELECT|Expression tree is too large|parser stack overflow|too many SQL variables|too many columns|pattern too complex|string or blob too big|stack depth limit exceeded|too many range table entries|target lists can have at most|number of parameters must be between|bind message has/i;

function isTooComplex(e: unknown): boolean {
  for (let cur: unknown = e, i = 0; cur && i < 6; cur = (cur as { cause?: unknown }).cause, i++) {
    const m = (cur as { message?: unknown }).message;
    if (typeof m === 'string' && TOO_COMPLEX.test(m)) return true;
  }
  return false;
}

/** The query as a refusal quotes it (a very long one cut). */
function quoted(q: string): string {
  return q.length > 200 ? `${q.slice(0, 200)}…` : q;
}

/** Parses `q` (missing or empty: every object), refusing a malformed query, or one over the budget, with Chef's 400. */
export function parseQueryParam(q: string | null | undefined): SearchQuery {
  if (q === null || q === undefined || q.trim() === '') return { kind: 'all' };
  try {
    return parseSearchQuery(q, searchBudget());
  } catch (e) {
    if (e instanceof SearchSyntaxError) {
      // Chef's message, then where and why (Chef Server gives no position).
      throw new AppError('bad_request', `invalid search query: '${quoted(q)}': ${e.reason} at position ${e.offset + 1}`, [{ path: 'q', message: e.message }]);
    }
    if (e instanceof SearchBudgetError) {
      const env = BUDGET_ENV[e.limit][0];
      throw new AppError('bad_request', `invalid search query: '${quoted(q)}': ${e.message} (${env}); split it into smaller queries`, [{ path: 'q', message: `${e.message} (${env})` }]);
    }
    // Anything else the parser throws is still the query's fault (a 400, never a 500).
    if (e instanceof RangeError) throw new AppError('bad_request', `invalid search query: '${quoted(q)}': the query is too complex`, [{ path: 'q', message: 'too complex' }]);
    throw e;
  }
}

function intParam(name: 'rows' | 'start', raw: string | null | undefined, dflt: number, max: number): number {
  if (raw === null || raw === undefined || raw === '') return dflt;
  if (!/^\d+$/.test(raw) || Number(raw) > max) throw badRequest(`invalid '${name}' parameter: '${raw}' (a whole number from 0 to ${max})`, [{ path: name, message: `must be a whole number from 0 to ${max}` }]);
  return Number(raw);
}

/** `sort=FIELD [asc|desc]`; Chef's own default (X_CHEF_id_CHEF_X) and `name` order by name. */
function sortParam(raw: string | null | undefined): { field: string | null; descending: boolean } {
  if (!raw || !raw.trim()) return { field: null, descending: false };
  const m = /^\s*([^\s]+)(?:\s+(asc|desc))?\s*$/i.exec(raw);
  if (!m) throw badRequest(`invalid 'sort' parameter: '${raw}' (FIELD, optionally followed by asc or desc)`, [{ path: 'sort', message: 'must be FIELD [asc|desc]' }]);
  const field = m[1] === 'X_CHEF_id_CHEF_X' || m[1] === 'name' ? null : m[1];
  return { field, descending: (m[2] ?? 'asc').toLowerCase() === 'desc' };
}

/** The nodes an actor may read, as a database filter: each stage asked of can() once ('all' when every one is allowed: administrators). */
async function nodeScope(actor: Actor): Promise<SearchScope> {
  const groups = await db().policyGroup.findMany({ select: { id: true, name: true } });
  const groupIds = groups.filter((g) => can(actor, 'node.read', { stage: g.name })).map((g) => g.id);
  const includeUnstaged = can(actor, 'node.read', { stage: null });
  if (groupIds.length === groups.length && includeUnstaged) return { kind: 'all' };
  // A client always reads its own node (named like it), whatever stage it is in.
  const names = actor.kind === 'client' && can(actor, 'node.read', { node: actor.name, stage: null }) ? [actor.name] : [];
  return { kind: 'nodes', groupIds, includeUnstaged, names };
}

type Target = { idx: string; kind: 'node' | 'client' | 'bag'; bag?: string; scope: SearchScope };

/** Which index a name is, and what of it the actor sees; Chef's 404 for an unknown one. */
async function resolveIndex(actor: Actor, index: string): Promise<Target> {
  assertCan(actor, 'search.read');
  if (index === 'node') return { idx: 'node', kind: 'node', scope: await nodeScope(actor) };
  if (index === 'client') {
    // Users read every client; a client reads only itself (Chef filters search rows by the same rights).
    if (can(actor, 'client.read', { client: '\u0000' })) return { idx: 'client', kind: 'client', scope: { kind: 'all' } };
    return { idx: 'client', kind: 'client', scope: { kind: 'names', names: actor.kind === 'client' && can(actor, 'client.read', { client: actor.name }) ? [actor.name] : [] } };
  }
  const readable = await bagReadable(actor, index);
  if (readable === null) throw notFound(`I don't know how to search for ${index} data objects.`);
  if (!readable) throw forbidden(`${actor.kind === 'client' ? `Client '${actor.name}'` : 'You'} may not read data bag '${index}'.`);
  return { idx: bagIndex(index), kind: 'bag', bag: index, scope: { kind: 'all' } };
}

/** GET /search: the index names (node, client, and the data bags the actor may read). */
export async function listSearchIndexes(actor: Actor): Promise<string[]> {
  assertCan(actor, 'search.read');
  const bags = can(actor, 'data.read') ? await listDataBags(actor) : [];
  return [...BUILT_IN_INDEXES, ...bags];
}

/** GET /search/INDEX. */
/** `apiVersion`: the Chef request's server API version (a client row is the body GET /clients/NAME answers at it); the console's own callers give none. */
export async function search(actor: Actor, index: string, params: SearchParams, opts: { org: string; apiVersion?: number }): Promise<SearchResult> {
  const target = await resolveIndex(actor, index);
  const query = parseQueryParam(params.q);
  const rows = intParam('rows', params.rows, DEFAULT_ROWS, MAX_ROWS);
  const start = intParam('start', params.start, 0, Number.MAX_SAFE_INTEGER);
  const sort = sortParam(params.sort);
  const timeout = searchTimeoutMs();
  let page;
  try {
    page = await searchIndex(target.idx, query, target.scope, { start, rows, sortField: sort.field, descending: sort.descending }, undefined, { deadline: Date.now() + timeout });
  } catch (e) {
    if (isTooComplex(e)) {
      throw new AppError('bad_request', `invalid search query: '${quoted(params.q ?? '')}': the query is too complex for the database; split it into smaller queries`, [{ path: 'q', message: 'too complex for the database' }]);
    }
    if (isSearchDeadline(e)) {
      throw new AppError('bad_request', `invalid search query: '${quoted(params.q ?? '')}': it took longer than ${timeout} ms (SEARCH_TIMEOUT_MS); narrow it (name fields, fewer wildcards)`, [{ path: 'q', message: `took longer than ${timeout} ms (SEARCH_TIMEOUT_MS)` }]);
    }
    throw e;
  }
  const hits = await loadHits(target, page.names, opts);
  return { total: page.total, start, hits };
}

async function loadHits(target: Target, names: string[], opts: { org: string; apiVersion?: number }): Promise<SearchHit[]> {
  const kind = target.kind;
  if (!names.length) return [];
  const order = new Map(names.map((n, i) => [n, i]));
  const byOrder = <T extends { name: string }>(xs: T[]) => xs.sort((a, b) => order.get(a.name)! - order.get(b.name)!);
  if (kind === 'node') {
    const nodes = await db().node.findMany({ where: { name: { in: names } }, select: NODE_SELECT });
    // A node deleted between the query and this read is left out.
    return byOrder(nodes).map((n) => {
      const doc = nodeJson(n);
      // Issue 42: the row as stored, numbers as sent (`1.0` stays a Float in recipes); partial search reads plain JSON.
      return { name: n.name, path: `nodes/${n.name}`, row: parseLossless(nodeDocument(n)) as Json, partialSource: nodeSearchDocument(doc) };
    });
  }
  if (kind === 'bag') {
    const bag = target.bag!;
    const items = await db().dataBagItem.findMany({ where: { bag: { name: bag }, itemId: { in: names } }, select: { itemId: true, document: true } });
    return byOrder(items.map((i) => ({ name: i.itemId, document: i.document }))).map((i) => {
      const raw = JSON.parse(i.document) as Json;
      // Chef's search row for an item: the item wrapped (pedant's search_result_databag_item).
      const row = { name: `data_bag_item_${bag}_${i.name}`, json_class: 'Chef::DataBagItem', chef_type: 'data_bag_item', data_bag: bag, raw_data: parseLossless(i.document) as Json };
      return { name: i.name, path: `data/${bag}/${i.name}`, row, partialSource: raw };
    });
  }
  const clients = await db().chefClient.findMany({ where: { orgId: HOME_ORG_ID, name: { in: names } }, select: { name: true, validator: true, keys: DEFAULT_KEY } });
  return byOrder(clients).map((c) => {
    const row = clientJson({ name: c.name, validator: c.validator, publicKey: c.keys[0]?.publicKey ?? null }, opts.org, opts.apiVersion);
    return { name: c.name, path: `clients/${c.name}`, row, partialSource: row };
  });
}

/** A partial search body: `{ "key": ["path", "to", "attr"], … }` (an empty path gives null). */
export function parsePartialKeys(body: unknown): Record<string, string[]> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('invalid partial search body: expected a JSON object of key → path (an array of strings)', [{ path: '', message: 'must be a JSON object' }]);
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) {
      throw badRequest(`invalid partial search body: '${k}' must be an array of strings (a path)`, [{ path: `/${k}`, message: 'must be an array of strings' }]);
    }
    out[k] = v as string[];
  }
  return out;
}

/** POST /search/INDEX: each hit reduced to the requested paths. */
export async function partialSearch(actor: Actor, index: string, params: SearchParams, body: unknown, opts: { org: string; apiVersion?: number }): Promise<{ total: number; start: number; rows: { path: string; data: Record<string, Json> }[] }> {
  const keys = parsePartialKeys(body);
  const result = await search(actor, index, params, opts);
  return {
    total: result.total,
    start: result.start,
    rows: result.hits.map((h) => ({ path: h.path, data: Object.fromEntries(Object.entries(keys).map(([k, p]) => [k, p.length ? valueAt(h.partialSource, p) : null])) })),
  };
}
