import Link from 'next/link';
import type { RunReportDto } from '@/lib/services/runs';
import { age, shortId } from '@/lib/format';
import { Time } from './time';
import { DataTable } from '@/components/data-table';

function duration(ms: number | null): string {
  if (ms === null) return '—';
  // chef-client reports whole seconds: 0 means "within the second it started", not an instant.
  if (ms === 0) return 'under 1 s';
  if (ms < 1000) return `${ms} ms`;
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** chef-client's data collector reports start and end to the second (ISO 8601 without a fraction). */
const toTheSecond = (iso: string | null): iso is string => !!iso && Date.parse(iso) % 1000 === 0;

/**
 * A run's duration as far as its report tells it. chef-client's times have no fraction, so a run that started
 * and ended within one second reports 0 ms: that is "under 1 s", not "0 ms"; a failure before chef-client
 * started its clock (nothing converged: no resource) gives no duration at all: "—".
 */
export function runDuration(r: Pick<RunReportDto, 'status' | 'start_time' | 'end_time' | 'duration_ms' | 'total_resources'>): { text: string; title?: string } {
  if (r.duration_ms === null || !r.end_time) return { text: '—', title: 'No end of this run was reported' };
  if (toTheSecond(r.start_time) && toTheSecond(r.end_time)) {
    if (r.duration_ms === 0) {
      if (r.status === 'failure' && r.total_resources === 0) return { text: '—', title: 'It failed before converging anything: chef-client reports no duration for it' };
      return { text: 'under 1 s', title: 'chef-client reports start and end to the second: this run started and ended within one second' };
    }
    return { text: duration(r.duration_ms), title: 'To the second: chef-client reports start and end without fractions' };
  }
  return { text: duration(r.duration_ms) };
}

const STATUS: Record<RunReportDto['status'], { label: string; cls: string }> = {
  success: { label: 'success', cls: 'bg-emerald-100 text-emerald-900' },
  failure: { label: 'failed', cls: 'bg-red-100 text-red-900' },
  started: { label: 'started (no end reported)', cls: 'bg-slate-100 text-slate-700' },
};

/**
 * Issue 26: a node's chef-client runs from the data collector, newest first:
 * status, revision, the failing resource and cookbook, the resources that
 * changed, duration; and "missing" when it has not reported for the interval.
 */
export function NodeRunHistory({ runs, missing, missingAfterMinutes, lastSeen, now }: { runs: RunReportDto[]; missing: boolean; missingAfterMinutes: number; lastSeen: string | null; now: number }) {
  return (
    <section aria-labelledby="runs-heading" className="mt-6 max-w-5xl space-y-2" data-testid="node-runs">
      <div className="flex flex-wrap items-center gap-2">
        <h2 id="runs-heading" className="text-lg font-semibold">
          chef-client runs
        </h2>
        {missing ? (
          <span className="badge bg-amber-100 text-amber-900" data-testid="node-missing">
            missing: {lastSeen ? `last heard from ${age(lastSeen, now)}` : 'never reported'} (more than {missingAfterMinutes} min)
          </span>
        ) : (
          lastSeen && <span className="text-xs text-slate-600">last heard from {age(lastSeen, now)}</span>
        )}
      </div>
      {runs.length === 0 ? (
        <p className="card p-6 text-center text-sm text-slate-600">
          No run reported yet. chef-client reports every run (success or failure) to <span className="mono">&lt;chef_server_url&gt;/data-collector</span>; runs are kept for the retention period (RUN_RETENTION_DAYS).
        </p>
      ) : (
        <DataTable region="chef-client runs" className="text-sm" columns={['Started', 'Status', 'Stage · policy · revision', 'Failure', 'Resources changed', 'Duration']} rows={runs}>
          {(r) => (
            <tr key={r.run_id} data-testid="run-row" data-status={r.status}>
              <td className="whitespace-nowrap text-xs" title={r.run_id}>
                <Time iso={r.start_time} />
              </td>
              <td>
                <span className={`badge ${STATUS[r.status].cls}`}>{STATUS[r.status].label}</span>
              </td>
              <td className="text-xs">
                {r.stage ?? '—'} · {r.policy ?? '—'} ·{' '}
                {r.revision_id && r.policy ? (
                  <Link className="mono text-indigo-800 underline" href={`/policies/${encodeURIComponent(r.policy)}/revisions/${encodeURIComponent(r.revision_id)}`}>
                    {shortId(r.revision_id)}
                  </Link>
                ) : (
                  <span className="mono">{shortId(r.revision_id)}</span>
                )}
              </td>
              <td className="max-w-md text-xs">
                {r.error ? (
                  <div data-testid="run-failure">
                    <div className="font-medium text-red-800">
                      <span className="mono">{r.error.resource ?? 'unknown resource'}</span> in cookbook <span className="mono">{r.error.cookbook ?? '?'}</span>
                      {r.error.recipe ? <> (recipe {r.error.recipe})</> : null}
                    </div>
                    <div className="break-words text-slate-700">
                      {r.error.class ? <span className="mono">{r.error.class}: </span> : null}
                      {(r.error.message ?? '').slice(0, 300)}
                    </div>
                  </div>
                ) : (
                  '—'
                )}
              </td>
              <td className="text-xs">
                {r.updated_resources} of {r.total_resources}
                {r.changed.length > 0 && (
                  <details className="mt-1">
                    <summary className="cursor-pointer text-indigo-800">which</summary>
                    <ul className="mt-1 space-y-0.5">
                      {r.changed.slice(0, 50).map((c, i) => (
                        <li key={i} className={c.status === 'failed' ? 'text-red-800' : ''}>
                          <span className="mono">
                            {c.type}[{c.name}]
                          </span>{' '}
                          {c.action ? `(${c.action})` : ''} {c.status}
                          {c.cookbook ? ` · ${c.cookbook}${c.recipe ? `::${c.recipe}` : ''}` : ''}
                          {c.duration_ms !== null ? ` · ${duration(c.duration_ms)}` : ''}
                        </li>
                      ))}
                      {r.changed.length > 50 && <li>… and {r.changed.length - 50} more</li>}
                    </ul>
                  </details>
                )}
              </td>
              <td className="whitespace-nowrap text-xs" title={runDuration(r).title} data-testid="run-duration">
                {runDuration(r).text}
              </td>
            </tr>
          )}
        </DataTable>
      )}
    </section>
  );
}
