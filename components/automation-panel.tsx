'use client';

import { useState } from 'react';
import type { AutomationStateDto } from '@/lib/domain/rollout';
import type { TimelineEntryDto } from '@/lib/services/runs';
import { runAction } from '@/lib/actions/client';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { resumeAutomationAction } from '@/lib/actions/admin/rollout-rule-actions';
import { dateTime } from '@/lib/format';

/** Issue 47: the automation's state in words (the board's badge says the same in short). */
export function automationWords(stage: string, a: AutomationStateDto): string {
  if (a.state === 'off') return `Automatic promotion into ${stage} is off.`;
  if (a.state === 'held') return `Automatic promotion into ${stage} is held by ${a.held!.by} since ${dateTime(a.held!.at)}: ${a.held!.reason}`;
  if (a.state === 'waiting') return `Automatic promotion into ${stage} is waiting: ${a.waiting.map((w) => `${w.policy} ${w.revision_id.slice(0, 10)} waits for ${w.waiting_for}${w.until ? ` (until ${dateTime(w.until)})` : ''}`).join('; ')}`;
  return `Automatic promotion into ${stage} is on: a revision moves once it meets the gate in the stage before.`;
}

/**
 * Issue 47, on the stage's history page: the automation's state (with Resume for someone who manages the stage
 * while it is held) and the stage's timeline for the policy — pushed, converged, soaked, checked, auto-promoted,
 * held, resumed, rolled back — newest first.
 */
export function AutomationPanel({ stage, automation, entries, canManage }: { stage: string; automation: AutomationStateDto; entries: TimelineEntryDto[]; canManage: boolean }) {
  const [reason, setReason] = useState('');
  const resume = useActionMutation((v: { reason: string }) => runAction(resumeAutomationAction, { stage, ...(v.reason.trim() ? { reason: v.reason.trim() } : {}) }), {
    success: () => `Automatic promotion into ${stage} resumed`,
  });
  return (
    <section className="card mb-4 space-y-3 p-4" aria-labelledby="automation-heading" data-testid="automation-panel" data-state={automation.state}>
      <h2 id="automation-heading" className="text-sm font-semibold">
        Automatic promotion and timeline
      </h2>
      <p className="text-sm" data-testid="automation-state">
        {automationWords(stage, automation)}
      </p>
      {automation.state === 'held' && canManage && (
        <form
          className="flex flex-wrap items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            resume.mutate({ reason });
          }}
        >
          <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
            Why resume (optional)
            <input className="input w-80" value={reason} maxLength={1000} onChange={(e) => setReason(e.target.value)} />
          </label>
          <button type="submit" className="btn btn-primary" disabled={resume.isPending} data-testid="automation-resume">
            {resume.isPending ? 'Resuming…' : `Resume automatic promotion into ${stage}`}
          </button>
        </form>
      )}
      {entries.length ? (
        <ol className="space-y-1 text-sm" data-testid="stage-timeline">
          {entries.map((e, i) => (
            <li key={`${e.at}-${i}`} className="flex gap-2" data-kind={e.kind}>
              <span className="w-40 shrink-0 text-xs text-slate-600">{dateTime(e.at)}</span>
              <span className="badge shrink-0 bg-slate-100 text-slate-800">{e.kind}</span>
              <span>{e.summary}</span>
            </li>
          ))}
        </ol>
      ) : (
        <p className="text-sm text-slate-600">Nothing happened here yet.</p>
      )}
    </section>
  );
}
