'use client';

import Link from 'next/link';
import { useEffect, useRef } from 'react';
import type { ActionServerError } from '@/lib/actions/safe-action';
import { Time } from './time';

/** A promotion into a protected stage answers with a pending request instead of a moved pointer. */
export interface CreatedRequest {
  id: string;
  status: string;
  approvals_required: number;
  /** Each rule that applied, strongest first ("2 approvals: nginx 11.6.2 → 12.0.0 is a major bump"). */
  reasons: { message: string }[];
}

/** The request a promotion result carries, if it made one (the pointer did not move). */
export function requestOf(result: unknown): CreatedRequest | null {
  const r = (result as { request?: CreatedRequest } | null)?.request;
  return r && typeof r.id === 'string' ? r : null;
}

/**
 * Shown in place of the dialog's form once a request exists: says plainly that
 * nothing moved yet, how many approvals it needs and why, and links to it.
 * Focus moves to the heading so a screen reader announces the outcome.
 */
export function RequestCreatedPanel({ request, stage, onClose }: { request: CreatedRequest; stage: string; onClose: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const n = request.approvals_required;
  return (
    <div className="space-y-3" data-testid="request-created">
      <h3 ref={heading} tabIndex={-1} className="text-base font-semibold text-amber-900 focus:outline-none">
        Request created: needs {n} approval{n === 1 ? '' : 's'}
      </h3>
      <p className="text-slate-700">
        {stage} is protected, so nothing has moved yet. The change is applied as soon as {n === 1 ? 'an approver approves' : `${n} approvers approve`} it (you cannot approve your own request).
      </p>
      {request.reasons.length > 0 && (
        <ul className="list-disc pl-5 text-slate-700" data-testid="request-created-reasons">
          {request.reasons.map((r, i) => (
            <li key={i}>{r.message}</li>
          ))}
        </ul>
      )}
      <div className="flex justify-end gap-2">
        <button type="button" className="btn" onClick={onClose}>
          Close
        </button>
        <Link className="btn btn-primary" href={`/requests/${encodeURIComponent(request.id)}`} data-testid="request-link">
          Open the request
        </Link>
      </div>
    </div>
  );
}

/** What a freeze refusal (423) carries. */
export interface FreezeRefusal {
  reason: string;
  endsAt: string | null;
  canOverride: boolean;
}

export function freezeOf(e: ActionServerError | null, canManage = false): FreezeRefusal | null {
  if (!e || (e.code !== 'locked' && e.code !== 'frozen')) return null;
  const d = (e.details ?? {}) as Record<string, unknown>;
  const f = (d.freeze ?? d) as Record<string, unknown>;
  return {
    reason: typeof f.reason === 'string' ? f.reason : e.message,
    endsAt: typeof f.endsAt === 'string' ? f.endsAt : typeof f.ends_at === 'string' ? f.ends_at : null,
    canOverride: d.can_override === true || canManage,
  };
}

/** A 409 that names a bad revision (not the "changed since you looked" conflict). */
export function isBadRevisionError(e: ActionServerError | null | undefined): boolean {
  if (!e || e.code !== 'conflict') return false;
  const d = (e.details ?? {}) as Record<string, unknown>;
  return !!(d.badRevision ?? d.bad_revision) || /marked bad|bad revision/i.test(e.message);
}

/** A refused promotion: a freeze (with its reason, end and the manager's override), a bad revision, or anything else. */
export function PromotionRefusal({ error, canManage, overrideReason, onOverrideReason }: { error: ActionServerError; canManage?: boolean; overrideReason: string; onOverrideReason: (v: string) => void }) {
  const freeze = freezeOf(error, canManage);
  if (freeze) {
    return (
      <div role="alert" className="space-y-2 rounded-md border border-sky-300 bg-sky-50 p-3 text-sky-950" data-testid="freeze-refusal">
        <p className="font-medium">
          The stage is frozen{freeze.endsAt ? <> until <Time iso={freeze.endsAt} /></> : null}: {freeze.reason}
        </p>
        {freeze.canOverride ? (
          <div>
            <label htmlFor="freeze-override" className="mb-1 block text-xs font-semibold uppercase">
              Override the freeze: reason (required, kept in the audit log and the history)
            </label>
            <textarea id="freeze-override" className="input h-16" value={overrideReason} onChange={(e) => onOverrideReason(e.target.value)} maxLength={1000} />
          </div>
        ) : (
          <p>Only someone who manages this stage can override a freeze, with a written reason.</p>
        )}
      </div>
    );
  }
  const bad = isBadRevisionError(error);
  return (
    <div role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-red-800" data-testid={bad ? 'bad-revision-refusal' : 'promote-error'}>
      {bad ? <p className="font-medium">This revision is marked bad and cannot be promoted.</p> : error.code !== 'conflict' && <p className="font-medium">The promotion was refused.</p>}
      <p className={error.code === 'conflict' && !bad ? 'font-medium' : ''}>{error.message}</p>
    </div>
  );
}
