'use client';

import { useRouter } from 'next/navigation';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { toast } from 'sonner';
import { isActionError, runAction } from '@/lib/actions/client';
import { promotePoliciesAction } from '@/lib/actions/promotion/promote-policies-action';
import type { ActionServerError } from '@/lib/actions/safe-action';
import type { BoardData } from '@/lib/db/queries/board';
import { shortId } from '@/lib/format';
import { Modal } from './modal';

/** Promote every differing policy from the previous stage into this one, all or nothing, with a per-policy checklist. */
export function BulkPromoteDialog({ board, from, to, onClose }: { board: BoardData; from: string; to: string; onClose: () => void }) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const candidates = board.policies
    .filter((p) => p.cells[from] && p.cells[from]!.revisionId !== p.cells[to]?.revisionId)
    .map((p) => ({ name: p.name, fromRev: p.cells[from]!.revisionId, toRev: p.cells[to]?.revisionId ?? null, cookbooks: p.cells[to]?.cookbooksChanged ?? null }));
  const [selected, setSelected] = useState(() => new Set(candidates.map((c) => c.name)));
  const [reason, setReason] = useState('');
  const mutation = useMutation({
    mutationFn: () =>
      runAction(promotePoliciesAction, {
        from,
        to,
        policies: [...selected],
        expected: Object.fromEntries(candidates.filter((c) => selected.has(c.name)).map((c) => [c.name, c.toRev])),
        reason: reason || undefined,
      }),
    onSuccess: async (r) => {
      await queryClient.invalidateQueries({ queryKey: ['board'] });
      router.refresh();
      onClose();
      toast.success(`Promoted ${r.promoted.length} polic${r.promoted.length === 1 ? 'y' : 'ies'} from ${from} to ${to}`);
    },
  });
  const error = mutation.error as ActionServerError | null;
  return (
    <Modal title={`Promote differing policies: ${from} → ${to}`} onClose={onClose} wide>
      <div className="space-y-3" data-testid="bulk-promote-dialog">
        {candidates.length === 0 ? (
          <p className="text-slate-600">Every policy in {from} already runs the same revision in {to}.</p>
        ) : (
          <>
            <p className="text-slate-600">All selected policies move together in one transaction: if any of them changed since you looked, none moves.</p>
            <ul className="max-h-80 divide-y divide-slate-100 overflow-y-auto rounded border border-slate-200">
              {candidates.map((c) => (
                <li key={c.name} className="flex items-center gap-3 px-3 py-1.5">
                  <input
                    id={`bulk-${c.name}`}
                    type="checkbox"
                    checked={selected.has(c.name)}
                    onChange={(e) => {
                      const next = new Set(selected);
                      if (e.target.checked) next.add(c.name);
                      else next.delete(c.name);
                      setSelected(next);
                    }}
                  />
                  <label htmlFor={`bulk-${c.name}`} className="flex-1 font-medium">
                    {c.name}
                  </label>
                  <span className="mono text-slate-500">
                    {shortId(c.toRev)} → {shortId(c.fromRev)}
                  </span>
                </li>
              ))}
            </ul>
            <label htmlFor="bulk-reason" className="block text-xs font-semibold uppercase text-slate-500">
              Reason (optional)
            </label>
            <textarea id="bulk-reason" className="input h-14" value={reason} onChange={(e) => setReason(e.target.value)} maxLength={1000} />
          </>
        )}
        {error && (
          <div role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-red-800">
            <p className="font-medium">{isActionError(error) && error.code === 'conflict' ? `${to} changed since you looked: nothing was promoted.` : 'The promotion was refused.'}</p>
            <p>{error.message}</p>
          </div>
        )}
        <div className="flex justify-end gap-2">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="button" className="btn btn-primary" disabled={!selected.size || mutation.isPending} onClick={() => mutation.mutate()}>
            {mutation.isPending ? 'Promoting…' : `Promote ${selected.size} to ${to}`}
          </button>
        </div>
      </div>
    </Modal>
  );
}
