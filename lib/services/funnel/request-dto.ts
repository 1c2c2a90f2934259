import type { ApprovalReason } from '@/lib/domain';
import { ringStartedWords, ringStartWords, type RingPlan } from '@/lib/domain/rings';
import { absoluteUrl, publicBaseUrl, type EventMessage } from './outbox';

export const REQUEST_STATUSES = ['pending', 'applied', 'rejected', 'withdrawn', 'outdated', 'expired'] as const;
export type PromotionRequestStatus = (typeof REQUEST_STATUSES)[number];

export interface PromotionDecisionDto {
  user_id: string;
  email: string;
  comment: string | null;
  at: string;
  /**
   * Issue 28: whether this approval counts toward the request (pending
   * requests are re-checked: only people still active and still approvers
   * of the stage count); `not_counted_reason` says why not.
   */
  counts: boolean;
  not_counted_reason: string | null;
}

export interface RequestDiffSummary {
  /** LockDiff.summary of the stage's current lock → the requested lock. */
  summary: Record<string, unknown> | null;
  cookbooks: { name: string; kind: string; level?: string; from?: string; to?: string }[];
  run_list: { kind: string; item: string }[];
  attributes: { kind: string; precedence: string; path: string }[];
  /** True when a list above was cut (the full diff is on the compare page). */
  truncated: boolean;
}

/** A promotion request as the API, the actions and the pages see it (snake_case, as the API answers). */
export interface PromotionRequestDto {
  id: string;
  /** The request page (absolute with NEXTAUTH_URL/PUBLIC_URL set, else relative). */
  url: string;
  status: PromotionRequestStatus;
  stage: string;
  policy: string;
  /** promote | promote-cookbook | rollback | set | remove */
  kind: string;
  /** What the stage ran when the request was made (the apply is a compare-and-swap against it). */
  from_revision_id: string | null;
  to_revision_id: string | null;
  approvals_required: number;
  approvals: PromotionDecisionDto[];
  rejections: PromotionDecisionDto[];
  reasons: ApprovalReason[];
  diff_summary: RequestDiffSummary;
  blast_radius: { nodes: number; stale: number };
  /** Where the change came from: { from_stage?, cookbook?, ... }. */
  origin: Record<string, unknown>;
  reason: string | null;
  requested_by: { id: string | null; email: string };
  created_at: string;
  updated_at: string;
  expires_at: string;
  decided_at: string | null;
  decided_by: string | null;
  freeze_override: string | null;
  artifacts_override: string | null;
  /**
   * Issue 43: what approving does when the last approval arrives (`on_approval`: "starts a ringed rollout: 50% of
   * production (1 of 2 nodes) gets …", or "production moves to … at once"), and what it did once applied.
   */
  effect: { on_approval: string; applied: string };
  /** Issue 48, a joint request (kind `together`): every policy that moves with it, all or nothing (the request's own policy first). */
  members?: { policy: string; from_revision_id: string | null; to_revision_id: string }[];
  /** What the viewer may do with it (absent where no viewer is known). */
  viewer?: { can_approve: boolean; can_reject: boolean; can_withdraw: boolean; is_approver: boolean; is_requester: boolean; already_decided: boolean };
}

export const requestPath = (id: string) => `/requests/${encodeURIComponent(id)}`;
export const requestUrl = (id: string) => `${publicBaseUrl()}${requestPath(id)}`;
/** Issue 29: the request page as an absolute link, for notifications (PUBLIC_URL; see absoluteUrl). */
export const requestLink = (id: string) => absoluteUrl(requestPath(id));

const KIND_WORDS: Record<string, string> = { promote: 'promotion', 'promote-cookbook': 'cookbook promotion', rollback: 'rollback', set: 'change', remove: 'removal', ring: 'ringed rollout', together: 'joint move' };
const shortRev = (r: string | null) => (r ? r.slice(0, 10) : 'nothing');

/** Issue 29: the change summary of a request, one line per change (at most `max`, then "and N more"). */
export function requestChanges(diffSummaryJson: string, max = 12): string[] {
  let d: Partial<RequestDiffSummary>;
  try {
    d = JSON.parse(diffSummaryJson) as Partial<RequestDiffSummary>;
  } catch {
    return [];
  }
  const lines: string[] = [
    ...(d.cookbooks ?? []).map((c) => (c.from && c.to ? `cookbook ${c.name} ${c.from} → ${c.to} (${c.kind}${c.level ? `, ${c.level}` : ''})` : `cookbook ${c.name} ${c.kind}${c.to ? ` ${c.to}` : c.from ? ` ${c.from}` : ''}`)),
    ...(d.run_list ?? []).map((r) => `run list: ${r.item} ${r.kind}`),
    ...(d.attributes ?? []).map((a) => `${a.precedence} attribute ${a.path} ${a.kind}`),
  ];
  const more = lines.length - max + (d.truncated ? 1 : 0);
  return more > 0 ? [...lines.slice(0, max), d.truncated ? 'and more (the full diff is on the request page)' : `and ${lines.length - max} more`] : lines;
}

/** Issue 43: a ring request's plan, from its origin (what the start was asked with); null for other requests (or old ring requests without the numbers). */
export function ringPlanOfRequest(row: { kind: string; groupName: string; origin: string }): RingPlan | null {
  if (row.kind !== 'ring') return null;
  let o: { ring?: { steps?: number[]; first_nodes?: number; stage_nodes?: number; soak_minutes?: number | null; gate_on_convergence?: boolean; rollback_on_failure?: boolean } };
  try {
    o = JSON.parse(row.origin);
  } catch {
    return null;
  }
  const r = o.ring;
  if (!r?.steps?.length || typeof r.first_nodes !== 'number' || typeof r.stage_nodes !== 'number') return null;
  return { stage: row.groupName, steps: r.steps, firstNodes: r.first_nodes, stageNodes: r.stage_nodes, soakMinutes: r.soak_minutes ?? null, gateOnConvergence: !!r.gate_on_convergence, rollbackOnFailure: !!r.rollback_on_failure };
}

/**
 * Issue 43: what approving a request does (when its last approval arrives), and what it did once applied, in the
 * words every surface uses (the request page, the approve dialog and its toast, the webhooks, the history).
 */
export function requestEffect(row: { kind: string; groupName: string; policyName: string; origin: string; fromRevisionId: string | null; toRevisionId: string | null; members?: string | null }): { onApproval: string; applied: string } {
  if (row.kind === 'together' && row.members) {
    // Issue 48: a joint move names every member (all or nothing).
    const members = (JSON.parse(row.members) as { policy: string; to_revision_id: string }[]).map((m) => `${m.policy} ${shortRev(m.to_revision_id)}`).join(', ');
    return { onApproval: `${row.groupName} moves to ${members} at once, together (every node, on its next run)`, applied: `${row.groupName} now runs ${members}` };
  }
  const plan = ringPlanOfRequest(row);
  if (row.kind === 'ring' && row.toRevisionId) {
    const from = row.fromRevisionId ?? '';
    return plan
      ? { onApproval: ringStartWords(plan, row.toRevisionId), applied: ringStartedWords(plan, from, row.toRevisionId) }
      : {
          onApproval: `starts a ringed rollout: part of ${row.groupName} gets ${shortRev(row.toRevisionId)} first; the stage's revision moves only at its last step`,
          applied: `the ring started; ${row.groupName} still runs ${shortRev(row.fromRevisionId)}`,
        };
  }
  if (!row.toRevisionId) return { onApproval: `removes ${row.policyName} from ${row.groupName} at once`, applied: `${row.policyName} was removed from ${row.groupName}` };
  return { onApproval: `${row.groupName} moves to ${shortRev(row.toRevisionId)} of ${row.policyName} at once (every node, on its next run)`, applied: `${row.groupName} now runs ${shortRev(row.toRevisionId)} of ${row.policyName}` };
}

/**
 * Issue 29: what a notification about a request shows: a title, the facts (stage, policy, from → to,
 * approvals, who asked), the change summary, and a button to the request (absolute link).
 */
export function requestMessage(
  row: { id: string; groupName: string; policyName: string; kind: string; fromRevisionId: string | null; toRevisionId: string | null; approvalsRequired: number; requesterEmail: string; diffSummary: string; origin: string; reason?: string | null; members?: string | null },
  title: string,
  extra: [string, string][] = [],
  /** Issue 43: which of the effect's two sentences to state (what approval does, or what it did). */
  effect: 'onApproval' | 'applied' | null = 'onApproval',
): EventMessage {
  const words = effect ? requestEffect(row)[effect] : null;
  return {
    title,
    link: { url: requestLink(row.id), label: 'Open the request' },
    facts: [
      ['Stage', row.groupName],
      ['Policy', row.policyName],
      ['Change', `${KIND_WORDS[row.kind] ?? row.kind}: ${shortRev(row.fromRevisionId)} → ${shortRev(row.toRevisionId)}`],
      ['Requested by', row.requesterEmail],
      ['Approvals required', String(row.approvalsRequired)],
      ...(words ? ([[effect === 'applied' ? 'What happened' : 'What approval does', words]] as [string, string][]) : []),
      ...(row.reason ? ([['Reason', row.reason]] as [string, string][]) : []),
      ...extra,
    ],
    changes: requestChanges(row.diffSummary),
  };
}

export interface RequestRow {
  id: string;
  groupName: string;
  policyName: string;
  kind: string;
  fromRevisionId: string | null;
  toRevisionId: string | null;
  status: string;
  approvalsRequired: number;
  reasons: string;
  diffSummary: string;
  blastRadius: string;
  origin: string;
  reason: string | null;
  requesterId: string | null;
  requesterEmail: string;
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date;
  decidedAt: Date | null;
  decidedByEmail: string | null;
  freezeOverride: string | null;
  artifactsOverride: string | null;
  /** Issue 48: a joint request's members (JSON), null otherwise. */
  members?: string | null;
  approvals: { userId: string; userEmail: string; decision: string; comment: string | null; createdAt: Date }[];
}

export const REQUEST_SELECT = {
  id: true,
  groupName: true,
  policyName: true,
  kind: true,
  fromRevisionId: true,
  toRevisionId: true,
  status: true,
  approvalsRequired: true,
  reasons: true,
  diffSummary: true,
  blastRadius: true,
  origin: true,
  reason: true,
  requesterId: true,
  requesterEmail: true,
  createdAt: true,
  updatedAt: true,
  expiresAt: true,
  decidedAt: true,
  decidedByEmail: true,
  freezeOverride: true,
  artifactsOverride: true,
  members: true,
  approvals: { select: { userId: true, userEmail: true, decision: true, comment: true, createdAt: true }, orderBy: { createdAt: 'asc' as const } },
} as const;

/** Pending past its expiry counts as expired even before anything wrote that down (expiry is evaluated lazily). */
export function effectiveStatus(row: { status: string; expiresAt: Date }, now = new Date()): PromotionRequestStatus {
  if (row.status === 'pending' && row.expiresAt.getTime() <= now.getTime()) return 'expired';
  return row.status as PromotionRequestStatus;
}

/**
 * `standing`: for a pending request, why an approval no longer counts (by
 * user id; absent: it counts). Decided requests show their decisions as made.
 */
export function toRequestDto(row: RequestRow, now = new Date(), standing?: ReadonlyMap<string, string>): PromotionRequestDto {
  const decision = (d: RequestRow['approvals'][number]): PromotionDecisionDto => {
    const why = d.decision === 'approve' ? (standing?.get(d.userId) ?? null) : null;
    return { user_id: d.userId, email: d.userEmail, comment: d.comment, at: d.createdAt.toISOString(), counts: !why, not_counted_reason: why };
  };
  return {
    id: row.id,
    url: requestUrl(row.id),
    status: effectiveStatus(row, now),
    stage: row.groupName,
    policy: row.policyName,
    kind: row.kind,
    from_revision_id: row.fromRevisionId,
    to_revision_id: row.toRevisionId,
    approvals_required: row.approvalsRequired,
    approvals: row.approvals.filter((a) => a.decision === 'approve').map(decision),
    rejections: row.approvals.filter((a) => a.decision === 'reject').map(decision),
    reasons: JSON.parse(row.reasons) as ApprovalReason[],
    diff_summary: JSON.parse(row.diffSummary) as RequestDiffSummary,
    blast_radius: JSON.parse(row.blastRadius) as { nodes: number; stale: number },
    origin: JSON.parse(row.origin) as Record<string, unknown>,
    reason: row.reason,
    requested_by: { id: row.requesterId, email: row.requesterEmail },
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
    decided_at: row.decidedAt?.toISOString() ?? null,
    decided_by: row.decidedByEmail,
    freeze_override: row.freezeOverride,
    artifacts_override: row.artifactsOverride,
    effect: (({ onApproval, applied }) => ({ on_approval: onApproval, applied }))(requestEffect(row)),
    ...(row.members ? { members: (JSON.parse(row.members) as { policy: string; from_revision_id: string | null; to_revision_id: string }[]).map((m) => ({ policy: m.policy, from_revision_id: m.from_revision_id, to_revision_id: m.to_revision_id })) } : {}),
  };
}

/** How long a pending request stays open: PROMOTION_REQUEST_TTL_HOURS (default 168 = 7 days). */
export function requestTtlMs(): number {
  const h = Number(process.env.PROMOTION_REQUEST_TTL_HOURS);
  return (Number.isFinite(h) && h > 0 ? h : 168) * 60 * 60 * 1000;
}
