import Link from 'next/link';
import type { JourneyConvergence, JourneyRequest, JourneyStep, RevisionJourney } from '@/lib/types/journey';
import { dateTime, shortId } from '@/lib/format';

/** "3d 4h", "2h 5m", "12m", "40s": how long a revision stayed somewhere. */
export function duration(ms: number): string {
  const s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return `${d}d ${h}h`;
  if (h > 0) return `${h}h ${m}m`;
  if (m > 0) return `${m}m`;
  return `${s}s`;
}

const KIND: Record<string, string> = {
  set: 'set',
  promote: 'promoted',
  'promote-cookbook': 'cookbook promotion',
  rollback: 'rolled back to',
  ring: 'ringed rollout',
  remove: 'removed',
};

function RequestLine({ request }: { request: JourneyRequest }) {
  const approvals = request.approvals.filter((a) => a.decision === 'approve');
  return (
    <p className="text-sm">
      Through{' '}
      <Link className="text-indigo-800 underline" href={`/requests/${encodeURIComponent(request.id)}`}>
        request {shortId(request.id, 8)}
      </Link>{' '}
      by {request.requester} ({dateTime(request.requested_at)}): {approvals.length} of {request.approvals_required} approval{request.approvals_required === 1 ? '' : 's'}
      {approvals.length > 0 && <> — {approvals.map((a) => `${a.by} at ${dateTime(a.at)}${a.comment ? ` (“${a.comment}”)` : ''}`).join('; ')}</>}
    </p>
  );
}

function Convergence({ c }: { c: JourneyConvergence | undefined }) {
  if (!c) return <p className="text-sm text-slate-600">No run reports of this revision here.</p>;
  return (
    <p className="text-sm" data-testid="journey-convergence">
      {c.nodes_converged} node{c.nodes_converged === 1 ? '' : 's'} converged it
      {c.nodes_failed > 0 && <>, {c.nodes_failed} only failed on it</>} ({c.successful_runs} successful, {c.failed_runs} failed run{c.failed_runs === 1 ? '' : 's'})
      {c.converged_after_ms !== null && <>; the last converged {duration(c.converged_after_ms)} after it arrived</>}.
    </p>
  );
}

function Step({ policy, step, convergence, first }: { policy: string; step: JourneyStep; convergence: JourneyConvergence | undefined; first: boolean }) {
  return (
    <li className="relative border-l-2 border-slate-200 pb-4 pl-4" data-testid="journey-step" data-stage={step.stage}>
      <h3 className="font-medium">
        <Link className="text-indigo-800 underline" href={`/history?policy=${encodeURIComponent(policy)}&stage=${encodeURIComponent(step.stage)}`}>
          {step.stage}
        </Link>{' '}
        <span className="text-sm font-normal text-slate-700">
          — {KIND[step.kind] ?? step.kind} {dateTime(step.entered_at)} by {step.by ?? 'unknown'}
          {step.from_revision_id ? <> (replacing <span className="mono">{shortId(step.from_revision_id)}</span>)</> : ' (first revision there)'}
        </span>
      </h3>
      {step.reason && <p className="text-sm text-slate-700">Reason: {step.reason}</p>}
      {step.request && <RequestLine request={step.request} />}
      {step.overrides.freeze && (
        <p className="text-sm text-amber-900">
          Freeze overridden by {step.overrides.freeze.by}: {step.overrides.freeze.reason}
        </p>
      )}
      {step.overrides.gate && <p className="text-sm text-amber-900">Rollout gate overridden: {step.overrides.gate.reason}</p>}
      {step.overrides.artifacts && (
        <p className="text-sm text-amber-900">
          Moved with {step.overrides.artifacts.missing.length} missing cookbook artifact{step.overrides.artifacts.missing.length === 1 ? '' : 's'}: {step.overrides.artifacts.reason}
        </p>
      )}
      {step.automatic_rollback && <p className="text-sm text-amber-900">Automatic rollback ({step.automatic_rollback.rule})</p>}
      <p className="text-sm" data-testid="journey-soak">
        {step.current ? (
          <>
            <span className="badge bg-emerald-50 text-emerald-800">running here</span> for {duration(step.soak_ms)}
          </>
        ) : step.left_at ? (
          <>
            Stayed {duration(step.soak_ms)}; left {dateTime(step.left_at)} ({step.left?.kind === 'remove' ? 'removed' : <>to <span className="mono">{shortId(step.left?.to_revision_id)}</span></>}) by {step.left?.by ?? 'unknown'}
          </>
        ) : (
          <>Here for {duration(step.soak_ms)}</>
        )}
      </p>
      {first && <Convergence c={convergence} />}
    </li>
  );
}

/** Issue 29: the revision's path across stages (the data of GET …/revisions/:rev/journey). */
export function RevisionJourneyView({ journey }: { journey: RevisionJourney }) {
  const conv = new Map(journey.convergence.map((c) => [c.stage, c]));
  const seen = new Set<string>();
  return (
    <section className="card mb-4 p-4" aria-labelledby="journey" data-testid="revision-journey">
      <h2 id="journey" className="mb-2 font-semibold">
        Journey across stages
      </h2>
      <p className="mb-3 text-sm" data-testid="journey-created">
        First stored {dateTime(journey.created.at)} by {journey.created.by ?? 'unknown'} through {journey.created.tool_label} ({journey.created.origin}).
      </p>
      {journey.steps.length === 0 ? (
        <p className="text-sm text-slate-600">No stage you can view has run this revision.</p>
      ) : (
        <ol className="ml-1">
          {journey.steps.map((s, i) => {
            const first = !seen.has(s.stage);
            seen.add(s.stage);
            return <Step key={`${s.stage}-${i}`} policy={journey.policy} step={s} convergence={conv.get(s.stage)} first={first} />;
          })}
        </ol>
      )}
      {journey.verdicts.length > 0 && (
        <>
          <h3 className="mb-1 mt-2 text-sm font-semibold">Failed in</h3>
          <ul className="space-y-1" data-testid="journey-verdicts">
            {journey.verdicts.map((v) => (
              <li key={v.id} className="text-sm text-red-900" data-stage={v.stage}>
                {v.stage}: {v.source === 'ring' ? 'a canary ring' : "the stage's automatic rollback"} on {dateTime(v.at)}, {v.failed_nodes} of {v.nodes} node{v.nodes === 1 ? '' : 's'}
                {v.failed_resource ? <> at <span className="mono">{v.failed_resource}</span></> : null}
                {v.failed_cookbook ? ` (cookbook ${v.failed_cookbook})` : ''}.{' '}
                {v.overridden ? `Overridden by ${v.overridden.by} on ${dateTime(v.overridden.at)}: “${v.overridden.reason}”.` : `Moving it into ${v.stage} again needs a written override from someone who manages ${v.stage}.`}{' '}
                <Link className="text-indigo-800 underline" href={v.url}>
                  Evidence<span className="sr-only"> of its failure in {v.stage}</span>
                </Link>
              </li>
            ))}
          </ul>
        </>
      )}
      {journey.rings.length > 0 && (
        <>
          <h3 className="mb-1 mt-2 text-sm font-semibold">Canary rings</h3>
          <ul className="space-y-1" data-testid="journey-rings">
            {journey.rings.map((r) => (
              <li key={r.id} className="text-sm" data-stage={r.stage} data-status={r.status}>
                {r.stage}:{' '}
                <Link className="text-indigo-800 underline" href={r.url}>
                  ringed rollout<span className="sr-only"> in {r.stage} started {dateTime(r.started_at)}</span>
                </Link>{' '}
                ({r.steps.join('% → ')}%) started {dateTime(r.started_at)} by {r.started_by}: {r.status.replace('_', ' ')}
                {r.status === 'active' || r.status === 'paused' ? ` at ${r.percent}%` : ''}
                {r.ended_at ? ` on ${dateTime(r.ended_at)}` : ''}
                {r.end_reason ? ` (${r.end_reason})` : ''}
              </li>
            ))}
          </ul>
        </>
      )}
      {journey.scheduled.length > 0 && (
        <>
          <h3 className="mb-1 mt-2 text-sm font-semibold">Scheduled</h3>
          <ul className="space-y-1" data-testid="journey-scheduled">
            {journey.scheduled.map((x) => (
              <li key={x.id} className="text-sm">
                into {x.stage} {x.when === 'freeze_end' ? `when the freeze ends (${dateTime(x.run_at)})` : `at ${dateTime(x.run_at)}`}, scheduled by {x.scheduled_by} ·{' '}
                <Link href={`/requests?view=all&stage=${encodeURIComponent(x.stage)}&policy=${encodeURIComponent(journey.policy)}#scheduled`} className="text-indigo-700 underline-offset-2 hover:underline">
                  see or cancel it<span className="sr-only"> (the scheduled promotion into {x.stage})</span>
                </Link>
              </li>
            ))}
          </ul>
        </>
      )}
      {journey.pending_requests.length > 0 && (
        <>
          <h3 className="mb-1 mt-2 text-sm font-semibold">Waiting for approval</h3>
          <ul className="space-y-1">
            {journey.pending_requests.map((r) => (
              <li key={r.id} className="text-sm">
                {r.stage}:{' '}
                <Link className="text-indigo-800 underline" href={`/requests/${encodeURIComponent(r.id)}`}>
                  request {shortId(r.id, 8)}
                </Link>{' '}
                by {r.requester}, {r.approvals.filter((a) => a.decision === 'approve').length} of {r.approvals_required} approvals
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
