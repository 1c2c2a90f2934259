/**
 * Issue 29: the pending-count badge on Requests in the navigation. Counts, on
 * the server, the requests the user may act on now: pending, not expired, in a
 * stage they may view and approve, not asked by them, not yet decided by them,
 * and not outdated (the stage still runs what the request was made against;
 * an outdated request offers no approval). Read-only (no lazy expiry write on
 * every page).
 */
import { can, type Access } from '@/lib/auth/permissions';
import { db } from '@/lib/db/client';
import { principalsOf } from './requests';

export async function pendingApprovalCount(access: Access): Promise<number> {
  const client = db();
  const approverOf = await client.stageApprover.findMany({ where: { principal: { in: principalsOf(access) } }, select: { groupId: true, group: { select: { name: true } } } });
  const groupIds = [...new Set(approverOf.filter((a) => can(access, 'stage.view', { stage: a.group.name })).map((a) => a.groupId))];
  if (!groupIds.length) return 0;
  const rows = await client.promotionRequest.findMany({
    where: {
      groupId: { in: groupIds },
      status: 'pending',
      expiresAt: { gt: new Date() },
      NOT: { requesterId: access.userId },
      approvals: { none: { userId: access.userId } },
    },
    select: { groupId: true, policyId: true, fromRevisionId: true },
    take: 1000,
  });
  if (!rows.length) return 0;
  const pointers = await client.groupPolicy.findMany({
    where: { groupId: { in: [...new Set(rows.map((r) => r.groupId))] }, policyId: { in: [...new Set(rows.map((r) => r.policyId))] } },
    select: { groupId: true, policyId: true, revision: { select: { revisionId: true } } },
  });
  const runs = new Map(pointers.map((p) => [`${p.groupId}\n${p.policyId}`, p.revision.revisionId]));
  return rows.filter((r) => (runs.get(`${r.groupId}\n${r.policyId}`) ?? null) === r.fromRevisionId).length;
}
