import { db } from '../client';

export interface HistoryEntry {
  id: string;
  at: string;
  kind: string;
  fromRevisionId: string | null;
  toRevisionId: string | null;
  actor: string | null;
  reason: string | null;
}

/** Pointer history of a policy in a stage, newest first. */
export async function pointerHistory(group: string, policy: string): Promise<HistoryEntry[]> {
  const rows = await db().pointerHistory.findMany({ where: { groupName: group, policyName: policy }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: 500 });
  return rows.map((r) => ({ id: r.id, at: r.createdAt.toISOString(), kind: r.kind, fromRevisionId: r.fromRevisionId, toRevisionId: r.toRevisionId, actor: r.actorEmail, reason: r.reason }));
}
