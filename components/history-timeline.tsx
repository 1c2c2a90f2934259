'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { toast } from 'sonner';
import { runAction } from '@/lib/actions/client';
import { rollbackAction } from '@/lib/actions/promotion/rollback-action';
import type { ActionServerError } from '@/lib/actions/safe-action';
import type { HistoryEntry } from '@/lib/db/queries/history';
import { dateTime, shortId } from '@/lib/format';
import { Modal } from './modal';

/** A stage's pointer history for one policy, newest first, with rollback to any revision it held. */
export function HistoryTimeline({ policy, stage, entries, current, canRollback }: { policy: string; stage: string; entries: HistoryEntry[]; current: string | null; canRollback: boolean }) {
  const [target, setTarget] = useState<string | null>(null);
  if (entries.length === 0) return <p className="card p-6 text-center text-slate-500">No changes recorded for {policy} in {stage}.</p>;
  return (
    <>
      <ol className="card divide-y divide-slate-100" data-testid="history">
        {entries.map((e) => (
          <li key={e.id} className="flex flex-wrap items-center gap-3 px-4 py-3" data-kind={e.kind}>
            <span className="w-40 text-xs text-slate-500">{dateTime(e.at)}</span>
            <span className="badge bg-slate-100 text-slate-700">{e.kind}</span>
            <span className="mono">
              {shortId(e.fromRevisionId)} → {shortId(e.toRevisionId)}
            </span>
            <span className="text-slate-600">{e.actor}</span>
            {e.reason && <span className="text-slate-500">“{e.reason}”</span>}
            <span className="ml-auto flex items-center gap-2">
              {e.toRevisionId && (
                <Link className="text-xs text-indigo-700 hover:underline" href={`/policies/${encodeURIComponent(policy)}/revisions/${encodeURIComponent(e.toRevisionId)}`}>
                  view
                </Link>
              )}
              {canRollback && e.toRevisionId && e.toRevisionId !== current && (
                <button type="button" className="btn py-0.5 text-xs" onClick={() => setTarget(e.toRevisionId)} data-testid="rollback">
                  Roll back to this
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

function RollbackDialog({ policy, stage, toRevisionId, current, onClose }: { policy: string; stage: string; toRevisionId: string; current: string | null; onClose: () => void }) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [reason, setReason] = useState('');
  const mutation = useMutation({
    mutationFn: () => runAction(rollbackAction, { policy, group: stage, toRevisionId, expectedRevisionId: current, reason }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['board'] });
      router.refresh();
      onClose();
      toast.success(`${stage} now runs ${shortId(toRevisionId)} of ${policy} again`);
    },
  });
  const error = mutation.error as ActionServerError | null;
  return (
    <Modal title={`Roll ${policy} in ${stage} back to ${shortId(toRevisionId)}?`} onClose={onClose}>
      <form
        className="space-y-3"
        onSubmit={(e) => {
          e.preventDefault();
          mutation.mutate();
        }}
      >
        <p className="text-slate-600">
          {stage} runs {shortId(current)} now. Nodes pick up the older revision on their next run.{' '}
          <Link className="text-indigo-700 underline" href={`/compare?policy=${encodeURIComponent(policy)}&from=rev:${encodeURIComponent(toRevisionId)}&to=${encodeURIComponent(stage)}`}>
            See what changes
          </Link>
        </p>
        <label htmlFor="rollback-reason" className="block text-xs font-semibold uppercase text-slate-500">
          Reason (required)
        </label>
        <textarea id="rollback-reason" className="input h-16" required value={reason} onChange={(e) => setReason(e.target.value)} maxLength={1000} />
        {error && (
          <p role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-red-800">
            {error.message}
          </p>
        )}
        <div className="flex justify-end gap-2">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-danger" disabled={!reason.trim() || mutation.isPending}>
            {mutation.isPending ? 'Rolling back…' : 'Roll back'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
