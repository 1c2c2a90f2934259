'use client';

import { useRouter } from 'next/navigation';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { toast } from 'sonner';
import { errorMessage, runAction } from '@/lib/actions/client';
import { promotePolicyAction } from '@/lib/actions/promotion/promote-policy-action';
import { approveRequestAction, rejectRequestAction, withdrawRequestAction } from '@/lib/actions/requests/request-actions';
import type { ActionServerError } from '@/lib/actions/safe-action';
import { shortId } from '@/lib/format';
import { Modal } from './modal';
import { PromotionRefusal, freezeOf, requestOf } from './promotion-outcome';

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
}

type Result = { status: string; approvals: unknown[]; approvals_required: number };

/** Each action, and the toast it ends with; refusals throw an ActionServerError. */
function runner(kind: Kind, p: RequestActionsProps, comment: string, override: string): Promise<{ message: string; next?: string }> {
  const c = comment || undefined;
  switch (kind) {
    case 'approve':
      return runAction(approveRequestAction, { id: p.id, comment: c, overrideReason: override || undefined }).then((r: Result) => ({
        message: r.status === 'applied' ? `Approved: ${p.stage} now runs ${shortId(p.toRevisionId)} of ${p.policy}` : r.status === 'outdated' ? `Approved, but ${p.stage} changed meanwhile: the request is outdated and nothing moved` : `Approved (${r.approvals.length} of ${r.approvals_required})`,
      }));
    case 'reject':
      return runAction(rejectRequestAction, { id: p.id, comment }).then(() => ({ message: 'Rejected: nothing moves' }));
    case 'withdraw':
      return runAction(withdrawRequestAction, { id: p.id }).then(() => ({ message: 'Request withdrawn' }));
    case 'rerequest':
      return runAction(promotePolicyAction, { policy: p.policy, from: `rev:${p.toRevisionId}`, to: p.stage, expectedRevisionId: p.currentRevisionId, reason: c }).then((r) => {
        const req = requestOf(r);
        return req ? { message: `New request created: needs ${req.approvals_required} approval${req.approvals_required === 1 ? '' : 's'}`, next: `/requests/${encodeURIComponent(req.id)}` } : { message: `${p.stage} now runs ${shortId(p.toRevisionId)}: no approval was needed` };
      });
  }
}

const COPY: Record<Kind, { button: string; title: (p: RequestActionsProps) => string; confirm: string; comment: 'optional' | 'required' | 'none'; danger?: boolean; body: (p: RequestActionsProps) => string }> = {
  approve: {
    button: 'Approve…',
    title: (p) => `Approve ${p.policy} → ${p.stage}?`,
    confirm: 'Approve',
    comment: 'optional',
    body: (p) => `Your approval counts towards the ones required. When the last one arrives, ${p.stage} moves to the requested revision at once (unless it changed meanwhile or is frozen).`,
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
      {open && <ActionDialog kind={open} props={props} onClose={() => setOpen(null)} />}
    </div>
  );
}

function ActionDialog({ kind, props, onClose }: { kind: Kind; props: RequestActionsProps; onClose: () => void }) {
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
      else router.refresh();
    },
  });
  const error = mutation.error as unknown as ActionServerError | null;
  const frozen = freezeOf(error, props.canManage);
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
