'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { isActionError, runAction } from '@/lib/actions/client';
import { promoteCookbookAction } from '@/lib/actions/promotion/promote-cookbook-action';
import { promotePolicyAction } from '@/lib/actions/promotion/promote-policy-action';
import { schedulePromotionAction } from '@/lib/actions/promotion/schedule-actions';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import type { ActionServerError } from '@/lib/actions/safe-action';
import { ApiError, fetchJson } from '@/lib/api/client';
import { dateTime, shortId } from '@/lib/format';
import type { promoteCookbook } from '@/lib/services/promotion';
import { ChangePreview, sideLabel, useChangePreview } from './change-preview';
import { ArtifactWarning, useArtifactCheck } from './artifact-warning';
import { Field, FormAlert } from './form-field';
import { GuardAnswer, guardAction, guardAllows, useMovePreview, type GuardOverrides } from './guard-answer';
import { Modal } from './modal';
import { PromotionRefusal, RequestCreatedPanel, freezeOf, isBadRevisionError, requestOf, type CreatedRequest } from './promotion-outcome';
import { scheduleWhen } from './scheduled-promotions';

/** What the cookbook promotion's dry run answers (GET …/promote-cookbook/preview): the service's own result type. */
type CookbookPreview = Awaited<ReturnType<typeof promoteCookbook>>;
const q = encodeURIComponent;

/** Issue 29: promote now, or schedule: at a time (UTC), or when the stage's freeze ends. */
type When = 'now' | 'at' | 'freeze_end';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A datetime-local value (no zone) read as UTC, as the form says; anything else is sent as typed, for the server to name. */
function utcFromLocal(local: string): string {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(local) ? `${local.length === 16 ? `${local}:00` : local}Z` : local;
}

/** "02:00 UTC on 27 Nov" (with the year when it is not this year); null when the value is not a time yet. */
function scheduleLabel(local: string, now = new Date()): string | null {
  const t = Date.parse(utcFromLocal(local));
  if (!Number.isFinite(t)) return null;
  const d = new Date(t);
  const year = d.getUTCFullYear() === now.getUTCFullYear() ? '' : ` ${d.getUTCFullYear()}`;
  return `${d.toISOString().slice(11, 16)} UTC on ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}${year}`;
}

export interface PromoteTarget {
  policy: string;
  /** A stage, or `rev:<revision_id>` to start a revision that runs nowhere yet. */
  from: string;
  to: string;
  /** What the user sees in `to` now (null: the policy is not there yet). */
  expectedRevisionId: string | null;
  /** Promote only this cookbook (a derived revision) instead of the whole policy. */
  cookbook?: string;
  /** The viewer manages `to`: a freeze refusal then offers the override field (the server checks again). */
  canManage?: boolean;
  /** Issue 29: asking again for a closed request (the change is recomputed from what `to` runs now). */
  rerequest?: boolean;
}

/**
 * The promotion dialog: what changes, who is affected, the dependency check, a
 * reason, one confirm. The confirm stays disabled until the diff and the blast
 * radius have loaded; a failed request blocks it (with a retry), and so does a
 * 409 until the view is refreshed.
 */
export function PromoteDialog({ target, onClose }: { target: PromoteTarget; onClose: () => void }) {
  const { policy, from, to, cookbook } = target;
  const router = useRouter();
  const queryClient = useQueryClient();
  const [reason, setReason] = useState('');
  const [overrideReason, setOverrideReason] = useState('');
  const [freezeOverride, setFreezeOverride] = useState('');
  // Issue 29: the guard's answer before the click, and the overrides it asks for.
  const [overrides, setOverrides] = useState<GuardOverrides>({ freeze: '', gate: '' });
  const guard = useMovePreview(cookbook ? { policy, stage: to, kind: 'promote-cookbook', from, cookbook, expectedRevisionId: target.expectedRevisionId } : { policy, stage: to, kind: 'promote', from });
  const answer = guard.data;
  const [created, setCreated] = useState<CreatedRequest | null>(null);
  // Issue 29: scheduling is for a whole policy's promotion (a cookbook promotion derives its revision from what the stage runs when it is made).
  const canSchedule = !cookbook && !target.rerequest;
  const [chosen, setWhen] = useState<When>('now');
  const [atLocal, setAtLocal] = useState('');
  // The last freeze refusal stays in view (with its override field) while the user writes a reason.
  const [frozenError, setFrozenError] = useState<ActionServerError | null>(null);
  const frozen = freezeOf(frozenError, target.canManage);
  const artifacts = useArtifactCheck({ policy, from, to, cookbook });
  const needsOverride = !!artifacts.data?.to_requires_artifacts && artifacts.data.missing_artifacts.length > 0;
  const toHasPolicy = target.expectedRevisionId !== null;
  const preview = useChangePreview({ policy, from, to, toHasPolicy });
  // The dry run is a read over HTTP: cancelled when the dialog closes, cached by what it depends on.
  const check = useQuery({
    queryKey: ['cookbook-check', policy, cookbook, from, to, target.expectedRevisionId],
    enabled: !!cookbook,
    retry: false,
    queryFn: ({ signal }) =>
      fetchJson<CookbookPreview>(`/api/v1/policy_groups/${q(to)}/policies/${q(policy)}/promote-cookbook/preview?from=${q(from)}&cookbook=${q(cookbook!)}&expected_revision_id=${q(target.expectedRevisionId ?? '')}`, { signal }),
  });

  const mutation = useActionMutation(
    async () => {
      const common = {
        policy,
        from,
        to,
        expectedRevisionId: target.expectedRevisionId,
        reason: reason || undefined,
        overrideReason: (needsOverride && overrideReason.trim()) || undefined,
        freezeOverrideReason: (answer?.needs.includes('freeze_override_reason') && overrides.freeze.trim()) || (frozen?.canOverride && freezeOverride.trim()) || undefined,
        gateOverrideReason: (answer?.needs.includes('gate_override_reason') && overrides.gate.trim()) || undefined,
        verdictOverrideReason: (answer?.needs.includes('verdict_override_reason') && overrides.verdict?.trim()) || undefined,
      };
      const r = cookbook ? await runAction(promoteCookbookAction, { ...common, cookbook }) : await runAction(promotePolicyAction, common);
      const auditId = (r as { auditId?: string | null }).auditId ?? null;
      return { auditId, revisionId: 'revisionId' in r ? (r as { revisionId: string }).revisionId : null, request: requestOf(r) };
    },
    {
      invalidate: [['board'], ['requests'], ['move-preview']],
      then: (r) => {
        setFrozenError(null);
        // Into a protected stage the answer is a request: the dialog says so (with its link) instead of closing.
        if (r.request) setCreated(r.request);
        else onClose();
      },
      success: (r) =>
        r.request
          ? null
          : {
              message: cookbook ? `Promoted ${cookbook} into ${to}: new revision ${shortId(r.revisionId)}` : from.startsWith('rev:') ? `${to} now runs ${sideLabel(from)} of ${policy}` : `Promoted ${policy} to ${to}`,
              description: r.auditId ? <Link href={`/audit?focus=${r.auditId}`}>View the audit entry</Link> : 'Nothing changed: the stage already ran this revision.',
            },
      errors: 'inline',
    },
  );
  const freezeEnds = answer?.freeze?.ends_at ?? null;
  // "When the freeze ends" goes away with the freeze (a refreshed answer): then it is "now" again.
  const when: When = chosen === 'freeze_end' && !freezeEnds ? 'now' : chosen;
  const schedule = useActionMutation(
    () =>
      runAction(schedulePromotionAction, {
        stage: to,
        policy,
        from,
        when: when === 'freeze_end' ? 'freeze_end' : 'at',
        at: when === 'at' ? utcFromLocal(atLocal) : undefined,
        expectedRevisionId: target.expectedRevisionId,
        reason: reason || undefined,
      }),
    {
      invalidate: [['board']],
      then: () => onClose(),
      success: (r) => ({ message: `Scheduled: ${policy} into ${to} ${scheduleWhen(r)}`, description: <Link href="/requests#scheduled">See the scheduled promotions</Link> }),
      errors: 'inline',
    },
  );
  const scheduling = canSchedule && when !== 'now';
  const atLabel = when === 'at' ? scheduleLabel(atLocal) : null;
  const scheduleError = schedule.error as ActionServerError | null;
  const scheduleStale = isActionError(scheduleError) && scheduleError.code === 'conflict';
  const error = mutation.error as ActionServerError | null;
  // The last freeze refusal stays in view (with its override field) while the manager writes a reason.
  useEffect(() => {
    if (error && freezeOf(error)) setFrozenError(error);
  }, [error]);
  const stale = isActionError(error) && error.code === 'conflict' && !isBadRevisionError(error);
  const bad = isBadRevisionError(error);
  const checkError = check.error instanceof ApiError ? check.error : check.error ? new ApiError(0, { error: [(check.error as Error).message] }) : null;
  const checkStale = checkError?.status === 409;
  const cookbookDiff = check.data && !check.data.noop && 'diff' in check.data ? check.data.diff : null;
  const cookbookBlocked = !!cookbook && (!check.isSuccess || check.data.noop);
  const ready = preview.ready && !cookbookBlocked;
  // The artifact check must have answered, and a stage that requires artifacts needs a reason to go without them.
  const disabled =
    !ready || !guardAllows(answer, overrides) || !artifacts.isSuccess || (needsOverride && !overrideReason.trim()) || mutation.isPending || stale || checkStale || bad || (!cookbook && preview.identical) || (!!frozen && (!frozen.canOverride || !freezeOverride.trim()));
  const fromLabel = sideLabel(from);
  const scheduleDisabled = !ready || !answer || answer.outcome === 'unchanged' || (!cookbook && preview.identical) || schedule.isPending || scheduleStale || stale || (when === 'at' && !atLocal);
  const scheduleButton = schedule.isPending ? 'Scheduling…' : when === 'freeze_end' ? 'Schedule for when the freeze ends' : atLabel ? `Schedule for ${atLabel}` : 'Schedule: pick a time first';

  return (
    <Modal
      title={target.rerequest ? `Ask again: ${cookbook ? `cookbook ${cookbook} of ` : ''}${policy} → ${to}` : cookbook ? `Promote cookbook ${cookbook}: ${fromLabel} → ${to}` : from.startsWith('rev:') ? `Run ${policy} ${fromLabel} in ${to}` : `Promote ${policy}: ${fromLabel} → ${to}`}
      onClose={onClose}
      wide
    >
      {created ? (
        <RequestCreatedPanel request={created} stage={to} onClose={onClose} />
      ) : (
      <div className="space-y-4" data-testid="promote-dialog">
        <ChangePreview
          preview={preview}
          policy={policy}
          from={from}
          to={to}
          toHasPolicy={toHasPolicy}
          override={
            cookbook
              ? {
                  diff: check.data && !check.data.noop ? cookbookDiff : null,
                  pending: check.isPending,
                  note: check.data && !check.data.noop ? `The derived revision ${shortId(check.data.revisionId)} changes only this in ${to}:` : undefined,
                }
              : undefined
          }
        />
        <section aria-labelledby="artifact-check">
          <h3 id="artifact-check" className="mb-1 text-xs font-semibold uppercase text-slate-600">
            Cookbooks on the server
          </h3>
          <ArtifactWarning check={artifacts} to={to} overrideReason={overrideReason} onOverrideReason={setOverrideReason} errors={mutation.formErrors?.fieldErrors.overrideReason} />
        </section>
        {cookbook && (
          <section aria-labelledby="dependency-check">
            <h3 id="dependency-check" className="mb-1 text-xs font-semibold uppercase text-slate-600">
              Dependency check
            </h3>
            {check.isPending && <p className="text-slate-600">Checking every constraint…</p>}
            {check.data && check.data.noop && <p className="text-slate-700">{to} already has exactly this {cookbook}: nothing to promote.</p>}
            {check.data && !check.data.noop && (
              <p className="text-emerald-800" data-testid="dependency-ok">
                ✓ All constraints hold: {cookbook} {check.data.before?.version ?? '(absent)'} → {check.data.after.version}. A new revision {shortId(check.data.revisionId)} will be derived from {to}&apos;s lock.
              </p>
            )}
            {checkError && (
              <div className="rounded-md border border-red-200 bg-red-50 p-3 text-red-800" role="alert">
                <p className="font-medium">{checkError.message}</p>
                {checkError.errors.length > 0 && (
                  <ul className="mt-1 list-disc pl-5">
                    {checkError.errors.map((e, i) => (
                      <li key={i}>{e.message}</li>
                    ))}
                  </ul>
                )}
                {!checkStale && checkError.status !== 422 && (
                  <button type="button" className="btn mt-2" onClick={() => check.refetch()}>
                    Retry
                  </button>
                )}
              </div>
            )}
          </section>
        )}
        <GuardAnswer preview={guard} overrides={overrides} onOverrides={setOverrides} />
        {canSchedule && (
          <fieldset className="space-y-2" data-testid="promote-when" aria-describedby={schedule.formErrors?.fieldErrors.when ? 'promote-when-error' : undefined}>
            <legend className="mb-1 text-xs font-semibold uppercase text-slate-600">When</legend>
            <div className="flex flex-wrap gap-x-5 gap-y-1">
              <label className="flex items-center gap-1.5">
                <input type="radio" name="promote-when" value="now" checked={when === 'now'} onChange={() => setWhen('now')} /> Now, as the guard says above
              </label>
              <label className="flex items-center gap-1.5">
                <input type="radio" name="promote-when" value="at" checked={when === 'at'} onChange={() => setWhen('at')} /> At a time (UTC)
              </label>
              {freezeEnds && (
                <label className="flex items-center gap-1.5">
                  <input type="radio" name="promote-when" value="freeze_end" checked={when === 'freeze_end'} onChange={() => setWhen('freeze_end')} /> When the freeze ends ({dateTime(freezeEnds)})
                </label>
              )}
            </div>
            {schedule.formErrors?.fieldErrors.when && (
              <p id="promote-when-error" className="text-xs font-medium text-red-700" data-field-error="when">
                When {schedule.formErrors.fieldErrors.when.join(' ')}
              </p>
            )}
            {when === 'at' && (
              <Field
                label="Time (UTC)"
                name="at"
                errors={schedule.formErrors}
                hint={atLabel ? `${atLabel} is ${new Date(utcFromLocal(atLocal)).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })} where you are.` : 'Read as UTC, like every time in the console.'}
                className="max-w-xs"
              >
                {(c) => <input {...c} type="datetime-local" className="input mt-1" value={atLocal} onChange={(e) => setAtLocal(e.target.value)} required />}
              </Field>
            )}
            {scheduling && (
              <p className="rounded-md border border-indigo-200 bg-indigo-50 p-3 text-indigo-950" data-testid="schedule-note">
                Nothing moves now. {when === 'freeze_end' ? `When the freeze ends (${dateTime(freezeEnds!)})` : atLabel ? `At ${atLabel}` : 'At the time you pick'}, the guard is asked again, with your rights then: if it allows the move, {to} runs {policy}{' '}
                {from.startsWith('rev:') ? `revision ${shortId(from.slice(4))}` : `${shortId(answer?.to_revision_id)} (what ${from} runs now)`} from then on; if {to} asks for approval, a promotion request is opened then; if it refuses (a freeze, a bad revision, an unmet gate, or {to} having changed since now), the schedule fails and says why.
                {when === 'freeze_end' ? ' If the stage is frozen again by then, it waits for that freeze to end too.' : ''} Scheduled promotions are listed on the Requests page, where they can be cancelled.
              </p>
            )}
          </fieldset>
        )}
        <Field label={<span className="mb-1 block font-semibold uppercase">Reason (optional, kept in the audit log)</span>} name="reason" errors={scheduling ? schedule.formErrors : mutation.formErrors}>
          {(c) => <textarea {...c} className="input h-16" value={reason} onChange={(e) => setReason(e.target.value)} maxLength={1000} placeholder="e.g. CHG-1234: nginx security fix" />}
        </Field>
        {frozenError && <PromotionRefusal error={frozenError} canManage={target.canManage} overrideReason={freezeOverride} onOverrideReason={setFreezeOverride} />}
        {bad && error && <PromotionRefusal error={error} overrideReason="" onOverrideReason={() => {}} />}
        {error && !freezeOf(error) && !bad && (
          <div data-testid="promote-error">
            <FormAlert errors={stale ? mutation.formErrors : mutation.formErrors && { ...mutation.formErrors, formError: mutation.formErrors.formError && `The promotion was refused. ${mutation.formErrors.formError}` }} fields={['reason', ...(needsOverride ? ['overrideReason'] : [])]} />
          </div>
        )}
        {scheduling && scheduleError && (
          <div data-testid="schedule-error">
            <FormAlert errors={schedule.formErrors} fields={['at', 'when', 'reason']} />
          </div>
        )}
        {(stale || checkStale || (scheduling && scheduleStale)) && (
          <button
            type="button"
            className="btn"
            onClick={async () => {
              await queryClient.invalidateQueries({ queryKey: ['board'] });
              router.refresh();
              onClose();
            }}
          >
            Refresh and review again
          </button>
        )}
        <div className="flex items-center justify-end gap-2">
          {(!ready || !answer) && !preview.failed && !checkError && !guard.isError && <span className="text-xs text-slate-600">Waiting for the diff and the blast radius…</span>}
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          {scheduling ? (
            <button type="button" className="btn btn-primary" disabled={scheduleDisabled} onClick={() => schedule.mutate()} data-testid="promote-confirm">
              {scheduleButton}
            </button>
          ) : (
            <button type="button" className="btn btn-primary" disabled={disabled} onClick={() => mutation.mutate()} data-testid="promote-confirm">
              {mutation.isPending ? 'Promoting…' : `${frozen?.canOverride ? 'Override the freeze' : guardAction(answer)} — ${target.rerequest ? 'Ask again' : cookbook ? `Promote ${cookbook} to ${to}` : from.startsWith('rev:') ? `Run in ${to}` : `Promote to ${to}`}`}
            </button>
          )}
        </div>
      </div>
      )}
    </Modal>
  );
}
