'use client';

import { useRouter } from 'next/navigation';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { toast } from 'sonner';
import { errorMessage } from '@/lib/actions/client';
import { Modal } from './modal';

type Kind = 'approve' | 'reject' | 'withdraw' | 'rerequest';

export interface RequestActionsProps {
  id: string;
  policy: string;
  stage: string;
  canApprove: boolean;
  canReject: boolean;
  canWithdraw: boolean;
  canRerequest: boolean;
  /** Why the viewer may not approve, when that is worth saying (e.g. "you asked for it"). */
  approveHint?: string | null;
  /** Each action returns a message for the toast; it throws an ActionServerError on refusal. */
  run: Record<Kind, (comment: string) => Promise<string>>;
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
    title: (p) => `Withdraw your request for ${p.policy} → ${p.stage}?`,
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
  const copy = COPY[kind];
  const mutation = useMutation({
    mutationFn: () => props.run[kind](comment.trim()),
    onSuccess: async (message) => {
      await queryClient.invalidateQueries({ queryKey: ['board'] });
      toast.success(message);
      onClose();
      router.refresh();
    },
  });
  const missing = copy.comment === 'required' && !comment.trim();
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
        {mutation.error && (
          <p role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-red-800">
            {errorMessage(mutation.error)}
          </p>
        )}
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
