import type { ReactNode } from 'react';

/** Every status a promotion request can be in (the API's strings). */
export type RequestStatus = 'pending' | 'approved' | 'applied' | 'rejected' | 'withdrawn' | 'outdated' | 'expired';

const STYLE: Record<RequestStatus, string> = {
  pending: 'bg-amber-100 text-amber-900',
  approved: 'bg-sky-50 text-sky-800',
  applied: 'bg-emerald-50 text-emerald-800',
  rejected: 'bg-red-50 text-red-800',
  withdrawn: 'bg-slate-100 text-slate-700',
  outdated: 'bg-orange-50 text-orange-800',
  expired: 'bg-slate-100 text-slate-700',
};

export function RequestStatusBadge({ status }: { status: string }) {
  return (
    <span className={`badge ${STYLE[status as RequestStatus] ?? 'bg-slate-100 text-slate-700'}`} data-testid="request-status" data-status={status}>
      {status}
    </span>
  );
}

/**
 * What a status means for the stage, in one sentence (the request page says it next to the badge). Issue 43: a ring
 * request's `ring` words say what its approval does and did (a ring starts; the stage keeps its revision).
 */
export function statusExplanation(status: string, stage: string, ring?: { onApproval: string; applied: string }): ReactNode {
  switch (status) {
    case 'pending':
      return ring ? `Waiting for approvals: nothing has changed in ${stage} yet; the last approval ${ring.onApproval}.` : `Waiting for approvals: nothing has changed in ${stage} yet.`;
    case 'approved':
      return `Approved: ${stage} is being moved to the requested revision.`;
    case 'applied':
      return ring ? `Applied: ${ring.applied}.` : `Applied: ${stage} now runs the requested revision (moved through the normal promotion, audited).`;
    case 'rejected':
      return `Rejected by an approver: ${stage} did not change.`;
    case 'withdrawn':
      return `Withdrawn by the requester: ${stage} did not change.`;
    case 'outdated':
      return `Outdated: ${stage} changed after this request was made, so the approved change no longer applies to what runs there. Nothing moved; the requester can ask again against the new state.`;
    case 'expired':
      return `Expired: it waited longer than the console keeps requests open. Nothing moved; ask again if the change is still wanted.`;
    default:
      return null;
  }
}
