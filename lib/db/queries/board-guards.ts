import { freezeStatus } from '@/lib/domain';
import { db } from '../client';

import type { ActiveFreeze, BoardGuards } from '@/lib/types/board';

export type { ActiveFreeze, BoardGuards } from '@/lib/types/board';

/** Protection, freezes, pending requests and bad revisions for the stages given (already filtered to what the viewer may see). */
export async function loadBoardGuards(stageNames: string[], now = new Date()): Promise<BoardGuards> {
  const client = db();
  const [protections, freezes, pending, bad] = await Promise.all([
    client.stageProtection.findMany({ where: { group: { name: { in: stageNames } } }, select: { approvalsRequired: true, group: { select: { name: true } } } }),
    client.freezeWindow.findMany({ where: { group: { name: { in: stageNames } }, startsAt: { lte: now } }, select: { id: true, reason: true, startsAt: true, endsAt: true, weekly: true, group: { select: { name: true } } } }),
    client.promotionRequest.groupBy({ by: ['groupName', 'policyName'], where: { status: 'pending', expiresAt: { gt: now }, groupName: { in: stageNames } }, _count: { _all: true }, _max: { id: true } }),
    client.badRevision.findMany({ select: { policyName: true, revisionId: true, reason: true, markedByEmail: true, createdAt: true } }),
  ]);
  const byStage = new Map<string, typeof freezes>();
  for (const f of freezes) byStage.set(f.group.name, [...(byStage.get(f.group.name) ?? []), f]);
  const frozen: Record<string, ActiveFreeze> = {};
  for (const [stage, windows] of byStage) {
    const st = freezeStatus(windows, now);
    const last = st.active.at(-1);
    if (last && st.opensAt) frozen[stage] = { id: last.window.id, reason: last.window.reason, endsAt: st.opensAt.toISOString(), weekly: last.window.weekly };
  }
  return {
    protectedStages: Object.fromEntries(protections.map((p) => [p.group.name, p.approvalsRequired])),
    frozen,
    pending: Object.fromEntries(pending.map((p) => [`${p.groupName}|${p.policyName}`, { count: p._count._all, id: p._count._all === 1 ? (p._max.id ?? null) : null }])),
    bad: Object.fromEntries(bad.map((b) => [`${b.policyName}|${b.revisionId}`, { reason: b.reason, by: b.markedByEmail, at: b.createdAt.toISOString() }])),
  };
}
