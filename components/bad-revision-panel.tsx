'use client';

import { useState } from 'react';
import { runAction } from '@/lib/actions/client';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { markBadAction, unmarkBadAction } from '@/lib/actions/requests/bad-revision-actions';
import type { BadMark } from '@/lib/services/guards';
import { dateTime, shortId } from '@/lib/format';
import { ConfirmDialog, Modal } from './modal';

/** Who marked the revision bad, when and why (above the revision page's content). */
export function BadRevisionBanner({ mark }: { mark: BadMark }) {
  return (
    <div className="mb-4 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900" data-testid="bad-revision-banner">
      <b>⚠ Marked bad</b> by {mark.by} on {dateTime(mark.at)}: “{mark.reason}”. It cannot be promoted or rolled back to anywhere until it is unmarked.
    </div>
  );
}

/**
 * A revision marked bad can be promoted or rolled back to nowhere. The banner
 * says who marked it and why; the buttons appear only for those who may
 * (owner team, or promote on a stage running it) and always ask first.
 */
export function BadRevisionPanel({ policy, revisionId, mark, canMark }: { policy: string; revisionId: string; mark: BadMark | null; canMark: boolean }) {
  const [open, setOpen] = useState<'mark' | 'unmark' | null>(null);
  const [reason, setReason] = useState('');
  const markM = useActionMutation((r: string) => runAction(markBadAction, { policy, revisionId, reason: r }), {
    success: () => `Marked ${shortId(revisionId)} bad: it can no longer be promoted or rolled back to`,
    then: () => setOpen(null),
  });
  const unmarkM = useActionMutation(() => runAction(unmarkBadAction, { policy, revisionId }), {
    success: () => `${shortId(revisionId)} is no longer marked bad`,
    then: () => setOpen(null),
  });
  return (
    <>
      {canMark && (
        <button type="button" className="btn" onClick={() => setOpen(mark ? 'unmark' : 'mark')} data-testid={mark ? 'unmark-bad' : 'mark-bad'}>
          {mark ? 'Unmark bad…' : 'Mark bad…'}
        </button>
      )}
      {open === 'mark' && (
        <Modal title={`Mark ${policy} ${shortId(revisionId)} bad?`} onClose={() => setOpen(null)}>
          <form
            className="space-y-3"
            onSubmit={(e) => {
              e.preventDefault();
              if (reason.trim()) markM.mutate(reason.trim());
            }}
          >
            <p className="text-slate-700">No stage can be promoted or rolled back to this revision while it is marked. Stages already running it keep it; the board shows the marker.</p>
            <div>
              <label htmlFor="bad-reason" className="mb-1 block text-xs font-semibold uppercase text-slate-600">
                Reason (required)
              </label>
              <textarea id="bad-reason" className="input h-20" required value={reason} onChange={(e) => setReason(e.target.value)} maxLength={1000} placeholder="e.g. nginx 12 breaks TLS session resumption (INC-4711)" />
            </div>
            <div className="flex justify-end gap-2">
              <button type="button" className="btn" onClick={() => setOpen(null)}>
                Cancel
              </button>
              <button type="submit" className="btn btn-danger" disabled={!reason.trim() || markM.isPending}>
                Mark bad
              </button>
            </div>
          </form>
        </Modal>
      )}
      {open === 'unmark' && (
        <ConfirmDialog title={`Unmark ${policy} ${shortId(revisionId)}?`} confirmLabel="Unmark" pending={unmarkM.isPending} onConfirm={() => unmarkM.mutate()} onClose={() => setOpen(null)}>
          It can be promoted and rolled back to again. It was marked bad by {mark?.by}: “{mark?.reason}”.
        </ConfirmDialog>
      )}
    </>
  );
}
