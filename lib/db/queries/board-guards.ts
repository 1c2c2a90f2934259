import type { Access } from '@/lib/auth/permissions';
import { db } from '../client';
import { stageGuardStates } from './stage-guard-state';
import type { BoardGuards } from '@/lib/types/board';

export type { BoardGuards } from '@/lib/types/board';

/** The guard state of the stages given (already filtered to what the viewer may see), pending requests and scheduled promotions per cell, and bad revisions. */
export async function loadBoardGuards(access: Access, stageNames: string[], now = new Date()): Promise<BoardGuards> {
  const client = db();
  const [states, pending, bad, scheduled] = await Promise.all([
    stageGuardStates(access, { now, stages: stageNames }),
    client.promotionRequest.groupBy({ by: ['groupName', 'policyName'], where: { status: 'pending', expiresAt: { gt: now }, groupName: { in: stageNames } }, _count: { _all: true }, _max: { id: true } }),
    client.badRevision.findMany({ select: { policyName: true, revisionId: true, reason: true, markedByEmail: true, createdAt: true } }),
    client.scheduledPromotion.groupBy({ by: ['groupName', 'policyName'], where: { status: 'pending', groupName: { in: stageNames } }, _count: { _all: true }, _min: { runAt: true } }),
  ]);
  return {
    stages: Object.fromEntries(states.map((s) => [s.stage, s])),
    pending: Object.fromEntries(pending.map((p) => [`${p.groupName}|${p.policyName}`, { count: p._count._all, id: p._count._all === 1 ? (p._max.id ?? null) : null }])),
    bad: Object.fromEntries(bad.map((b) => [`${b.policyName}|${b.revisionId}`, { reason: b.reason, by: b.markedByEmail, at: b.createdAt.toISOString() }])),
    scheduled: Object.fromEntries(scheduled.map((x) => [`${x.groupName}|${x.policyName}`, { count: x._count._all, next_run_at: (x._min.runAt ?? now).toISOString() }])),
  };
}
