/**
 * Issue 25, the console's Nodes page: every node of the organization the
 * user may see, searched with Chef's query language through the same search
 * service and index as GET /search/node (./search.ts), and each user's saved
 * searches (create and delete audited, each in one transaction).
 */
import { db } from '@/lib/db/client';
import { assertCan, type Access } from '@/lib/auth/permissions';
import { AppError, badRequest, notFound } from '@/lib/errors';
import type { NodeSearchDto, SavedSearchDto } from '@/lib/types/nodes';
import { audit } from './internal/audit';
import { transaction } from './internal/retry';
import { parseQueryParam, search } from './search';

/** Rows per page on the Nodes page. */
export const NODES_PAGE_ROWS = 50;

/** Example queries the page offers (each one valid in the parser). */
export const NODE_QUERY_EXAMPLES = [
  'policy_group:production',
  'policy_name:webapp AND policy_group:staging',
  'platform:ubuntu AND NOT policy_group:dev',
  'name:mysql-*',
  'policy_group:[dev TO qa]',
];

/** The parser's error for a query (null when it parses); nothing is searched. */
export function nodeQueryError(query: string): string | null {
  try {
    parseQueryParam(query.trim());
    return null;
  } catch (e) {
    if (e instanceof AppError) return e.message;
    throw e;
  }
}

/** One page of nodes matching `query` (empty: every node the user may see); a malformed query gives its error, not a throw. */
export async function searchNodesPage(access: Access, query: string, page = 1): Promise<NodeSearchDto> {
  const q = query.trim();
  const start = (Math.max(1, Math.floor(page)) - 1) * NODES_PAGE_ROWS;
  let result;
  try {
    // The org name only shapes client rows; nodes do not carry it.
    result = await search(access, 'node', { q: q || '*:*', rows: String(NODES_PAGE_ROWS), start: String(start) }, { org: '' });
  } catch (e) {
    if (e instanceof AppError && e.code === 'bad_request') return { query: q, total: 0, start, rows: [], error: e.message };
    throw e;
  }
  const names = result.hits.map((h) => h.name);
  const found = await db().node.findMany({
    where: { name: { in: names } },
    select: { name: true, reportedGroup: true, reportedPolicy: true, platform: true, platformVersion: true, revisionApplied: true, lastCheckIn: true, group: { select: { name: true } }, policy: { select: { name: true } } },
  });
  const byName = new Map(found.map((n) => [n.name, n]));
  const rows = names.flatMap((name) => {
    const n = byName.get(name);
    if (!n) return [];
    return [
      {
        name,
        stage: n.group?.name ?? n.reportedGroup,
        policy: n.policy?.name ?? n.reportedPolicy,
        platform: [n.platform, n.platformVersion].filter(Boolean).join(' ') || null,
        revisionApplied: n.revisionApplied,
        lastCheckIn: n.lastCheckIn?.toISOString() ?? null,
      },
    ];
  });
  return { query: q, total: result.total, start, rows, error: null };
}

const toDto = (s: { id: string; name: string; query: string; createdAt: Date }): SavedSearchDto => ({ id: s.id, name: s.name, query: s.query, createdAt: s.createdAt.toISOString() });

/** The user's own saved searches, by name. */
export async function listSavedSearches(access: Access): Promise<SavedSearchDto[]> {
  assertCan(access, 'search.read');
  const rows = await db().savedSearch.findMany({ where: { userId: access.userId }, select: { id: true, name: true, query: true, createdAt: true } });
  return rows.sort((a, b) => a.name.localeCompare(b.name)).map(toDto);
}

export const SAVED_SEARCH_NAME_MAX = 80;
export const SAVED_SEARCH_QUERY_MAX = 1000;

/** Saves a query under a name for this user: the query must parse; a name the user already uses is a 409. */
export async function saveSearch(access: Access, input: { name: string; query: string }, requestId?: string): Promise<SavedSearchDto> {
  assertCan(access, 'search.read');
  const name = input.name.trim();
  const query = input.query.trim();
  if (!name || name.length > SAVED_SEARCH_NAME_MAX) throw badRequest(`Name: 1 to ${SAVED_SEARCH_NAME_MAX} characters`, [{ path: '/name', message: `1 to ${SAVED_SEARCH_NAME_MAX} characters` }]);
  if (!query || query.length > SAVED_SEARCH_QUERY_MAX) throw badRequest(`Query: 1 to ${SAVED_SEARCH_QUERY_MAX} characters`, [{ path: '/query', message: `1 to ${SAVED_SEARCH_QUERY_MAX} characters` }]);
  try {
    parseQueryParam(query);
  } catch (e) {
    if (e instanceof AppError) throw badRequest(e.message, [{ path: '/query', message: e.message }]);
    throw e;
  }
  const taken = () => new AppError('conflict', `You already have a saved search named '${name}'`, [{ path: '/name', message: 'already used by another of your saved searches' }]);
  return transaction(async (tx) => {
    if (await tx.savedSearch.findUnique({ where: { userId_name: { userId: access.userId, name } }, select: { id: true } })) throw taken();
    let row;
    try {
      row = await tx.savedSearch.create({ data: { userId: access.userId, name, query }, select: { id: true, name: true, query: true, createdAt: true } });
    } catch (e) {
      // Two saves of one name at once: the unique index decides, the loser gets the same 409.
      if ((e as { code?: string }).code === 'P2002') throw taken();
      throw e;
    }
    await audit(tx, access, { action: 'saved-search.create', targetType: 'saved-search', target: name, after: { name, query }, requestId });
    return toDto(row);
  });
}

/** Deletes one of the user's saved searches (another user's is a 404, as if it did not exist). */
export async function deleteSavedSearch(access: Access, id: string, requestId?: string): Promise<void> {
  assertCan(access, 'search.read');
  await transaction(async (tx) => {
    const row = await tx.savedSearch.findFirst({ where: { id, userId: access.userId }, select: { id: true, name: true, query: true } });
    if (!row) throw notFound('No such saved search');
    await tx.savedSearch.delete({ where: { id: row.id } });
    await audit(tx, access, { action: 'saved-search.delete', targetType: 'saved-search', target: row.name, before: { name: row.name, query: row.query }, requestId });
  });
}
