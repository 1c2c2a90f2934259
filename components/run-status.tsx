import type { NodeRunStatusDto, NodeStanding } from '@/lib/types/nodes';
import { shortId } from '@/lib/format';
import { Time } from './time';

/** The words of each standing, as the board's rollout health says them (components/rollout-health.tsx). */
export const STANDING: Record<NodeStanding, { label: string; cls: string; title: string }> = {
  converged: { label: 'converged', cls: 'bg-emerald-100 text-emerald-900', title: "its last run converged the revision its stage runs" },
  failed: { label: 'failed', cls: 'bg-red-100 text-red-900', title: "its last run of the revision its stage runs failed" },
  pending: { label: 'not yet run', cls: 'bg-slate-100 text-slate-800', title: 'it has not run the revision its stage runs yet' },
  missing: { label: 'missing', cls: 'bg-amber-100 text-amber-900', title: 'it has not reported for longer than NODE_MISSING_AFTER_MINUTES' },
};

/**
 * A node's run status in a few words: the standing the board counts it under (converged / failed / not yet run /
 * missing), the failing resource and cookbook inline when its last run failed, and when that run ended. The
 * Nodes list and a node's page show it alike.
 */
export function RunStatus({ run, compact = false }: { run: NodeRunStatusDto; compact?: boolean }) {
  const last = run.lastRun;
  const s = run.standing ? STANDING[run.standing] : null;
  const failedLast = last?.status === 'failure';
  const failure = failedLast ? `${last.resource ?? 'unknown resource'}${last.cookbook ? ` in cookbook ${last.cookbook}` : ''}` : null;
  return (
    <span className="inline-flex flex-wrap items-center gap-x-1.5 gap-y-0.5" data-testid="run-status" data-standing={run.standing ?? 'none'} data-last={last?.status ?? 'none'}>
      {s ? (
        <span className={`badge ${s.cls}`} title={s.title}>
          {s.label}
        </span>
      ) : last ? (
        <span className={`badge ${failedLast ? 'bg-red-100 text-red-900' : 'bg-emerald-100 text-emerald-900'}`}>{failedLast ? 'last run failed' : 'last run succeeded'}</span>
      ) : (
        <span className="text-slate-600">no run reported</span>
      )}
      {failure && (
        // The failing resource in full on hover; inline, cut to the cell in the list.
        <span className={`mono text-xs text-red-800 ${compact ? 'max-w-[16rem] truncate' : 'break-all'}`} title={failure} data-testid="run-status-failure">
          {run.standing === 'failed' ? '' : `last run (${shortId(last?.revisionId)}) failed: `}
          {failure}
        </span>
      )}
      {last && !compact && (
        <span className="text-xs text-slate-600">
          {failedLast ? 'failed' : 'ended'} <Time iso={last.at} />
        </span>
      )}
    </span>
  );
}
