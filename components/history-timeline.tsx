'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { toast } from 'sonner';
import { isActionError, runAction } from '@/lib/actions/client';
import { rollbackAction } from '@/lib/actions/promotion/rollback-action';
import type { ActionServerError } from '@/lib/actions/safe-action';
import type { HistoryEntry } from '@/lib/db/queries/history';
import { dateTime, shortId } from '@/lib/format';
import { ChangePreview, useChangePreview } from './change-preview';
import { BadRevisionMarker } from './board-guards';
import type { BadMark } from '@/lib/db/queries/bad-revisions';
import { Modal } from './modal';
import { RequestCreatedPanel, requestOf, type CreatedRequest } from './promotion-outcome';

/** A stage's pointer history for one policy, newest first, with rollback to any revision it held. */
export function HistoryTimeline({ policy, stage, entries, current, canRollback, bad = {} }: { policy: string; stage: string; entries: HistoryEntry[]; current: string | null; canRollback: boolean; bad?: Record<string, BadMark> }) {
  const [target, setTarget] = useState<string | null>(null);
  if (entries.length === 0) return <p className="card p-6 text-center text-slate-600">No changes recorded for {policy} in {stage}.</p>;
  return (
    <>
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
      {target && <RollbackDialog policy={policy} stage={stage} toRevisionId={target} current={current} onClose={() => setTarget(null)} />}
    </>
  );
}

/** The reason, with a freeze override and an approved request (which the pointer history appends as " — " parts) set apart. */
function HistoryReason({ reason }: { reason: string }) {
  const parts = reason.split(' — ');
  return (
    <span className="flex flex-wrap items-center gap-1.5 text-slate-600">
      {parts.map((p, i) =>
        p.startsWith('freeze override') ? (
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

function RollbackDialog({ policy, stage, toRevisionId, current, onClose }: { policy: string; stage: string; toRevisionId: string; current: string | null; onClose: () => void }) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [reason, setReason] = useState('');
  const [created, setCreated] = useState<CreatedRequest | null>(null);
  const from = `rev:${toRevisionId}`;
  const preview = useChangePreview({ policy, from, to: stage, toHasPolicy: current !== null });
  // Returning to a revision newer than the current one moves the stage forward, not back: say so.
  const d = preview.diff.data;
  const forward = !!d && Date.parse(d.from.createdAt) > Date.parse(d.to.createdAt);
  const verb = forward ? 'Roll forward' : 'Roll back';
  const mutation = useMutation({
    mutationFn: () => runAction(rollbackAction, { policy, group: stage, toRevisionId, expectedRevisionId: current, reason }),
    onSuccess: async (r) => {
      await queryClient.invalidateQueries({ queryKey: ['board'] });
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
        <div>
          <label htmlFor="rollback-reason" className="mb-1 block text-xs font-semibold uppercase text-slate-600">
            Reason (required)
          </label>
          <textarea id="rollback-reason" className="input h-16" required value={reason} onChange={(e) => setReason(e.target.value)} maxLength={1000} />
        </div>
        {error && (
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
          <button type="submit" className="btn btn-danger" disabled={!reason.trim() || !preview.ready || stale || mutation.isPending}>
            {mutation.isPending ? 'Working…' : verb}
          </button>
        </div>
      </form>
      )}
    </Modal>
  );
}
