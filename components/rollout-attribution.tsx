import type { ChangeAttribution, RolloutOutcomeDto } from '@/lib/services/runs';
import { dateTime, shortId } from '@/lib/format';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Which cookbook changes of one promotion its failures fall in (issue 26): shared by the compare and history views. */
export function ChangeFailures({ a, stage }: { a: ChangeAttribution; stage: string }) {
  return (
    <div className="space-y-1 text-sm" data-testid="change-failures" data-revision={a.toRevisionId}>
      <div className="text-slate-700">
        {a.kind === 'promote-cookbook' ? 'Cookbook promotion' : 'Promotion'} {shortId(a.fromRevisionId)} → <span className="mono">{shortId(a.toRevisionId)}</span> into {stage} ({dateTime(a.at)}
        {a.actor ? `, ${a.actor}` : ''}):{' '}
        {a.changed.length ? (
          <>
            changed{' '}
            {a.changed.map((c, i) => (
              <span key={c.cookbook}>
                {i > 0 && ', '}
                <span className="mono">{c.cookbook}</span> {c.from ?? 'added'} → {c.to ?? 'removed'}
              </span>
            ))}
          </>
        ) : (
          'no cookbook changed'
        )}
        .
      </div>
      {a.failures.length === 0 ? (
        <div className="text-xs text-slate-600">
          {a.finishedRuns ? `${plural(a.finishedRuns, 'run')} on it since, none failed.` : 'No run on it reported since.'}
        </div>
      ) : (
        <ul className="space-y-0.5 text-xs">
          {a.failures.map((f) => (
            <li key={`${f.cookbook}|${f.resource}`} data-testid="failure-group" data-in-change={f.inChange}>
              <span className="font-medium text-red-800">
                ✗ {plural(f.nodes, 'node')} ({plural(f.runs, 'run')}) fail at <span className="mono">{f.resource ?? 'an unknown resource'}</span> in cookbook <span className="mono">{f.cookbook ?? '?'}</span>
              </span>{' '}
              {f.inChange ? (
                <span className="badge bg-red-100 text-red-900">a cookbook this promotion changed</span>
              ) : (
                <span className="badge bg-slate-100 text-slate-700">not changed by this promotion</span>
              )}
            </li>
          ))}
          <li className="text-slate-600">
            {a.failedRuns} of {plural(a.finishedRuns, 'finished run')} on {shortId(a.toRevisionId)} in {stage} failed since the promotion.
          </li>
        </ul>
      )}
    </div>
  );
}

function Evidence({ o, stage }: { o: RolloutOutcomeDto; stage: string }) {
  const e = o.evidence as {
    rule?: string;
    runs?: number;
    failed?: number;
    failure_pct?: number;
    /** `counted: 'nodes'` (issue 41): the numbers are distinct nodes; older outcomes counted runs. */
    counted?: 'nodes';
    top_failures?: { where: string; runs?: number; nodes?: number }[];
    failed_nodes?: string[];
    node?: string;
    resource?: string | null;
    cookbook?: string | null;
    error?: string | null;
    converged?: number;
    nodes?: number;
    missing?: number;
    previous_revision_id?: string | null;
  };
  if (o.event === 'rollout.rolled_back') {
    return (
      <div className="space-y-0.5">
        <div className="font-medium text-red-900">
          Rolled back automatically by the stage&apos;s rule ({e.rule ?? 'rollback rule'}): {e.failed ?? '?'} of {e.runs ?? '?'} {e.counted === 'nodes' ? 'node(s)' : 'run(s)'} failed ({e.failure_pct ?? '?'}%); revision {shortId(o.revisionId)} failed in {stage}: moving it there again needs a written override from someone who manages {stage}.
        </div>
        {!!e.top_failures?.length && <div className="text-xs text-slate-700">Top failures: {e.top_failures.map((t) => `${t.where} (${t.nodes !== undefined ? plural(t.nodes, 'node') : plural(t.runs ?? 0, 'run')})`).join('; ')}</div>}
        {!!e.failed_nodes?.length && <div className="text-xs text-slate-700">Failed nodes: {e.failed_nodes.join(', ')}</div>}
      </div>
    );
  }
  if (o.event === 'rollout.failed') {
    return (
      <div>
        First failure on {shortId(o.revisionId)}: {e.node ?? '?'} at <span className="mono">{e.resource ?? '?'}</span> in {e.cookbook ?? '?'}
        {e.error ? <>: {e.error.slice(0, 200)}</> : null}
      </div>
    );
  }
  return (
    <div>
      {shortId(o.revisionId)} converged on {plural(e.converged ?? 0, 'node')}
      {e.missing ? ` (${e.missing} missing)` : ''}.
    </div>
  );
}

const EVENT: Record<string, { label: string; cls: string }> = {
  'rollout.rolled_back': { label: 'rolled back by rule', cls: 'bg-red-100 text-red-900' },
  'rollout.failed': { label: 'failed', cls: 'bg-amber-100 text-amber-900' },
  'rollout.converged': { label: 'converged', cls: 'bg-emerald-100 text-emerald-900' },
};

/** The history view's rollout section: what the stage's rules saw and did, and where each recent promotion's failures fall. */
export function RolloutHistoryPanel({ stage, outcomes, attributions }: { stage: string; outcomes: RolloutOutcomeDto[]; attributions: ChangeAttribution[] }) {
  const withRuns = attributions.filter((a) => a.finishedRuns > 0 || a.failures.length > 0);
  if (!outcomes.length && !withRuns.length) return null;
  return (
    <section id="rollout" aria-labelledby="rollout-heading" className="card mb-4 space-y-3 p-4" data-testid="rollout-history">
      <h2 id="rollout-heading" className="font-semibold">
        Rollouts in {stage} (from chef-client run reports)
      </h2>
      {outcomes.length > 0 && (
        <ol className="space-y-2 text-sm">
          {outcomes.map((o) => (
            <li key={`${o.changeId}:${o.event}`} className="flex flex-wrap items-start gap-2" data-testid="rollout-outcome" data-event={o.event}>
              <span className="w-40 shrink-0 text-xs text-slate-600">{dateTime(o.at)}</span>
              <span className={`badge ${EVENT[o.event]?.cls ?? 'bg-slate-100 text-slate-700'}`}>{EVENT[o.event]?.label ?? o.event}</span>
              <div className="min-w-0 flex-1">
                <Evidence o={o} stage={stage} />
              </div>
            </li>
          ))}
        </ol>
      )}
      {withRuns.length > 0 && (
        <div className="space-y-3 border-t border-slate-100 pt-3">
          <h3 className="text-xs font-semibold uppercase text-slate-600">Where the failures of recent promotions fall</h3>
          {withRuns.map((a) => (
            <ChangeFailures key={a.changeId} a={a} stage={stage} />
          ))}
        </div>
      )}
    </section>
  );
}

/** The compare view's note: for each compared stage, which cookbook changes of its last promotion the failures fall in. */
export function CompareRolloutNotes({ items }: { items: { stage: string; attribution: ChangeAttribution }[] }) {
  const shown = items.filter((i) => i.attribution.failures.length > 0 || i.attribution.finishedRuns > 0);
  if (!shown.length) return null;
  return (
    <section aria-label="Rollout of the last promotion" className="card space-y-3 p-4" data-testid="compare-rollout">
      {shown.map((i) => (
        <div key={i.stage}>
          <h3 className="mb-1 text-xs font-semibold uppercase text-slate-600">Last promotion into {i.stage}</h3>
          <ChangeFailures a={i.attribution} stage={i.stage} />
        </div>
      ))}
    </section>
  );
}
