'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { toast } from 'sonner';
import { isActionError, runAction } from '@/lib/actions/client';
import { rollbackAction } from '@/lib/actions/promotion/rollback-action';
import type { ActionServerError } from '@/lib/actions/safe-action';
import { shortId } from '@/lib/format';
import { ChangePreview, useChangePreview } from './change-preview';
import { GuardAnswer, guardAction, guardAllows, useMovePreview, type GuardOverrides } from './guard-answer';
import { Modal } from './modal';
import { PromotionRefusal, RequestCreatedPanel, freezeOf, requestOf, type CreatedRequest } from './promotion-outcome';

/**
 * Return a stage to a revision it ran before: the diff, the blast radius, a
 * required reason. Into a protected stage it becomes a request (shown in
 * place); during a freeze a manager may override with a reason.
 */
export function RollbackDialog({ policy, stage, toRevisionId, current, canManage = false, onClose }: { policy: string; stage: string; toRevisionId: string; current: string | null; canManage?: boolean; onClose: () => void }) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [reason, setReason] = useState('');
  const [created, setCreated] = useState<CreatedRequest | null>(null);
  const [freezeOverride, setFreezeOverride] = useState('');
  const [frozenError, setFrozenError] = useState<ActionServerError | null>(null);
  const frozen = freezeOf(frozenError, canManage);
  const from = `rev:${toRevisionId}`;
  // Issue 29: the guard's answer before the click.
  const guard = useMovePreview({ policy, stage, kind: 'rollback', toRevisionId });
  const [overrides, setOverrides] = useState<GuardOverrides>({ freeze: '', gate: '' });
  const answer = guard.data;
  const preview = useChangePreview({ policy, from, to: stage, toHasPolicy: current !== null });
  // Returning to a revision newer than the current one moves the stage forward, not back: say so.
  const d = preview.diff.data;
  const forward = !!d && Date.parse(d.from.createdAt) > Date.parse(d.to.createdAt);
  const verb = forward ? 'Roll forward' : 'Roll back';
  const mutation = useMutation({
    mutationFn: () => runAction(rollbackAction, { policy, group: stage, toRevisionId, expectedRevisionId: current, reason, freezeOverrideReason: (answer?.needs.includes('freeze_override_reason') && overrides.freeze.trim()) || (frozen?.canOverride && freezeOverride.trim()) || undefined, verdictOverrideReason: (answer?.needs.includes('verdict_override_reason') && overrides.verdict?.trim()) || undefined }),
    onError: (e) => {
      const err = e as unknown as ActionServerError;
      if (freezeOf(err)) setFrozenError(err);
    },
    onSuccess: async (r) => {
      await queryClient.invalidateQueries({ queryKey: ['board'] });
      await queryClient.invalidateQueries({ queryKey: ['move-preview'] });
      router.refresh();
      const request = requestOf(r);
      if (request) return setCreated(request);
      onClose();
      toast.success(`${stage} now runs ${shortId(toRevisionId)} of ${policy} again`, {
        description: r.auditId ? <Link href={`/audit?focus=${r.auditId}`}>View the audit entry</Link> : undefined,
      });
    },
  });
  const error = mutation.error as ActionServerError | null;
  const stale = isActionError(error) && error.code === 'conflict';
  return (
    <Modal title={preview.ready ? `${verb}: ${policy} in ${stage} to ${shortId(toRevisionId)}?` : `Return ${policy} in ${stage} to ${shortId(toRevisionId)}?`} onClose={onClose} wide>
      {created ? (
        <RequestCreatedPanel request={created} stage={stage} onClose={onClose} />
      ) : (
      <form
        className="space-y-4"
        data-testid="rollback-dialog"
        onSubmit={(e) => {
          e.preventDefault();
          mutation.mutate();
        }}
      >
        <p className="text-slate-700" data-testid="rollback-direction">
          {stage} runs {shortId(current)} now.{' '}
          {!d
            ? ''
            : forward
              ? `${shortId(toRevisionId)} is newer than that: this is a roll-forward to a revision ${stage} ran before. Nodes pick it up on their next run.`
              : `${shortId(toRevisionId)} is older: nodes return to it on their next run.`}
        </p>
        <ChangePreview preview={preview} policy={policy} from={from} to={stage} toHasPolicy={current !== null} />
        <GuardAnswer preview={guard} overrides={overrides} onOverrides={setOverrides} />
        <div>
          <label htmlFor="rollback-reason" className="mb-1 block text-xs font-semibold uppercase text-slate-600">
            Reason (required)
          </label>
          <textarea id="rollback-reason" className="input h-16" required value={reason} onChange={(e) => setReason(e.target.value)} maxLength={1000} />
        </div>
        {frozenError && <PromotionRefusal error={frozenError} canManage={canManage} overrideReason={freezeOverride} onOverrideReason={setFreezeOverride} />}
        {error && !freezeOf(error) && (
          <div role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-red-800">
            <p>{error.message}</p>
            {stale && (
              <button
                type="button"
                className="btn mt-2"
                onClick={() => {
                  router.refresh();
                  onClose();
                }}
              >
                Refresh and review again
              </button>
            )}
          </div>
        )}
        <div className="flex justify-end gap-2">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-danger" disabled={!reason.trim() || !preview.ready || !guardAllows(answer, overrides) || stale || mutation.isPending || (!!frozen && (!frozen.canOverride || !freezeOverride.trim()))}>
            {mutation.isPending ? 'Working…' : `${frozen?.canOverride ? 'Override the freeze' : guardAction(answer)} — ${verb}`}
          </button>
        </div>
      </form>
      )}
    </Modal>
  );
}
