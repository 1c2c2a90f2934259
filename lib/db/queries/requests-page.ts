import type { Access } from '@/lib/auth/permissions';
import { can } from '@/lib/auth/permissions';
import { db } from '../client';

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
}

export interface RequestApprovalView {
  user: string;
  decision: 'approved' | 'rejected';
  comment: string | null;
  at: string;
}

/** What the request page shows about one request. */
export interface RequestDetailView {
  id: string;
  policy: string;
  stage: string;
  /** What the stage ran when the request was made (null: the policy was not in the stage). */
  fromRevisionId: string | null;
  toRevisionId: string;
  /** What the stage runs now (differs from fromRevisionId once it moved). */
  currentRevisionId: string | null;
  status: string;
  approvalsRequired: number;
  reasons: string[];
  approvals: RequestApprovalView[];
  requestedBy: string;
  reason: string | null;
  createdAt: string;
  updatedAt: string;
  expiresAt: string | null;
}

/**
 * Read-only loaders for the Requests pages. Every decision (approve, reject,
 * withdraw) is checked again by the services; the flags here only decide which
 * buttons to show.
 */

type Reason = { message?: string; rule?: string; approvals?: number };

function reasonsOf(json: string): string[] {
  try {
    const list = JSON.parse(json) as (Reason | string)[];
    return list.map((r) => (typeof r === 'string' ? r : (r.message ?? r.rule ?? ''))).filter(Boolean);
  } catch {
    return [];
  }
}

/** A pending request past its expiry reads as expired even before anything wrote that down (expiry is lazy). */
function effectiveStatus(status: string, expiresAt: Date, now: Date): string {
  return status === 'pending' && expiresAt <= now ? 'expired' : status;
}

/** The principals ("user:<id>", "team:<id>") the viewer acts as for approver grants. */
function principals(access: Access): string[] {
  return [`user:${access.userId}`, ...[...access.teamIds].map((t) => `team:${t}`)];
}

/** Stage names the viewer holds an approver grant on. */
export async function approverStages(access: Access): Promise<Set<string>> {
  const rows = await db().stageApprover.findMany({ where: { principal: { in: principals(access) } }, select: { group: { select: { name: true } } } });
  return new Set(rows.map((r) => r.group.name));
}

export async function requestsForPage(access: Access, filter: RequestsFilter): Promise<{ rows: RequestRow[]; counts: Partial<Record<RequestsView, number>> }> {
  const now = new Date();
  const [stages, mine] = await Promise.all([db().policyGroup.findMany({ select: { name: true } }), approverStages(access)]);
  const visible = stages.map((s) => s.name).filter((s) => can(access, 'stage.view', { stage: s }));
  const base = {
    groupName: filter.stage ? { in: visible.filter((s) => s === filter.stage) } : { in: visible },
    ...(filter.policy ? { policyName: filter.policy } : {}),
  };
  // "Awaiting my approval": pending, into a stage I approve for, not mine, not yet decided by me.
  const toApprove = {
    groupName: { in: visible.filter((s) => mine.has(s) && (!filter.stage || s === filter.stage)) },
    ...(filter.policy ? { policyName: filter.policy } : {}),
    status: 'pending',
    expiresAt: { gt: now },
    NOT: { requesterId: access.userId },
    approvals: { none: { userId: access.userId } },
  };
  const statusWhere = (s?: string) =>
    s === 'expired' ? { OR: [{ status: 'expired' }, { status: 'pending', expiresAt: { lte: now } }] } : s === 'pending' ? { status: 'pending', expiresAt: { gt: now } } : s ? { status: s } : {};
  const where =
    filter.view === 'to-approve'
      ? { ...toApprove, ...(filter.status && filter.status !== 'pending' ? { id: '' } : {}) }
      : filter.view === 'mine'
        ? { ...base, requesterId: access.userId, ...statusWhere(filter.status) }
        : { ...base, ...statusWhere(filter.status) };
  const [rows, toApproveCount] = await Promise.all([
    db().promotionRequest.findMany({
      where,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: 200,
      include: { approvals: { select: { decision: true } } },
    }),
    db().promotionRequest.count({ where: toApprove }),
  ]);
  return {
    counts: { 'to-approve': toApproveCount },
    rows: rows.map((r) => ({
      id: r.id,
      policy: r.policyName,
      stage: r.groupName,
      fromRevisionId: r.fromRevisionId,
      toRevisionId: r.toRevisionId ?? '',
      status: effectiveStatus(r.status, r.expiresAt, now),
      approvalsRequired: r.approvalsRequired,
      approvalCount: r.approvals.filter((a) => a.decision === 'approve' || a.decision === 'approved').length,
      requestedBy: r.requesterEmail,
      createdAt: r.createdAt.toISOString(),
      reasons: reasonsOf(r.reasons),
    })),
  };
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
  const r = await db().promotionRequest.findUnique({ where: { id }, include: { approvals: { orderBy: { createdAt: 'asc' } } } });
  if (!r || !can(access, 'stage.view', { stage: r.groupName })) return null;
  const now = new Date();
  const status = effectiveStatus(r.status, r.expiresAt, now);
  const [current, approver] = await Promise.all([
    db().groupPolicy.findFirst({ where: { groupId: r.groupId, policyId: r.policyId }, select: { revision: { select: { revisionId: true } } } }),
    db().stageApprover.findFirst({ where: { groupId: r.groupId, principal: { in: principals(access) } }, select: { id: true } }),
  ]);
  const own = r.requesterId === access.userId;
  const decided = r.approvals.some((a) => a.userId === access.userId);
  const open = status === 'pending';
  const mayDecide = open && !!approver && !own && !decided;
  const approveHint = !open
    ? null
    : own
      ? 'You asked for this change: someone else has to approve it.'
      : decided
        ? 'You have already given your decision on this request.'
        : !approver
          ? `Only approvers of ${r.groupName} can approve or reject.`
          : null;
  return {
    request: {
      id: r.id,
      policy: r.policyName,
      stage: r.groupName,
      fromRevisionId: r.fromRevisionId,
      toRevisionId: r.toRevisionId ?? '',
      currentRevisionId: current?.revision.revisionId ?? null,
      status,
      approvalsRequired: r.approvalsRequired,
      reasons: reasonsOf(r.reasons),
      approvals: r.approvals.map((a) => ({ user: a.userEmail, decision: a.decision.startsWith('reject') ? 'rejected' : 'approved', comment: a.comment, at: a.createdAt.toISOString() })),
      requestedBy: r.requesterEmail,
      reason: r.reason,
      createdAt: r.createdAt.toISOString(),
      updatedAt: r.updatedAt.toISOString(),
      expiresAt: r.expiresAt.toISOString(),
    },
    can: {
      approve: mayDecide,
      reject: mayDecide,
      withdraw: open && own,
      // Asking again needs promote on the stage (the server checks it again).
      rerequest: status === 'outdated' && can(access, 'stage.promote', { stage: r.groupName }) && !!r.toRevisionId,
      manage: can(access, 'stage.manage', { stage: r.groupName }),
      approveHint,
    },
  };
}
