'use client';

import { useRouter } from 'next/navigation';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { toast } from 'sonner';
import { errorMessage, runAction } from '@/lib/actions/client';
import { approveRequestAction, rejectRequestAction, withdrawRequestAction } from '@/lib/actions/requests/request-actions';
import type { ActionServerError } from '@/lib/actions/safe-action';
import { dateTime, shortId } from '@/lib/format';
import { Modal } from './modal';
import { PromoteDialog } from './promote-dialog';
import { PromotionRefusal, freezeOf } from './promotion-outcome';

type Kind = 'approve' | 'reject' | 'withdraw' | 'rerequest';

export interface RequestActionsProps {
  id: string;
  policy: string;
  stage: string;
  toRevisionId: string;
  currentRevisionId: string | null;
  /** Manages the stage: may override a freeze when the last approval applies the change during one. */
  canManage: boolean;
  canApprove: boolean;
  canReject: boolean;
  canWithdraw: boolean;
  canRerequest: boolean;
  /** Why the viewer may not approve, when that is worth saying (e.g. "you asked for it"). */
  approveHint?: string | null;
  /** Issue 29: the request's kind and origin, so asking again recomputes the same change from what the stage runs now. */
  kind?: string;
  origin?: { from_stage?: string; cookbook?: string };
  /** Approvals so far and required: the approve dialog says what this approval does. */
  approvals?: number;
  approvalsRequired?: number;
  /** Issue 43: what the last approval does and what it did, in words (a ring request starts a ring; the stage keeps its revision). */
  effect?: { onApproval: string; applied: string };
  /** Issue 43: the stage is frozen now: the last approval says so before the click (and asks a manager for the override). */
  freeze?: { reason: string; ends_at: string } | null;
}

type Result = { status: string; approvals: unknown[]; approvals_required: number };

/** Each action, and the toast it ends with; refusals throw an ActionServerError. */
function runner(kind: Kind, p: RequestActionsProps, comment: string, override: string): Promise<{ message: string; next?: string }> {
  const c = comment || undefined;
  switch (kind) {
    case 'approve':
      return runAction(approveRequestAction, { id: p.id, comment: c, overrideReason: override || undefined }).then((r: Result) => ({
        message:
          r.status === 'applied'
            ? p.kind === 'ring'
              ? `Approved: ${p.effect?.applied ?? `the ring started; ${p.stage} still runs what it ran`}`
              : `Approved: ${p.stage} now runs ${shortId(p.toRevisionId)} of ${p.policy}`
            : r.status === 'outdated'
              ? `Approved, but ${p.stage} changed meanwhile: the request is outdated and nothing moved`
              : `Approved (${r.approvals.length} of ${r.approvals_required})`,
      }));
    case 'reject':
      return runAction(rejectRequestAction, { id: p.id, comment }).then(() => ({ message: 'Rejected: nothing moves' }));
    case 'withdraw':
      return runAction(withdrawRequestAction, { id: p.id }).then(() => ({ message: 'Request withdrawn' }));
    case 'rerequest':
      throw new Error('Asking again goes through the promotion dialog');
  }
}

const COPY: Record<Kind, { button: string; title: (p: RequestActionsProps) => string; confirm: string; comment: 'optional' | 'required' | 'none'; danger?: boolean; body: (p: RequestActionsProps) => string }> = {
  approve: {
    button: 'Approve…',
    title: (p) => (p.kind === 'ring' ? `Approve the ringed rollout of ${p.policy} in ${p.stage}?` : `Approve ${p.policy} → ${p.stage}?`),
    confirm: 'Approve',
    comment: 'optional',
    body: (p) => {
      const have = p.approvals ?? 0;
      const need = p.approvalsRequired ?? 1;
      const does = p.effect?.onApproval ?? `${p.stage} moves to ${shortId(p.toRevisionId)} of ${p.policy} at once`;
      return have + 1 >= need
        ? `Yours is approval ${have + 1} of ${need}: it is the last one needed, so approving ${p.kind === 'ring' ? does : `applies the change — ${does}`}.`
        : `Yours is approval ${have + 1} of ${need}: nothing moves yet; ${need - have - 1} more approval${need - have - 1 === 1 ? ' is' : 's are'} needed after yours.`;
    },
  },
  reject: {
    button: 'Reject…',
    title: (p) => `Reject ${p.policy} → ${p.stage}?`,
    confirm: 'Reject',
    comment: 'required',
    danger: true,
    body: () => 'A rejection closes the request: nothing moves. The requester sees your comment.',
  },
  withdraw: {
    button: 'Withdraw…',
    title: (p) => `Withdraw the request for ${p.policy} → ${p.stage}?`,
    confirm: 'Withdraw',
    comment: 'none',
    danger: true,
    body: () => 'The request closes and collects no more approvals; nothing moves.',
  },
  rerequest: {
    button: 'Re-request…',
    title: (p) => `Ask again: ${p.policy} → ${p.stage}`,
    confirm: 'Create a new request',
    comment: 'optional',
    body: (p) => `A new request for the same revision, made against what ${p.stage} runs now. Its approvals are counted again from the new diff.`,
  },
};

/** Approve / reject / withdraw / re-request: each only where the server said it is allowed, each behind a confirmation. */
export function RequestActions(props: RequestActionsProps) {
  const [open, setOpen] = useState<Kind | null>(null);
  // Issue 29: after an action, focus goes to what changed (the request's status) once the refreshed page arrives, not to the page body.
  const focusStatus = useRef(false);
  useEffect(() => {
    if (!focusStatus.current) return;
    focusStatus.current = false;
    document.querySelector<HTMLElement>('[data-testid="request-status-line"]')?.focus();
  }, [props.canApprove, props.canReject, props.canWithdraw, props.canRerequest, props.approvals]);
  const shown = (['approve', 'reject', 'withdraw', 'rerequest'] as Kind[]).filter(
    (k) => (k === 'approve' && props.canApprove) || (k === 'reject' && props.canReject) || (k === 'withdraw' && props.canWithdraw) || (k === 'rerequest' && props.canRerequest),
  );
  return (
    <div className="flex flex-wrap items-center gap-2" data-testid="request-actions">
      {shown.map((k) => (
        <button key={k} type="button" className={`btn ${k === 'approve' ? 'btn-primary' : ''}`} onClick={() => setOpen(k)} data-testid={`request-${k}`}>
          {COPY[k].button}
        </button>
      ))}
      {props.approveHint && <p className="text-sm text-slate-600" data-testid="approve-hint">{props.approveHint}</p>}
      {open === 'rerequest' ? <RerequestDialog props={props} onClose={() => setOpen(null)} /> : open && <ActionDialog kind={open} props={props} onClose={() => setOpen(null)} onDone={() => (focusStatus.current = true)} />}
    </div>
  );
}

function ActionDialog({ kind, props, onClose, onDone }: { kind: Kind; props: RequestActionsProps; onClose: () => void; onDone: () => void }) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [comment, setComment] = useState('');
  const [override, setOverride] = useState('');
  const copy = COPY[kind];
  const mutation = useMutation({
    mutationFn: () => runner(kind, props, comment.trim(), override.trim()),
    onSuccess: async ({ message, next }) => {
      await queryClient.invalidateQueries({ queryKey: ['board'] });
      toast.success(message);
      onClose();
      if (next) router.push(next);
      else {
        onDone();
        router.refresh();
      }
    },
  });
  const error = mutation.error as unknown as ActionServerError | null;
  const refusedFrozen = freezeOf(error, props.canManage);
  // Issue 43: the last approval during a freeze is told before the click (a manager writes the override here; anyone else waits).
  const last = kind === 'approve' && (props.approvals ?? 0) + 1 >= (props.approvalsRequired ?? 1);
  const frozenNow = last && props.freeze ? props.freeze : null;
  const frozen = refusedFrozen ?? (frozenNow ? { reason: frozenNow.reason, endsAt: frozenNow.ends_at, canOverride: props.canManage } : null);
  const missing = (copy.comment === 'required' && !comment.trim()) || (!!frozen && (!frozen.canOverride || !override.trim()));
  return (
    <Modal title={copy.title(props)} onClose={onClose}>
      <form
        className="space-y-3"
        data-testid={`request-${kind}-dialog`}
        onSubmit={(e) => {
          e.preventDefault();
          if (!missing) mutation.mutate();
        }}
      >
        <p className="text-slate-700">{copy.body(props)}</p>
        {frozenNow && !refusedFrozen && (
          <div className="rounded-md border border-sky-300 bg-sky-50 p-3 text-sky-950" data-testid="approve-freeze">
            <p>
              {props.stage} is frozen until {dateTime(frozenNow.ends_at)}: {frozenNow.reason}.{' '}
              {props.canManage
                ? `Your approval applies the change only with your written reason to override the freeze (you manage ${props.stage}).`
                : `Your approval, the last one needed, cannot apply the change until the freeze ends (only someone who manages ${props.stage} may override it): come back then, or ask a manager.`}
            </p>
            {props.canManage && (
              <div className="mt-2">
                <label htmlFor="approve-freeze-override" className="mb-1 block text-xs font-semibold uppercase">
                  Override the freeze: reason (required, audited)
                </label>
                <textarea id="approve-freeze-override" className="input h-16 text-slate-900" value={override} onChange={(e) => setOverride(e.target.value)} maxLength={1000} />
              </div>
            )}
          </div>
        )}
        {copy.comment !== 'none' && (
          <div>
            <label htmlFor="request-comment" className="mb-1 block text-xs font-semibold uppercase text-slate-600">
              {kind === 'rerequest' ? 'Reason' : 'Comment'} ({copy.comment})
            </label>
            <textarea id="request-comment" className="input h-20" value={comment} onChange={(e) => setComment(e.target.value)} maxLength={1000} required={copy.comment === 'required'} aria-required={copy.comment === 'required'} />
          </div>
        )}
        {error && (frozen ? <PromotionRefusal error={error} canManage={props.canManage} overrideReason={override} onOverrideReason={setOverride} /> : <p role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-red-800">{errorMessage(error)}</p>)}
        <div className="flex justify-end gap-2">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className={`btn ${copy.danger ? 'btn-danger' : 'btn-primary'}`} disabled={missing || mutation.isPending}>
            {mutation.isPending ? 'Working…' : copy.confirm}
          </button>
        </div>
      </form>
    </Modal>
  );
}

/**
 * Issue 29: asking again recomputes the change from what the stage runs now —
 * a single-cookbook request derives a new revision from the stage's current
 * lock (not the stale derived one) — and shows its diff and the guard's answer
 * before the click, in the promotion dialog itself.
 */
function RerequestDialog({ props, onClose }: { props: RequestActionsProps; onClose: () => void }) {
  const cookbook = props.kind === 'promote-cookbook' && props.origin?.cookbook && props.origin.from_stage ? props.origin.cookbook : undefined;
  const from = cookbook ? props.origin!.from_stage! : `rev:${props.toRevisionId}`;
  return <PromoteDialog target={{ policy: props.policy, from, to: props.stage, expectedRevisionId: props.currentRevisionId, cookbook, canManage: props.canManage, rerequest: true }} onClose={onClose} />;
}
