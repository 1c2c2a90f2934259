'use client';

import Link from 'next/link';
import { useState } from 'react';
import type { BadMark } from '@/lib/services/guards';
import type { HistoryEntry, StageEventEntry } from '@/lib/types/history';
import { dateTime, shortId } from '@/lib/format';
import { BadRevisionMarker } from './board-guards';
import { RollbackDialog } from './rollback-dialog';

/** A stage's pointer history for one policy, newest first, with rollback to any revision it held. */
export function HistoryTimeline({
  policy,
  stage,
  entries,
  current,
  canRollback,
  canManage = false,
  bad = {},
  events = [],
}: {
  policy: string;
  stage: string;
  entries: HistoryEntry[];
  current: string | null;
  canRollback: boolean;
  /** Manages the stage: a freeze refusal offers the override (the server checks again). */
  canManage?: boolean;
  bad?: Record<string, BadMark>;
  /** Issue 43: the policy's rings, requests and recorded failures in the stage, shown among the moves. */
  events?: StageEventEntry[];
}) {
  const [target, setTarget] = useState<string | null>(null);
  if (entries.length === 0 && events.length === 0) return <p className="card p-6 text-center text-slate-600">No changes recorded for {policy} in {stage}.</p>;
  return (
    <>
      {events.length > 0 && <StageEvents stage={stage} events={events} />}
      <ol className="card divide-y divide-slate-100" data-testid="history">
        {entries.map((e) => (
          <li key={e.id} className="flex flex-wrap items-center gap-3 px-4 py-3" data-kind={e.kind}>
            <span className="w-40 text-xs text-slate-600">{dateTime(e.at)}</span>
            <span className="badge bg-slate-100 text-slate-700">{e.kind}</span>
            <span className="mono">
              {shortId(e.fromRevisionId)} → {shortId(e.toRevisionId)}
            </span>
            <span className="text-slate-600">{e.actor}</span>
            {e.toRevisionId && bad[e.toRevisionId] && <BadRevisionMarker reason={bad[e.toRevisionId].reason} by={bad[e.toRevisionId].by} />}
            {e.reason && <HistoryReason reason={e.reason} />}
            {e.convergence && e.convergence.nodes > 0 && (
              <span className="text-xs text-slate-700" data-testid="convergence">
                {e.convergence.converged} of {e.convergence.nodes} node{e.convergence.nodes === 1 ? '' : 's'} on this revision
                {e.convergence.lastConvergedAt && <> (last reported {dateTime(e.convergence.lastConvergedAt)})</>}
              </span>
            )}
            <span className="ml-auto flex items-center gap-2">
              {e.toRevisionId && (
                <Link className="text-xs text-indigo-700 hover:underline" href={`/policies/${encodeURIComponent(policy)}/revisions/${encodeURIComponent(e.toRevisionId)}`}>
                  view
                </Link>
              )}
              {canRollback && e.toRevisionId && e.toRevisionId !== current && !bad[e.toRevisionId] && (
                <button type="button" className="btn py-0.5 text-xs" onClick={() => setTarget(e.toRevisionId)} data-testid="rollback">
                  Return to this<span className="sr-only"> revision ({shortId(e.toRevisionId)})</span>
                </button>
              )}
              {e.toRevisionId === current && e === entries.find((x) => x.toRevisionId === current) && <span className="badge bg-emerald-50 text-emerald-700">current</span>}
            </span>
          </li>
        ))}
      </ol>
      {target && <RollbackDialog policy={policy} stage={stage} toRevisionId={target} current={current} canManage={canManage} onClose={() => setTarget(null)} />}
    </>
  );
}

/**
 * Issue 43: the policy's ringed rollouts, promotion requests and recorded failures in the stage, newest first,
 * beside the pointer's moves (a ring moves the pointer only at its last step; a request only when applied).
 */
function StageEvents({ stage, events }: { stage: string; events: StageEventEntry[] }) {
  return (
    <section aria-labelledby="stage-events-h" className="mb-4">
      <h2 id="stage-events-h" className="mb-1 text-sm font-semibold text-slate-700">
        Rings, requests and failures in {stage}
      </h2>
      <ol className="card divide-y divide-slate-100" data-testid="history-events">
        {events.map((ev) => (
          <li key={ev.id} className="flex flex-wrap items-center gap-3 px-4 py-2" data-kind={ev.kind} data-action={ev.action} data-testid="history-event">
            <span className="w-40 text-xs text-slate-600">{dateTime(ev.at)}</span>
            <span className={`badge ${ev.kind === 'verdict' ? 'bg-red-100 text-red-900' : ev.kind === 'ring' ? 'bg-indigo-50 text-indigo-800' : 'bg-violet-50 text-violet-800'}`}>{ev.kind === 'verdict' ? 'failed here' : ev.kind}</span>
            <span className="text-slate-800">{ev.text}</span>
            <span className="text-slate-600">{ev.actor}</span>
            <span className="ml-auto flex items-center gap-2">
              {ev.links.map((l) => (
                <Link key={l.href} className="text-xs text-indigo-700 underline" href={l.href}>
                  {l.label}
                  <span className="sr-only"> ({dateTime(ev.at)})</span>
                </Link>
              ))}
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}

/** The reason, with a freeze override and an approved request (which the pointer history appends as " — " parts) set apart. */
function HistoryReason({ reason }: { reason: string }) {
  const parts = reason.split(' — ');
  return (
    <span className="flex flex-wrap items-center gap-1.5 text-slate-600">
      {parts.map((p, i) =>
        p.startsWith("allowed without approval by the stage's automatic rollback rule") ? (
          <span key={i} className="badge bg-red-100 text-red-900" data-testid="automatic-rollback">
            {p}
          </span>
        ) : p.startsWith('freeze override') ? (
          <span key={i} className="badge bg-sky-100 text-sky-900" data-testid="freeze-override">
            {p}
          </span>
        ) : p.startsWith('approved request') ? (
          <span key={i} className="badge bg-violet-50 text-violet-800">
            {p}
          </span>
        ) : (
          <span key={i}>“{p}”</span>
        ),
      )}
    </span>
  );
}
