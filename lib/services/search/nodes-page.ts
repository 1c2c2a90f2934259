/**
 * Issue 25, the console's Nodes page: every node of the organization the
 * user may see, searched with Chef's query language through the same search
 * service and index as GET /search/node (./search.ts), and each user's saved
 * searches (create and delete audited, each in one transaction).
 */
import { db } from '@/lib/db/client';
import { compareText } from '@/lib/db/order';
import { searchIndex } from '@/lib/db/queries/search';
import { assertCan, can, canReadNode, type Access } from '@/lib/auth/permissions';
import { classifyNode } from '@/lib/domain/rollout';
import { AppError, badRequest, notFound } from '@/lib/errors';
import type { NodeRunStatusDto, NodeSearchDto, RunFilter, SavedSearchDto } from '@/lib/types/nodes';
import { audit, transaction, loadNodeFacts, missingAfterMs } from '@/lib/services/funnel';
import { servedRevisions } from '@/lib/services/runs';
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

const NO_RUN: NodeRunStatusDto = { standing: null, lastRun: null };

/**
 * Issue 43: every node's run status, by name, as the board's rollout health counts it (the same facts,
 * loadNodeFacts, and the same rule, classifyNode, against the revision each stage runs): a node the board counts
 * as failed in a cell is "failed" here, so the cell's "1 failed" and this list agree. A node whose runs are in a
 * stage the reader may not view gets no status (its page shows none of those runs either).
 */
async function runStatuses(access: Access, now: Date): Promise<Map<string, NodeRunStatusDto>> {
  const client = db();
  // Issue 43: each node against the revision it should run — its open canary ring's, else its stage's (the board's rule).
  const [served, facts] = await Promise.all([servedRevisions(client), loadNodeFacts(client)]);
  const missing = missingAfterMs();
  const out = new Map<string, NodeRunStatusDto>();
  for (const f of facts) {
    if (!can(access, 'stage.view', { stage: f.groupName })) continue;
    const stageRevision = served(f);
    out.set(f.nodeName, {
      standing: stageRevision === undefined ? null : classifyNode(f, stageRevision, now, missing),
      lastRun: f.lastRun ? { status: f.lastRun.status, at: f.lastRun.endTime.toISOString(), revisionId: f.lastRun.revisionId, resource: f.lastRun.failedResource ?? null, cookbook: f.lastRun.failedCookbook ?? null } : null,
    });
  }
  return out;
}

/** One node's run status, counted as the board and the Nodes list count it (the reader sees the node). */
export async function nodeRunStatus(access: Access, name: string, now = new Date()): Promise<NodeRunStatusDto> {
  return (await runStatuses(access, now)).get(name) ?? NO_RUN;
}

/** Names per search statement when a run status filter narrows the search to named nodes (bound parameters). */
const NAMES_PER_QUERY = 2000;

/**
 * The names of the nodes the reader may see, among `names`, that `query` finds, in name order: the search index
 * answers the query within those names (as GET /search/node would, by chunks), and each node's stage is asked of
 * the one rule for reading a node (canReadNode), as the search's own scope does.
 */
async function matchingNames(access: Access, query: string, names: string[]): Promise<string[]> {
  const parsed = parseQueryParam(query);
  const found: string[] = [];
  for (let i = 0; i < names.length; i += NAMES_PER_QUERY) {
    const chunk = names.slice(i, i + NAMES_PER_QUERY);
    found.push(...(await searchIndex('node', parsed, { kind: 'names', names: chunk }, { start: 0, rows: chunk.length })).names);
  }
  const stages = await db().node.findMany({ where: { name: { in: found } }, select: { name: true, group: { select: { name: true } } } });
  const readable = new Set(stages.filter((n) => canReadNode(access, n.group?.name ?? null)).map((n) => n.name));
  return found.filter((n) => readable.has(n)).sort(compareText);
}

/**
 * One page of nodes matching `query` (empty: every node the user may see), each with its run status; `run`
 * keeps only the nodes of that standing (the board's counts link here). A malformed query gives its error,
 * not a throw.
 */
export async function searchNodesPage(access: Access, query: string, page = 1, run: RunFilter | null = null, now = new Date()): Promise<NodeSearchDto> {
  const q = query.trim();
  const start = (Math.max(1, Math.floor(page)) - 1) * NODES_PAGE_ROWS;
  let names: string[];
  let total: number;
  const statuses = await runStatuses(access, now);
  try {
    if (run) {
      assertCan(access, 'search.read');
      const wanted = [...statuses].filter(([, st]) => st.standing === run).map(([name]) => name);
      const all = await matchingNames(access, q, wanted);
      total = all.length;
      names = all.slice(start, start + NODES_PAGE_ROWS);
    } else {
      // The org name only shapes client rows; nodes do not carry it.
      const result = await search(access, 'node', { q: q || '*:*', rows: String(NODES_PAGE_ROWS), start: String(start) }, { org: '' });
      total = result.total;
      names = result.hits.map((h) => h.name);
    }
  } catch (e) {
    if (e instanceof AppError && e.code === 'bad_request') return { query: q, run, total: 0, start, rows: [], error: e.message };
    throw e;
  }
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
        // Issue 42: a node saved before it had a policy (its first run stopped early) is listed, with what it lacks.
        lacks: [...(n.reportedGroup ? [] : ['policy_group' as const]), ...(n.reportedPolicy ? [] : ['policy_name' as const])],
        platform: [n.platform, n.platformVersion].filter(Boolean).join(' ') || null,
        revisionApplied: n.revisionApplied,
        lastCheckIn: n.lastCheckIn?.toISOString() ?? null,
        run: statuses.get(name) ?? NO_RUN,
      },
    ];
  });
  return { query: q, run, total, start, rows, error: null };
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
