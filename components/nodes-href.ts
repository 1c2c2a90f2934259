import type { RunFilter } from '@/lib/types/nodes';

/** The Nodes page's link: the query, the run status filter, the page. */
export function nodesHref(q: string, run: RunFilter | null = null, page = 1): string {
  const p = new URLSearchParams();
  if (q) p.set('q', q);
  if (run) p.set('run', run);
  if (page > 1) p.set('page', String(page));
  const s = p.toString();
  return s ? `/nodes?${s}` : '/nodes';
}

/** How the filter and the list name each standing ("2 nodes are failing"). */
export const RUN_FILTER_LABELS: Record<RunFilter, string> = {
  failed: 'failing',
  pending: "yet to run their stage's revision",
  missing: 'missing',
  converged: 'converged',
};

/** A value as one term of Chef's query language (quoted unless it is a plain word). */
export const queryTerm = (v: string) => (/^[A-Za-z0-9_.-]+$/.test(v) ? v : `"${v.replace(/["\\]/g, '\\$&')}"`);

/** The nodes of one board cell (a policy in a stage), optionally of one run status: what the cell's counts link to. */
export function cellNodesHref(policy: string, stage: string, run: RunFilter | null = null): string {
  return nodesHref(`policy_name:${queryTerm(policy)} AND policy_group:${queryTerm(stage)}`, run);
}
