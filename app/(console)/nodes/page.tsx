import type { Metadata } from 'next';
import Link from 'next/link';
import { Suspense } from 'react';
import { requireAccess } from '@/lib/authn/session';
import type { Access } from '@/lib/auth/permissions';
import { listSavedSearches, NODE_QUERY_EXAMPLES, NODES_PAGE_ROWS, nodeQueryError, searchNodesPage } from '@/lib/services/search';
import { shortId } from '@/lib/format';
import { RUN_FILTERS, type RunFilter } from '@/lib/types/nodes';
import { EmptyState, PageHeader } from '@/components/page-header';
import { NodeSearchBox, SavedSearches } from '@/components/node-search';
import { RUN_FILTER_LABELS, nodesHref } from '@/components/nodes-href';
import { RunStatus } from '@/components/run-status';
import { Time } from '@/components/time';
import { DataTable } from '@/components/data-table';

export const metadata: Metadata = { title: 'Nodes' };
export const dynamic = 'force-dynamic';

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? '';

const runFilter = (v: string): RunFilter | null => ((RUN_FILTERS as readonly string[]).includes(v) ? (v as RunFilter) : null);

/**
 * Issue 25: every node of the organization the user may see, searched with
 * Chef's query language through the same search service and index as
 * GET /search/node. `?q=` is the query (a deep link: the board links here
 * with `policy_name:… AND policy_group:…`), `?page=` the page, `?run=` the
 * run status filter (issue 43: the board's "1 failed" links here with
 * `run=failed`).
 */
export default async function NodesPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const access = await requireAccess();
  const sp = await searchParams;
  const q = one(sp.q).trim();
  const run = runFilter(one(sp.run));
  const page = Math.max(1, Math.floor(Number(one(sp.page)) || 1));
  const saved = await listSavedSearches(access);
  return (
    <>
      <PageHeader title="Nodes" description="Every node of the organization you may see, as chef-client last saved it. Search them as knife and recipes do." />
      <div className="grid gap-4 lg:grid-cols-[minmax(0,1fr)_20rem]">
        <NodeSearchBox key={`${q}\u0000${run}`} query={q} run={run} examples={NODE_QUERY_EXAMPLES} />
        <SavedSearches saved={saved} query={q} queryValid={!nodeQueryError(q)} />
      </div>
      <Suspense key={`${q}\u0000${run}\u0000${page}`} fallback={<ResultsSkeleton />}>
        <Results access={access} q={q} run={run} page={page} />
      </Suspense>
    </>
  );
}

function ResultsSkeleton() {
  return (
    <div role="status" aria-live="polite" className="card mt-4 h-48 animate-pulse bg-slate-100/60">
      <span className="sr-only">Searching…</span>
    </div>
  );
}

async function Results({ access, q, run, page }: { access: Access; q: string; run: RunFilter | null; page: number }) {
  const r = await searchNodesPage(access, q, page, run);
  if (r.error) {
    return (
      <div role="alert" className="card mt-4 border-red-200 bg-red-50 p-4 text-sm text-red-900" data-testid="query-error">
        <p className="font-medium">This query cannot be searched</p>
        <p className="mono mt-1 break-words">{r.error}</p>
      </div>
    );
  }
  if (r.total === 0) {
    return (
      <div className="mt-4">
        <EmptyState title={run ? `No node ${q ? 'of this query ' : ''}is ${RUN_FILTER_LABELS[run]}` : q ? 'No node matches this query' : 'No nodes you may see yet'}>
          {run ? (
            <>
              The board counts the same standings. <Link href={nodesHref(q, null)} className="underline">Show {q ? 'every node of this query' : 'every node'}</Link>.
            </>
          ) : q ? (
            <>Check the field names (policy_name, policy_group, name, platform, recipes, any attribute by its path joined with _), or <Link href="/nodes" className="underline">list every node</Link>.</>
          ) : (
            <>Nodes appear when chef-client first runs against the console (Chef tools page), in the stages you may view.</>
          )}
        </EmptyState>
      </div>
    );
  }
  const last = r.start + r.rows.length;
  const pages = Math.ceil(r.total / NODES_PAGE_ROWS);
  return (
    <div className="card mt-4 overflow-x-auto">
      <p className="border-b border-slate-100 px-4 py-2 text-sm text-slate-700" data-testid="node-total" aria-live="polite">
        <strong>{r.total}</strong> node{r.total === 1 ? '' : 's'}
        {q ? ' match' + (r.total === 1 ? 'es' : '') : ''}
        {run ? `${q ? ' and' : ''} ${r.total === 1 ? 'is' : 'are'} ${RUN_FILTER_LABELS[run]}` : ''}
        {r.total > r.rows.length ? ` · showing ${r.start + 1}–${last}` : ''}
      </p>
      <DataTable frame={null} columns={['Node', 'Stage', 'Policy', 'Revision applied', 'Platform', 'Run status', 'Last run']} rows={r.rows}>
        {(n) => (
          <tr key={n.name}>
            <td>
              <Link href={`/nodes/${encodeURIComponent(n.name)}`} className="font-mono text-indigo-800 underline">
                {n.name}
              </Link>
            </td>
            <td>{n.stage ?? (n.lacks.length ? <span className="text-amber-800">none</span> : '—')}</td>
            <td>
              {n.policy ? <Link href={`/policies/${encodeURIComponent(n.policy)}`} className="hover:underline">{n.policy}</Link> : n.lacks.length ? <span className="text-amber-800">none</span> : '—'}
              {n.lacks.length > 0 && (
                <div className="text-xs text-amber-800" data-testid="lacks">
                  lacks {n.lacks.join(' and ')}: runs no policy until it has {n.lacks.length > 1 ? 'both' : 'it'}
                </div>
              )}
            </td>
            <td className="mono">{shortId(n.revisionApplied)}</td>
            <td>{n.platform ?? '—'}</td>
            <td className="text-sm">
              <RunStatus run={n.run} compact />
            </td>
            <td className="whitespace-nowrap text-sm">{n.run.lastRun ? <Time iso={n.run.lastRun.at} /> : n.lastCheckIn ? <Time iso={n.lastCheckIn} /> : '—'}</td>
          </tr>
        )}
      </DataTable>
      {pages > 1 && (
        <nav aria-label="Pages" className="flex items-center justify-between border-t border-slate-100 px-4 py-2 text-sm">
          {page > 1 ? <Link href={nodesHref(q, run, page - 1)} className="underline">← Previous</Link> : <span />}
          <span className="text-slate-600">Page {page} of {pages}</span>
          {page < pages ? <Link href={nodesHref(q, run, page + 1)} className="underline">Next →</Link> : <span />}
        </nav>
      )}
    </div>
  );
}
