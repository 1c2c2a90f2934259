import type { HistoryEntry } from '@/lib/types/history';
import { db } from '../client';

export type { HistoryEntry } from '@/lib/types/history';



/** Pointer history of a policy in a stage, newest first. */
export async function pointerHistory(group: string, policy: string): Promise<HistoryEntry[]> {
  const [rows, nodes] = await Promise.all([
    db().pointerHistory.findMany({ where: { groupName: group, policyName: policy }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: 500 }),
    db().node.findMany({ where: { group: { name: group }, policy: { name: policy } }, select: { revisionApplied: true, lastCheckIn: true } }),
  ]);
  const convergence = (rev: string | null, since: Date) => {
    if (!rev) return null;
    const on = nodes.filter((n) => n.revisionApplied === rev);
    const last = on.reduce<Date | null>((m, n) => (n.lastCheckIn && n.lastCheckIn >= since && (!m || n.lastCheckIn > m) ? n.lastCheckIn : m), null);
    return { nodes: nodes.length, converged: on.length, lastConvergedAt: last?.toISOString() ?? null };
  };
  return rows.map((r) => ({
    id: r.id,
    at: r.createdAt.toISOString(),
    kind: r.kind,
    fromRevisionId: r.fromRevisionId,
    toRevisionId: r.toRevisionId,
    actor: r.actorEmail,
    reason: r.reason,
    convergence: convergence(r.toRevisionId, r.createdAt),
  }));
}
