import Link from 'next/link';

import type { RequestsFilter, RequestsView } from '@/lib/services/promotion';

const VIEWS: [RequestsView, string][] = [
  ['to-approve', 'Awaiting my approval'],
  ['mine', 'Mine'],
  ['all', 'All'],
];
export const REQUEST_STATUSES = ['pending', 'applied', 'rejected', 'withdrawn', 'outdated', 'expired'] as const;

/** The query string of a filter: every view is a deep link. */
export function requestsHref(f: RequestsFilter): string {
  const p = new URLSearchParams();
  if (f.view !== 'to-approve') p.set('view', f.view);
  if (f.stage) p.set('stage', f.stage);
  if (f.status) p.set('status', f.status);
  if (f.policy) p.set('policy', f.policy);
  const s = p.toString();
  return s ? `/requests?${s}` : '/requests';
}

/**
 * Tabs (links, so back/forward and sharing work) and a GET form for the
 * filters: no client state, the URL is the state.
 */
export function RequestsFilters({ filter, stages, policies, counts }: { filter: RequestsFilter; stages: string[]; policies: string[]; counts?: Partial<Record<RequestsView, number>> }) {
  return (
    <div className="mb-4 space-y-3">
      <nav aria-label="Which requests" className="flex gap-1 border-b border-slate-200">
        {VIEWS.map(([view, label]) => {
          const active = filter.view === view;
          return (
            <Link
              key={view}
              href={requestsHref({ ...filter, view })}
              aria-current={active ? 'page' : undefined}
              data-testid={`requests-tab-${view}`}
              className={`-mb-px border-b-2 px-3 py-2 text-sm font-medium ${active ? 'border-indigo-600 text-indigo-700' : 'border-transparent text-slate-600 hover:border-slate-300 hover:text-slate-900'}`}
            >
              {label}
              {counts?.[view] !== undefined && <span className="ml-1.5 badge bg-slate-100 text-slate-700">{counts[view]}</span>}
            </Link>
          );
        })}
      </nav>
      <form method="get" action="/requests" className="flex flex-wrap items-end gap-3" aria-label="Filter requests">
        {filter.view !== 'to-approve' && <input type="hidden" name="view" value={filter.view} />}
        <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
          Stage
          <select name="stage" className="input w-44" defaultValue={filter.stage ?? ''}>
            <option value="">Any stage</option>
            {stages.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
          Status
          <select name="status" className="input w-40" defaultValue={filter.status ?? ''}>
            <option value="">Any status</option>
            {REQUEST_STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
          Policy
          <select name="policy" className="input w-52" defaultValue={filter.policy ?? ''}>
            <option value="">Any policy</option>
            {policies.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </select>
        </label>
        <button type="submit" className="btn">
          Apply filters
        </button>
        {(filter.stage || filter.status || filter.policy) && (
          <Link className="text-sm text-indigo-700 underline" href={requestsHref({ view: filter.view })}>
            Clear filters
          </Link>
        )}
      </form>
    </div>
  );
}
