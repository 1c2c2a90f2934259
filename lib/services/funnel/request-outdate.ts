/**
 * Issue 43: a pending promotion request is made against what the stage ran when it was asked; once the
 * stage runs something else it can never apply, so it is outdated — written down in the transaction of
 * the move that outdated it (movePointer), and, for moves made before this rule or by a writer that does
 * not pass movePointer, by a sweep on read. Either way "Awaiting my approval", the board, the request page
 * and the API all say "outdated", and its ring (a ring request's `pending_approval` rollout) is closed.
 */
import type { Tx } from '@/lib/db/client';
import { audit, type AuditActor } from './audit';
import { emitEvent } from './outbox';
import { REQUEST_SELECT, requestLink, requestMessage, type RequestRow } from './request-dto';

const short = (r: string | null) => (r ? r.slice(0, 10) : 'nothing');

/** Marks one pending request outdated (a compare-and-swap on pending), audited and announced; false when it was decided meanwhile. */
export async function outdateRequest(tx: Tx, actor: AuditActor | null, row: RequestRow, currentRevisionId: string | null, requestId: string | null | undefined, now: Date): Promise<boolean> {
  const { count } = await tx.promotionRequest.updateMany({ where: { id: row.id, status: 'pending' }, data: { status: 'outdated', decidedAt: now, decidedByEmail: actor?.email ?? 'system', updatedAt: now } });
  if (count !== 1) return false;
  // A ring's start waiting for this request can no longer start from what the stage ran: it is superseded.
  await tx.ringRollout.updateMany({ where: { requestId: row.id, status: 'pending_approval' }, data: { status: 'superseded', openKey: null, endedAt: now, endReason: `its promotion request is outdated: ${row.groupName} moved to ${short(currentRevisionId)}`, updatedAt: now } });
  await audit(tx, actor, {
    action: 'request.outdated',
    targetType: 'pointer',
    target: `${row.groupName}/${row.policyName}`,
    groupName: row.groupName,
    policyName: row.policyName,
    before: { revision_id: row.fromRevisionId },
    after: { request: row.id, current_revision_id: currentRevisionId },
    requestId,
  });
  const data = { request_id: row.id, stage: row.groupName, policy: row.policyName, from_revision_id: row.fromRevisionId, to_revision_id: row.toRevisionId, current_revision_id: currentRevisionId };
  await emitEvent(tx, 'request.outdated', `${row.policyName} into ${row.groupName} is outdated: the stage now runs ${short(currentRevisionId)}, not ${short(row.fromRevisionId)}; nothing moved. ${requestLink(row.id)}`, data, {
    at: now,
    message: requestMessage(row, `Outdated: ${row.policyName} into ${row.groupName}`, [['Stage now runs', short(currentRevisionId)]], null),
  });
  return true;
}

/** After a move of (group, policy): every pending request made against another revision is outdated. */
export async function outdatePendingRequests(
  tx: Tx,
  actor: AuditActor | null,
  move: { group: { id: string }; policy: { id: string }; currentRevisionId: string | null; requestId?: string | null; at: Date },
): Promise<number> {
  const rows = await tx.promotionRequest.findMany({
    where: { groupId: move.group.id, policyId: move.policy.id, status: 'pending', NOT: { fromRevisionId: move.currentRevisionId } },
    select: REQUEST_SELECT,
  });
  // `NOT: { fromRevisionId: x }` leaves out NULLs on SQL's three-valued logic: a request made when the stage ran nothing.
  const nulls = move.currentRevisionId === null ? [] : await tx.promotionRequest.findMany({ where: { groupId: move.group.id, policyId: move.policy.id, status: 'pending', fromRevisionId: null }, select: REQUEST_SELECT });
  let n = 0;
  for (const r of [...rows, ...nulls]) if (await outdateRequest(tx, actor, r, move.currentRevisionId, move.requestId, move.at)) n++;
  return n;
}

const SWEEPER = { kind: 'system' as const, userId: null, email: 'system (outdated request)', via: 'request-sweep' };

/**
 * The read-side sweep: pending requests (of `where`) whose stage no longer runs what they were made against
 * are written down as outdated. Normally a no-op (movePointer outdates them as it moves).
 */
export async function sweepOutdatedRequests(tx: Tx, now: Date, where: { id?: string; groupId?: { in: string[] } } = {}): Promise<void> {
  const pending = await tx.promotionRequest.findMany({ where: { ...where, status: 'pending', expiresAt: { gt: now } }, select: { id: true, groupId: true, policyId: true, fromRevisionId: true }, take: 2000 });
  if (!pending.length) return;
  const pointers = await tx.groupPolicy.findMany({
    where: { groupId: { in: [...new Set(pending.map((r) => r.groupId))] }, policyId: { in: [...new Set(pending.map((r) => r.policyId))] } },
    select: { groupId: true, policyId: true, revision: { select: { revisionId: true } } },
  });
  const runs = new Map(pointers.map((p) => [`${p.groupId}\n${p.policyId}`, p.revision.revisionId]));
  const stale = pending.filter((r) => (runs.get(`${r.groupId}\n${r.policyId}`) ?? null) !== r.fromRevisionId);
  if (!stale.length) return;
  const rows = await tx.promotionRequest.findMany({ where: { id: { in: stale.map((r) => r.id) }, status: 'pending' }, select: { ...REQUEST_SELECT, groupId: true, policyId: true } });
  for (const r of rows) await outdateRequest(tx, SWEEPER, r, runs.get(`${r.groupId}\n${r.policyId}`) ?? null, null, now);
}
