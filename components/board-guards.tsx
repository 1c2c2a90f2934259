import Link from 'next/link';
import type { BoardGuards } from '@/lib/types/board';
import type { AutomationStateDto } from '@/lib/domain/rollout';
import type { StageGuardState } from '@/lib/types/guards';
import { dateTime } from '@/lib/format';
import { Time } from './time';

/** One banner per frozen stage: why, and when it opens again. */
export function FreezeBanners({ stages }: { stages: Record<string, StageGuardState> }) {
  const entries = Object.entries(stages).flatMap(([stage, s]) => (s.frozen ? [[stage, s.frozen] as const] : []));
  if (entries.length === 0) return null;
  return (
    <ul className="space-y-1.5" aria-label="Frozen stages" data-testid="freeze-banners">
      {entries.map(([stage, f]) => (
        <li key={stage} className="rounded-md border border-sky-300 bg-sky-50 px-3 py-2 text-sm text-sky-950" data-testid="freeze-banner" data-stage={stage}>
          <b>{stage} is frozen</b>
          {f.weekly ? ' (weekly window)' : ''}: {f.reason}. It opens at <Time iso={f.opens_at} />; until then only a manager of {stage} can promote, with a written reason.
        </li>
      ))}
    </ul>
  );
}

/** What a protected stage asks of a change, in words (the dialogs give the exact answer for a given change). */
function approvalText(stage: string, s: StageGuardState): string {
  const n = s.approvals_required;
  const rules = s.rules.length === 1 ? 'its rule' : `one of its ${s.rules.length} rules`;
  const base = n === 1 ? '1 approval' : `${n} approvals`;
  if (n > 0) return `Changes into ${stage} need at least ${base}${s.rules.length ? `; ${s.rules.length === 1 ? 'its rule' : `its ${s.rules.length} rules`} may ask for more` : ''}.`;
  if (s.rules.length) return `Changes into ${stage} need approval when ${rules} applies; other changes move at once.`;
  return `${stage} is protected, but no rule asks for an approval: changes move at once.`;
}

/** Issue 47: the stage's automatic promotion in one badge — on, waiting (for what, until when), held (by whom, why), off — linking to its timeline. */
function AutomationBadge({ stage, auto }: { stage: string; auto: AutomationStateDto }) {
  const title =
    auto.state === 'held'
      ? `Automatic promotion into ${stage} is held by ${auto.held!.by} since ${dateTime(auto.held!.at)}: ${auto.held!.reason}. Someone who manages ${stage} resumes it on the stage's history page.`
      : auto.state === 'waiting'
        ? `Automatic promotion into ${stage} is waiting: ${auto.waiting.map((w) => `${w.policy}: ${w.waiting_for}${w.until ? ` (until ${dateTime(w.until)})` : ''}`).join(' · ')}`
        : auto.state === 'on'
          ? `Automatic promotion into ${stage} is on: a revision moves once it meets the gate in the stage before.`
          : `Automatic promotion into ${stage} is off.`;
  const words = auto.state === 'held' ? `auto: held by ${auto.held!.by}` : auto.state === 'waiting' ? `auto: waiting${auto.waiting[0]?.until ? ` until ${dateTime(auto.waiting[0].until)}` : ''}` : `auto: ${auto.state}`;
  const tone = auto.state === 'held' ? 'bg-amber-100 text-amber-900' : auto.state === 'waiting' ? 'bg-slate-100 text-slate-800' : auto.state === 'on' ? 'bg-emerald-50 text-emerald-800' : 'bg-slate-50 text-slate-600';
  return (
    <Link href={`/history?stage=${encodeURIComponent(stage)}`} className={`badge ${tone}`} title={title} aria-label={title} data-testid="stage-automation" data-state={auto.state}>
      {words}
    </Link>
  );
}

/** Under a stage's column name: protected (and how many approvals at least), frozen, and (issue 47) its automatic promotion. */
export function StageGuardBadges({ stage, guards }: { stage: string; guards: BoardGuards | undefined }) {
  const state = guards?.stages[stage];
  const frozen = state?.frozen;
  const rules = state?.rules.length ?? 0;
  const auto = guards?.automation?.[stage];
  if (!state?.protected && !frozen && !auto) return null;
  return (
    <div className="mt-0.5 flex flex-wrap gap-1 normal-case tracking-normal">
      {auto && <AutomationBadge stage={stage} auto={auto} />}
      {state?.protected && (
        <span className="badge bg-violet-50 text-violet-800" title={approvalText(stage, state)} data-testid="stage-protected">
          {state.approvals_required === 0 && state.rules.length === 0 ? 'protected' : 'needs approval'}
        </span>
      )}
      {frozen && (
        <span className="badge bg-sky-100 text-sky-900" title={`Frozen until ${dateTime(frozen.opens_at)}: ${frozen.reason}`} data-testid="stage-frozen">
          frozen
        </span>
      )}
    </div>
  );
}

/**
 * In a cell: pending requests and scheduled promotions for this policy in this stage, a marker when the revision it
 * runs is marked bad, and (issue 43) where the revision it runs failed: a canary ring rolled back, or a stage's
 * automatic rollback (stage verdicts in force, in the stages the viewer sees).
 */
export function CellGuards({ policy, stage, revisionId, guards }: { policy: string; stage: string; revisionId: string | null; guards: BoardGuards | undefined }) {
  const pending = guards?.pending[`${stage}|${policy}`];
  const scheduled = guards?.scheduled?.[`${stage}|${policy}`];
  const bad = revisionId ? guards?.bad[`${policy}|${revisionId}`] : undefined;
  const failed = revisionId ? (guards?.verdicts?.[`${policy}|${revisionId}`] ?? []) : [];
  if (!pending && !bad && !scheduled && !failed.length) return null;
  return (
    <div className="flex flex-wrap gap-1 text-xs">
      {pending && (
        <Link
          href={pending.id ? `/requests/${encodeURIComponent(pending.id)}` : `/requests?view=all&status=pending&stage=${encodeURIComponent(stage)}&policy=${encodeURIComponent(policy)}`}
          className="badge bg-amber-100 text-amber-900 underline-offset-2 hover:underline"
          data-testid="pending-requests"
        >
          {pending.count} pending request{pending.count === 1 ? '' : 's'}
          <span className="sr-only"> for {policy} in {stage}</span>
        </Link>
      )}
      {scheduled && (
        <Link
          href={`/requests?view=all&stage=${encodeURIComponent(stage)}&policy=${encodeURIComponent(policy)}#scheduled`}
          className="badge bg-indigo-50 text-indigo-900 underline-offset-2 hover:underline"
          data-testid="scheduled-promotions"
        >
          {scheduled.count === 1 ? `scheduled ${dateTime(scheduled.next_run_at)}` : `${scheduled.count} scheduled, next ${dateTime(scheduled.next_run_at)}`}
          <span className="sr-only"> (promotion of {policy} into {stage})</span>
        </Link>
      )}
      {bad && <BadRevisionMarker reason={bad.reason} by={bad.by} />}
      {failed.map((v) => (
        <Link
          key={v.id}
          href={v.url}
          className="badge bg-red-100 text-red-900 ring-1 ring-red-300 underline-offset-2 hover:underline"
          title={`${v.summary}. Moving it into ${v.stage} again needs a written override from someone who manages ${v.stage}.`}
          data-testid="failed-in-stage"
          data-stage={v.stage}
        >
          ✗ failed in {v.stage}
          {v.source === 'ring' ? ' (canary ring)' : ' (rolled back)'}: {v.failed_nodes} of {v.nodes} node{v.nodes === 1 ? '' : 's'}
          <span className="sr-only">
            , {v.failed_resource ?? 'resource unknown'}, {dateTime(v.at)}; moving it into {v.stage} again needs a written override from someone who manages {v.stage}
          </span>
        </Link>
      ))}
    </div>
  );
}

/** A revision marked bad: visible text (not only colour), with who and why on hover and for screen readers. */
export function BadRevisionMarker({ reason, by }: { reason: string; by: string }) {
  return (
    <span className="badge bg-red-100 text-red-800 ring-1 ring-red-300" title={`Marked bad by ${by}: ${reason}`} data-testid="bad-revision">
      ⚠ bad revision<span className="sr-only">, marked by {by}: {reason}</span>
    </span>
  );
}

/** On the compare page: which side runs (or would bring) a revision marked bad. */
export function BadRevisionNotes({ sides, bad }: { sides: { label: string; revisionId: string }[]; bad: Record<string, { reason: string; by: string; at: string }> }) {
  const marked = sides.filter((s, i) => bad[s.revisionId] && sides.findIndex((x) => x.revisionId === s.revisionId) === i);
  if (marked.length === 0) return null;
  return (
    <ul className="mb-3 space-y-1.5" data-testid="compare-bad-revisions">
      {marked.map((s) => (
        <li key={s.revisionId} className="rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900">
          <b>⚠ {s.label}</b> (<span className="mono">{s.revisionId.slice(0, 10)}</span>) is marked bad by {bad[s.revisionId].by}: “{bad[s.revisionId].reason}”. It cannot be promoted or rolled back to.
        </li>
      ))}
    </ul>
  );
}
