'use client';

import { useQuery } from '@tanstack/react-query';
import { ApiError, fetchJson } from '@/lib/api/client';
import Link from 'next/link';
import { shortId } from '@/lib/format';
import type { MovePreviewDto } from '@/lib/types/move-preview';
import { verdictLine, type StageVerdictDto } from '@/lib/types/verdicts';
import { Time } from './time';

const q = encodeURIComponent;
/** A reason as a sentence: its own final punctuation, or a full stop. */
const sentence = (s: string) => (/[.!?]$/.test(s.trim()) ? s.trim() : `${s.trim()}.`);

export type MovePreviewRequest =
  | { policy: string; stage: string; kind: 'promote'; from: string }
  | { policy: string; stage: string; kind: 'promote-cookbook'; from: string; cookbook: string; expectedRevisionId: string | null }
  | { policy: string; stage: string; kind: 'rollback'; toRevisionId: string };

/**
 * Issue 29: the guard's answer before the click — POST …/preview, the dry run
 * of the same judgement movePointer enforces. `null` disables the query.
 */
export function useMovePreview(req: MovePreviewRequest | null) {
  return useQuery(movePreviewQuery(req));
}

/** The query options of one preview (for useQueries: the bulk dialog asks once per policy). */
export function movePreviewQuery(req: MovePreviewRequest | null) {
  return {
    queryKey: ['move-preview', req],
    enabled: !!req,
    retry: false,
    queryFn: ({ signal }: { signal: AbortSignal }) => {
      const r = req!;
      const body =
        r.kind === 'promote'
          ? { kind: r.kind, from: r.from }
          : r.kind === 'promote-cookbook'
            ? { kind: r.kind, from: r.from, cookbook: r.cookbook, expected_revision_id: r.expectedRevisionId }
            : { kind: r.kind, to_revision_id: r.toRevisionId };
      return fetchJson<MovePreviewDto>(`/api/v1/policy_groups/${q(r.stage)}/policies/${q(r.policy)}/preview`, { method: 'POST', body, signal });
    },
  };
}

/** "10 minutes ago", "3 hours ago", "2 days ago", "just now". */
function ago(iso: string, now: number): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  const unit = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'} ago`;
  if (s < 60) return 'just now';
  if (s < 3600) return unit(Math.floor(s / 60), 'minute');
  if (s < 86400) return unit(Math.floor(s / 3600), 'hour');
  return unit(Math.floor(s / 86400), 'day');
}

/** Issue 43: "failed in a canary ring in qa 10 minutes ago: 1 of 3 nodes, ruby_block[…]" (the time relative to now). */
export function verdictWords(v: StageVerdictDto, now = Date.now()): string {
  return verdictLine(v, ago(v.at, now));
}

/**
 * The refusals (`blocked_by`) that no block of the answer states on its own: the bad mark, a freeze and an unmet
 * gate the reader may not override each have theirs (with the time formatted, the reason, who may override), so
 * their sentence is not said a second time. Anything else (no right to promote into the stage, a refusal this
 * view has no block for) is kept: an unknown reason is shown, never dropped.
 */
export function otherRefusals(p: MovePreviewDto): string[] {
  const stated: ((line: string) => boolean)[] = [];
  if (p.bad_revision) stated.push((l) => l.startsWith('Revision ') && l.includes(' is marked bad by '));
  if (p.freeze && !p.freeze.may_override) stated.push((l) => l.startsWith(`${p.stage} is frozen until `));
  if (p.gate && !p.gate.met && !p.gate.may_override) stated.push((l) => l.startsWith(`The promotion gate of ${p.stage} is not met`));
  return p.blocked_by.filter((l) => !stated.some((isStated) => isStated(l)));
}

/** Why the guard refuses, in a few words, for a row of a list (the bulk dialog states the freeze itself, once). */
function refusalLine(p: MovePreviewDto): string {
  const other = otherRefusals(p)[0];
  if (other) return other.replace(/\.$/, '');
  if (p.bad_revision) return `revision ${shortId(p.to_revision_id)} is marked bad by ${p.bad_revision.marked_by} (${p.bad_revision.reason})`;
  if (p.freeze) return `${p.stage} is frozen`;
  if (p.gate && !p.gate.met) return `the promotion gate is not met (${p.gate.unmet.join('; ')})`;
  return p.action;
}

/** One line per outcome, for lists (the bulk dialog's rows). */
export function outcomeLine(p: MovePreviewDto): string {
  const elsewhere = p.verdicts?.elsewhere.length ? `; note: ${verdictWords(p.verdicts.elsewhere[p.verdicts.elsewhere.length - 1])}` : '';
  if (p.outcome === 'request') return `needs ${p.approvals_required} approval${p.approvals_required === 1 ? '' : 's'} (${p.reasons[0]?.message ?? 'the stage asks'})${elsewhere}`;
  if (p.outcome === 'blocked') return `refused: ${refusalLine(p)}`;
  if (p.outcome === 'unchanged') return 'nothing to move';
  const how = p.needs.includes('verdict_override_reason')
    ? `it ${verdictWords(p.verdicts.here[p.verdicts.here.length - 1])}: moves now only with your written override`
    : p.needs.includes('freeze_override_reason')
      ? 'moves now with your freeze override'
      : p.needs.includes('gate_override_reason')
        ? 'moves now with your gate override'
        : 'moves now';
  return `${how}${elsewhere}`;
}

export type MovePreviewState = ReturnType<typeof useMovePreview>;

export interface GuardOverrides {
  freeze: string;
  gate: string;
  /** Issue 43: the written reason to move a revision that failed in this stage before. */
  verdict?: string;
}

/** Whether the answer lets the confirm go: loaded, not refused, and every override it needs written. */
export function guardAllows(p: MovePreviewDto | undefined, o: GuardOverrides): boolean {
  if (!p || p.outcome === 'blocked' || p.outcome === 'unchanged') return false;
  if (p.needs.includes('freeze_override_reason') && !o.freeze.trim()) return false;
  if (p.needs.includes('gate_override_reason') && !o.gate.trim()) return false;
  if (p.needs.includes('verdict_override_reason') && !o.verdict?.trim()) return false;
  return true;
}

/** The confirm button's words: the guard's own ("Move now", "Request 2 approvals", "Override the freeze"). */
export function guardAction(p: MovePreviewDto | undefined, fallback = 'Checking'): string {
  return p?.action ?? fallback;
}

const TONE: Record<MovePreviewDto['outcome'], string> = {
  move: 'border-emerald-300 bg-emerald-50 text-emerald-950',
  request: 'border-amber-300 bg-amber-50 text-amber-950',
  blocked: 'border-red-300 bg-red-50 text-red-900',
  unchanged: 'border-slate-300 bg-slate-50 text-slate-900',
};

const HEAD: Record<MovePreviewDto['outcome'], (p: MovePreviewDto) => string> = {
  move: (p) => (p.needs.some((n) => n === 'freeze_override_reason' || n === 'gate_override_reason' || n === 'verdict_override_reason') ? 'Moves now, with your override' : 'Moves now: no approval needed'),
  request: (p) => `Needs ${p.approvals_required} approval${p.approvals_required === 1 ? '' : 's'}: opens a request`,
  blocked: () => 'Refused',
  unchanged: () => 'Nothing to move',
};

/**
 * What confirming will do, from the guard itself: moves now or opens a request
 * (how many approvals, which rules), a freeze (reason, end, whether you may
 * override), a bad revision, the promotion gate, downgrades and reverted
 * attributes. The override fields it needs are asked for here, before the click.
 */
export function GuardAnswer({ preview, overrides, onOverrides }: { preview: MovePreviewState; overrides: GuardOverrides; onOverrides: (o: GuardOverrides) => void }) {
  if (preview.isPending && preview.fetchStatus !== 'idle') {
    return (
      <section aria-labelledby="guard-answer-h" data-testid="guard-answer" data-outcome="pending">
        <h3 id="guard-answer-h" className="mb-1 text-xs font-semibold uppercase text-slate-600">
          What confirming does
        </h3>
        <p className="text-slate-600">Asking the guard…</p>
      </section>
    );
  }
  if (preview.isError) {
    const e = preview.error;
    return (
      <section aria-labelledby="guard-answer-h" data-testid="guard-answer" data-outcome="error">
        <h3 id="guard-answer-h" className="mb-1 text-xs font-semibold uppercase text-slate-600">
          What confirming does
        </h3>
        <div role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-red-800">
          <p>The guard could not be asked, so this change cannot be confirmed yet: {e instanceof ApiError ? e.message : (e as Error).message}</p>
          {!(e instanceof ApiError && e.status < 500) && (
            <button type="button" className="btn mt-2" onClick={() => preview.refetch()}>
              Retry
            </button>
          )}
        </div>
      </section>
    );
  }
  const p = preview.data;
  if (!p) return null;
  return <GuardAnswerView p={p} overrides={overrides} onOverrides={onOverrides} />;
}

/** The guard's answer once it is known (the compose page gets it with its own preview). */
export function GuardAnswerView({ p, overrides, onOverrides }: { p: MovePreviewDto; overrides: GuardOverrides; onOverrides: (o: GuardOverrides) => void }) {
  return (
    <section aria-labelledby="guard-answer-h" data-testid="guard-answer" data-outcome={p.outcome}>
      <h3 id="guard-answer-h" className="mb-1 text-xs font-semibold uppercase text-slate-600">
        What confirming does
      </h3>
      <div className={`space-y-2 rounded-md border p-3 ${TONE[p.outcome]}`}>
        <p className="font-semibold" data-testid="guard-headline">
          {HEAD[p.outcome](p)}
        </p>
        {/* Refused: each reason once, in the blocks below; the summary (every reason in one sentence) would repeat them. */}
        {p.outcome === 'blocked' ? (
          otherRefusals(p).map((line) => (
            <p key={line} data-testid="guard-refusal">
              {line}
            </p>
          ))
        ) : p.outcome === 'request' ? (
          // The headline says how many approvals, the list below why: the summary would say both again.
          <p data-testid="guard-summary">
            Confirming opens a promotion request{p.reasons.length ? ` (${p.reasons.length === 1 ? 'the rule' : 'the rules'} below)` : ''}: nothing moves into {p.stage} until it is approved.
          </p>
        ) : (
          <p data-testid="guard-summary">{p.summary}</p>
        )}
        {p.outcome === 'request' && p.reasons.length > 0 && (
          <ul className="list-disc pl-5" data-testid="guard-reasons">
            {p.reasons.map((r, i) => (
              <li key={i}>{r.message}</li>
            ))}
          </ul>
        )}
        {(p.verdicts?.here.length ?? 0) > 0 && (
          <div data-testid="guard-verdict" data-where="here">
            {p.verdicts.may_override ? (
              <>
                {p.verdicts.here.map((v) => (
                  <p key={v.id}>
                    <b>This revision {verdictWords(v)}.</b>{' '}
                    <Link href={v.url} className="underline">
                      See the evidence<span className="sr-only"> of its failure in {v.stage}</span>
                    </Link>
                  </p>
                ))}
                <div className="mt-1">
                  <label htmlFor="guard-verdict-override" className="mb-1 block text-xs font-semibold uppercase">
                    Move it into {p.stage} again anyway: reason (required, kept in the audit log and the history)
                  </label>
                  <textarea id="guard-verdict-override" className="input h-16 text-slate-900" value={overrides.verdict ?? ''} onChange={(e) => onOverrides({ ...overrides, verdict: e.target.value })} maxLength={1000} />
                </div>
              </>
            ) : (
              // The refusal above says what happened and who may override; here only the way to the evidence.
              p.verdicts.here.map((v) => (
                <p key={v.id}>
                  <Link href={v.url} className="underline">
                    See the evidence of its failure in {v.stage}
                  </Link>
                </p>
              ))
            )}
          </div>
        )}
        {(p.verdicts?.elsewhere.length ?? 0) > 0 && (
          <div data-testid="guard-verdict" data-where="elsewhere">
            {p.verdicts.elsewhere.map((v) => (
              <p key={v.id}>
                Note: this revision {verdictWords(v)} (
                <Link href={v.url} className="underline">
                  evidence<span className="sr-only"> of its failure in {v.stage}</span>
                </Link>
                ). That does not stop this move into {p.stage}.
              </p>
            ))}
          </div>
        )}
        {p.bad_revision && (
          <p data-testid="guard-bad">
            Marked bad by {p.bad_revision.marked_by} on <Time iso={p.bad_revision.marked_at} />: {sentence(p.bad_revision.reason)} It cannot be promoted or rolled back to anywhere until it is unmarked.
          </p>
        )}
        {p.freeze && (
          <div data-testid="guard-freeze">
            <p>
              {p.stage} is frozen until <Time iso={p.freeze.ends_at} />: {sentence(p.freeze.reason)}{' '}
              {p.freeze.may_override ? 'You manage this stage and may override the freeze with a written reason.' : 'Only someone who manages this stage may override it.'}
            </p>
            {p.freeze.may_override && (
              <div className="mt-1">
                <label htmlFor="guard-freeze-override" className="mb-1 block text-xs font-semibold uppercase">
                  Override the freeze: reason (required, kept in the audit log and the history)
                </label>
                <textarea id="guard-freeze-override" className="input h-16 text-slate-900" value={overrides.freeze} onChange={(e) => onOverrides({ ...overrides, freeze: e.target.value })} maxLength={1000} />
              </div>
            )}
          </div>
        )}
        {p.gate && (
          <div data-testid="guard-gate" data-met={p.gate.met ? 'true' : 'false'}>
            {p.gate.met ? (
              <p>
                The promotion gate is met{p.gate.from_stage ? ` in ${p.gate.from_stage}` : ''}: {p.gate.converged} of {p.gate.nodes} nodes converged (needs {p.gate.required}).
              </p>
            ) : (
              <>
                <p>The promotion gate is not met{p.gate.from_stage ? ` in ${p.gate.from_stage}` : ''}:</p>
                <ul className="list-disc pl-5">
                  {p.gate.unmet.map((u) => (
                    <li key={u}>{u}</li>
                  ))}
                </ul>
                <p data-testid="guard-gate-opens">
                  {p.gate.checks?.some((c) => c.result !== 'pass') && p.gate.converged >= p.gate.required ? (
                    'It opens once its outside checks pass.'
                  ) : p.gate.opens_at ? (
                    <>
                      It opens at <Time iso={p.gate.opens_at} />, when the soak time is over (if the nodes stay converged).
                    </>
                  ) : (
                    `It opens once enough nodes${p.gate.from_stage ? ` in ${p.gate.from_stage}` : ''} have converged this revision (${p.gate.converged} of the ${p.gate.required} needed so far).`
                  )}
                </p>
                {p.gate.may_override ? (
                  <div className="mt-1">
                    <label htmlFor="guard-gate-override" className="mb-1 block text-xs font-semibold uppercase">
                      Override the gate: reason (required, audited)
                    </label>
                    <textarea id="guard-gate-override" className="input h-16 text-slate-900" value={overrides.gate} onChange={(e) => onOverrides({ ...overrides, gate: e.target.value })} maxLength={1000} />
                  </div>
                ) : (
                  <p>Only someone who manages {p.stage} may override the gate.</p>
                )}
              </>
            )}
          </div>
        )}
        {p.gate?.checks && p.gate.checks.length > 0 && (
          <div data-testid="guard-gate-checks">
            <p>Outside checks (evaluated now):</p>
            <ul className="list-disc pl-5">
              {p.gate.checks.map((c) => (
                <li key={c.name} data-result={c.result}>
                  {c.name}: {c.result === 'pass' ? 'passed' : c.result === 'fail' ? 'failed' : 'inconclusive'} — {c.detail}
                  {c.value !== null ? ` (value ${c.value})` : ''}, {c.duration_ms} ms
                </li>
              ))}
            </ul>
          </div>
        )}
        {(p.downgrades.length > 0 || p.removed_cookbooks.length > 0 || p.attribute_changes.length > 0) && (
          <div data-testid="guard-risks">
            {p.downgrades.length > 0 && (
              <p>
                Downgrades {p.downgrades.length} cookbook{p.downgrades.length === 1 ? '' : 's'}: {p.downgrades.map((d) => `${d.name} ${d.from} → ${d.to}`).join(', ')}.
              </p>
            )}
            {p.removed_cookbooks.length > 0 && <p>Removes {p.removed_cookbooks.join(', ')}.</p>}
            {p.attribute_changes.length > 0 && (
              <p>
                Changes {p.attribute_changes.length} attribute{p.attribute_changes.length === 1 ? '' : 's'}: {p.attribute_changes.slice(0, 8).map((a) => `${a.precedence} ${a.path} (${a.kind})`).join(', ')}
                {p.attribute_changes.length > 8 ? ', …' : ''}.
              </p>
            )}
          </div>
        )}
        {p.outcome !== 'unchanged' && (
          <p className="text-xs">
            {shortId(p.from_revision_id)} → {shortId(p.to_revision_id)}
          </p>
        )}
      </div>
    </section>
  );
}
