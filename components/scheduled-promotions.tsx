'use client';

import Link from 'next/link';
import { useEffect, useRef, useState } from 'react';
import { runAction } from '@/lib/actions/client';
import { cancelScheduledPromotionAction } from '@/lib/actions/promotion/schedule-actions';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { dateTime, shortId } from '@/lib/format';
import type { ScheduledPromotionDto } from '@/lib/types/scheduled-promotions';
import { ConfirmDialog } from './modal';
import { ACTIONS, DataTable } from '@/components/data-table';

/** "at 2026-11-27 02:00 UTC" or "when the freeze ends (2026-11-27 06:00 UTC)". */
export function scheduleWhen(s: Pick<ScheduledPromotionDto, 'when' | 'run_at'>): string {
  return s.when === 'freeze_end' ? `when the freeze ends (${dateTime(s.run_at)})` : `at ${dateTime(s.run_at)}`;
}

const source = (s: ScheduledPromotionDto) => (s.from_stage ? `${s.from_stage}'s revision ${shortId(s.to_revision_id)}` : `revision ${shortId(s.to_revision_id)}`);

/** What became of a decided schedule, in words (and the request it opened). */
function outcome(s: ScheduledPromotionDto) {
  const o = s.outcome ?? {};
  if (s.status === 'applied') return <>moved {o.audit_id ? <Link href={`/audit?focus=${encodeURIComponent(String(o.audit_id))}`} className="text-indigo-700 underline-offset-2 hover:underline">(audit entry)</Link> : null}</>;
  if (s.status === 'requested')
    return (
      <>
        opened a request for {String(o.approvals_required ?? '')} approval{o.approvals_required === 1 ? '' : 's'}{' '}
        {o.request_id ? (
          <Link href={`/requests/${encodeURIComponent(String(o.request_id))}`} className="text-indigo-700 underline-offset-2 hover:underline">
            (open it)
          </Link>
        ) : null}
      </>
    );
  if (s.status === 'failed') return <>refused by the guard: {String(o.error ?? 'no reason recorded')}</>;
  return <>cancelled by {String(o.cancelled_by ?? 'someone')}</>;
}

/**
 * Issue 29: the pending scheduled promotions a user may see (with a cancel, after a confirmation, for whoever
 * scheduled one or manages its stage), and the recently decided ones with what became of them.
 */
export function ScheduledPromotions({ pending, recent }: { pending: ScheduledPromotionDto[]; recent: ScheduledPromotionDto[] }) {
  const [cancelling, setCancelling] = useState<ScheduledPromotionDto | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  // The cancelled row goes away with the page's refresh: then the keyboard user is put back at the list, not on the page's body.
  const cancelled = useRef<string | null>(null);
  useEffect(() => {
    if (cancelled.current && !pending.some((s) => s.id === cancelled.current)) {
      cancelled.current = null;
      heading.current?.focus();
    }
  }, [pending]);
  const mutation = useActionMutation((id: string) => runAction(cancelScheduledPromotionAction, { id }), {
    invalidate: [['board']],
    then: (r) => {
      cancelled.current = r.id;
      setCancelling(null);
    },
    success: (r) => `Cancelled: ${r.policy} will not be promoted into ${r.stage} ${scheduleWhen(r)}.`,
  });
  return (
    <section aria-labelledby="scheduled" className="mt-8 space-y-2" data-testid="scheduled-section">
      <h2 id="scheduled" ref={heading} tabIndex={-1} className="text-base font-semibold focus:outline-none">
        Scheduled promotions
      </h2>
      <p className="text-sm text-slate-600">
        A scheduled promotion asks the guard again at its time, with the rights its author has then: it moves then, opens a request then if the stage asks for approval, or fails with the guard&apos;s reason.
      </p>
      {pending.length === 0 ? (
        <div className="card px-6 py-8 text-center text-slate-600" data-testid="scheduled-empty">
          No promotion is scheduled. To schedule one, open a promotion on the board and choose when it should happen.
        </div>
      ) : (
        <DataTable testId="scheduled-table" caption="Pending scheduled promotions, soonest first" columns={['Promotion', 'When', 'What moves', 'Scheduled by', ACTIONS]} rows={pending}>
          {(s) => (
            <tr key={s.id} data-schedule={s.id} data-policy={s.policy} data-stage={s.stage} data-testid="scheduled-row">
              <td className="font-medium">
                {s.policy} → {s.stage}
              </td>
              <td className="whitespace-nowrap">{scheduleWhen(s)}</td>
              <td className="text-slate-700">
                <span className="mono">{source(s)}</span>
                {s.reason && <div className="text-xs text-slate-600">Reason: {s.reason}</div>}
              </td>
              <td className="whitespace-nowrap text-slate-600">
                {s.scheduled_by}
                <div className="text-xs">{dateTime(s.created_at)}</div>
              </td>
              <td className="whitespace-nowrap text-right">
                {s.may_cancel ? (
                  <button type="button" className="btn" onClick={() => setCancelling(s)} data-testid="scheduled-cancel">
                    Cancel…<span className="sr-only"> the promotion of {s.policy} into {s.stage} {scheduleWhen(s)}</span>
                  </button>
                ) : (
                  <span className="text-xs text-slate-600">only its author or a manager of {s.stage} may cancel</span>
                )}
              </td>
            </tr>
          )}
        </DataTable>
      )}
      {recent.length > 0 && (
        <details className="text-sm" data-testid="scheduled-recent">
          <summary className="cursor-pointer text-slate-700">Decided in the last 7 days ({recent.length})</summary>
          <ul className="mt-2 space-y-1">
            {recent.map((s) => (
              <li key={s.id} data-status={s.status}>
                <b>
                  {s.policy} → {s.stage}
                </b>{' '}
                {scheduleWhen(s)}, by {s.scheduled_by}: {outcome(s)}
              </li>
            ))}
          </ul>
        </details>
      )}
      {cancelling && (
        <ConfirmDialog title="Cancel this scheduled promotion?" cancelLabel="Keep it" confirmLabel={mutation.isPending ? 'Cancelling…' : 'Cancel the scheduled promotion'} danger pending={mutation.isPending} onConfirm={() => mutation.mutate(cancelling.id)} onClose={() => setCancelling(null)}>
          <p>
            {cancelling.policy} will not be promoted into {cancelling.stage} {scheduleWhen(cancelling)}. Nothing else changes: what {cancelling.stage} runs now stays. You can schedule it again from the board.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
