/**
 * Issue 30: what the promotion-request flow needs of ringed rollouts: a ring
 * started on a protected stage waits for its request (status
 * `pending_approval`); the request's apply starts the ring's first step
 * instead of moving the stage's pointer.
 */
import type { Tx } from '@/lib/db/client';
import { conflict } from '@/lib/errors';
import { audit, type AuditActor } from './audit';

/** The request kind of a ringed rollout's start. */
export const RING_REQUEST_KIND = 'ring';

/** Starts the first step of the ring a request approved (inside the apply's transaction); 409 when there is none waiting. */
export async function activateRingForRequest(tx: Tx, actor: AuditActor | null, requestId: string, approvers: string[], now: Date): Promise<{ rolloutId: string }> {
  const ring = await tx.ringRollout.findFirst({ where: { requestId, status: 'pending_approval' }, select: { id: true, steps: true, groupName: true, policyName: true, fromRevisionId: true, toRevisionId: true } });
  if (!ring) throw conflict(`The ringed rollout this request was made for is no longer waiting (it was rolled back or replaced); nothing started.`);
  const steps = JSON.parse(ring.steps) as number[];
  const { count } = await tx.ringRollout.updateMany({
    where: { id: ring.id, status: 'pending_approval' },
    data: { status: 'active', step: 0, percent: steps[0], approvedBy: approvers.join(', '), stepStartedAt: now, updatedAt: now },
  });
  if (count !== 1) throw conflict('This ringed rollout changed concurrently; refresh.');
  await audit(tx, actor, {
    action: 'ring.start',
    targetType: 'pointer',
    target: `${ring.groupName}/${ring.policyName}`,
    groupName: ring.groupName,
    policyName: ring.policyName,
    before: { revision_id: ring.fromRevisionId },
    after: { ring: ring.id, revision_id: ring.toRevisionId, step: 0, percent: steps[0], promotion_request: requestId, approved_by: approvers },
  });
  return { rolloutId: ring.id };
}
