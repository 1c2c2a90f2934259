/**
 * The Requests pages' loaders: the services decide visibility and what the
 * viewer may do (every decision is checked again when made); this maps their
 * DTOs to what the pages show.
 */

import type { Access } from '@/lib/auth/permissions';
import { can } from '@/lib/auth/permissions';
import { isAppError } from '@/lib/errors';
import { getPromotionRequest, listPromotionRequests, REQUEST_STATUSES, type PromotionRequestDto } from './requests';
import { activeRevisionId, viewableStageNames } from '@/lib/db/queries/policies';
import { stageGuardStates } from '@/lib/db/queries/stage-guard-state';
import { ringOfRequest } from '@/lib/services/rings';

export type RequestsView = 'to-approve' | 'mine' | 'all';
export interface RequestsFilter {
  view: RequestsView;
  stage?: string;
  status?: string;
  policy?: string;
}

/** One line of the Requests page. */
export interface RequestRow {
  id: string;
  policy: string;
  stage: string;
  fromRevisionId: string | null;
  toRevisionId: string;
  status: string;
  approvalsRequired: number;
  approvalCount: number;
  requestedBy: string;
  createdAt: string;
  reasons: string[];
  /** promote | promote-cookbook | rollback | set | remove | ring (issue 43: the list tells them apart). */
  kind: string;
  /** A single-cookbook request: the cookbook and the stage it comes from. */
  cookbook: string | null;
  fromStage: string | null;
  /** Issue 43: what approval does / did, in words ("starts a ringed rollout: 50% of production (1 of 2 nodes) gets …"). */
  effect: { onApproval: string; applied: string };
}

export interface RequestApprovalView {
  user: string;
  decision: 'approved' | 'rejected';
  comment: string | null;
  at: string;
  /** Issue 28: an approval that no longer counts (its author is no longer an active approver of the stage), and why. */
  notCounted: string | null;
}

/** What the request page shows about one request. */
export interface RequestDetailView extends RequestRow {
  /** What the stage runs now (differs from fromRevisionId once it moved). */
  currentRevisionId: string | null;
  approvals: RequestApprovalView[];
  reason: string | null;
  updatedAt: string;
  expiresAt: string | null;
  /** promote | promote-cookbook | rollback | set | remove */
  kind: string;
  decidedBy: string | null;
  freezeOverride: string | null;
  blastRadius: { nodes: number; stale: number };
  /** Where the change came from (a single-cookbook request: its source stage and cookbook). */
  origin: { from_stage?: string; cookbook?: string };
  /** Issue 43: the ringed rollout a ring request starts (its page). */
  ring: { id: string; url: string; status: string } | null;
  /** Issue 43: the stage is frozen now: the last approval applies the change only with a manager's written override. */
  freeze: { reason: string; ends_at: string } | null;
}

/** DTO → a row of the list. */
function row(d: PromotionRequestDto): RequestRow {
  return {
    id: d.id,
    policy: d.policy,
    stage: d.stage,
    fromRevisionId: d.from_revision_id,
    toRevisionId: d.to_revision_id ?? '',
    status: d.status,
    approvalsRequired: d.approvals_required,
    approvalCount: d.approvals.filter((a) => a.counts).length,
    requestedBy: d.requested_by.email,
    createdAt: d.created_at,
    reasons: d.reasons.map((r) => r.message),
    kind: d.kind,
    cookbook: typeof d.origin.cookbook === 'string' ? d.origin.cookbook : null,
    fromStage: typeof d.origin.from_stage === 'string' ? d.origin.from_stage : null,
    effect: { onApproval: d.effect.on_approval, applied: d.effect.applied },
  };
}

/** The list, its counts, and the stages its filter offers: only those the viewer may see (issue 28). */
export async function requestsForPage(access: Access, filter: RequestsFilter): Promise<{ rows: RequestRow[]; counts: Partial<Record<RequestsView, number>>; stages: string[] }> {
  const status = (REQUEST_STATUSES as readonly string[]).includes(filter.status ?? '') ? (filter.status as PromotionRequestDto['status']) : undefined;
  const scope = filter.view === 'to-approve' ? 'to_approve' : filter.view;
  const [list, toApprove, stages] = await Promise.all([
    listPromotionRequests(access, { scope, stage: filter.stage, policy: filter.policy, status }),
    filter.view === 'to-approve' && !filter.stage && !filter.policy && !status ? null : listPromotionRequests(access, { scope: 'to_approve' }),
    viewableStageNames(access),
  ]);
  return { rows: list.map(row), counts: { 'to-approve': (toApprove ?? list).length }, stages };
}

export interface RequestPermissions {
  approve: boolean;
  reject: boolean;
  withdraw: boolean;
  rerequest: boolean;
  /** Manages the stage: may override a freeze when applying. */
  manage: boolean;
  approveHint: string | null;
}

/** One request as the request page shows it, or null when it does not exist or its stage is not visible. */
export async function requestDetailForPage(access: Access, id: string): Promise<{ request: RequestDetailView; can: RequestPermissions } | null> {
  let d: PromotionRequestDto;
  try {
    d = await getPromotionRequest(access, id);
  } catch (e) {
    if (isAppError(e) && e.code === 'not_found') return null;
    throw e;
  }
  const [current, ring, guard] = await Promise.all([
    activeRevisionId(d.stage, d.policy),
    d.kind === 'ring' ? ringOfRequest(d.id) : null,
    d.status === 'pending' ? stageGuardStates(access, { stages: [d.stage] }).then((s) => s[0] ?? null) : null,
  ]);
  const v = d.viewer;
  // Issue 29: a pending request whose stage has moved is outdated: it can no longer apply, so it invites no approval.
  const moved = d.status === 'pending' && current !== d.from_revision_id;
  const open = d.status === 'pending' && !moved;
  const approveHint = moved || d.status === 'outdated'
    ? `${d.stage} has changed since this request was made (it now runs ${current ? current.slice(0, 10) : 'nothing'}): the request is outdated and can no longer be approved; ask again to judge the change against what runs now.`
    : !open || !v ? null : v.is_requester ? 'You asked for this change: someone else has to approve it.' : v.already_decided ? 'You have already given your decision on this request.' : !v.is_approver ? `Only approvers of ${d.stage} can approve or reject.` : null;
  const decisions = [...d.approvals.map((a) => ({ ...a, decision: 'approved' as const })), ...d.rejections.map((a) => ({ ...a, decision: 'rejected' as const }))].sort((a, b) => a.at.localeCompare(b.at));
  return {
    request: {
      ...row(d),
      // The page says what the request is now: a pending one whose stage moved is outdated (the server refuses its approval).
      ...(moved ? { status: 'outdated' as const } : {}),
      currentRevisionId: current,
      approvals: decisions.map((a) => ({ user: a.email, decision: a.decision, comment: a.comment, at: a.at, notCounted: a.decision === 'approved' ? a.not_counted_reason : null })),
      reason: d.reason,
      updatedAt: d.updated_at,
      expiresAt: d.expires_at,
      kind: d.kind,
      decidedBy: d.decided_by,
      freezeOverride: d.freeze_override,
      blastRadius: d.blast_radius,
      origin: { from_stage: typeof d.origin.from_stage === 'string' ? d.origin.from_stage : undefined, cookbook: typeof d.origin.cookbook === 'string' ? d.origin.cookbook : undefined },
      ring,
      freeze: guard?.frozen ? { reason: guard.frozen.reason, ends_at: guard.frozen.opens_at } : null,
    },
    can: {
      approve: open && !!v?.can_approve,
      reject: open && !!v?.can_reject,
      withdraw: !!v?.can_withdraw,
      // Asking again needs promote on the stage (the server checks it again); a removal is asked again from the board.
      // Issue 29: a rejected, expired or withdrawn change may be asked for again too (judged anew from what the stage runs now).
      rerequest: (moved || ['outdated', 'rejected', 'expired', 'withdrawn'].includes(d.status)) && !!d.to_revision_id && can(access, 'stage.promote', { stage: d.stage }),
      manage: can(access, 'stage.manage', { stage: d.stage }),
      approveHint,
    },
  };
}
