import { db } from '../client';

const WEEK_MS = 7 * 24 * 3600 * 1000;

/** A freeze in force now: why, and when the stage opens again. */
export interface ActiveFreeze {
  id: string;
  reason: string;
  endsAt: string;
  weekly: boolean;
}

/** What the board adds to its cells for guarded stages (issue 15). */
export interface BoardGuards {
  /** Per stage name: approvals a change needs at least (absent: the stage is not protected). */
  protectedStages: Record<string, number>;
  /** Per stage name: the freeze in force now (the one that ends last, when several overlap). */
  frozen: Record<string, ActiveFreeze>;
  /** Per "stage|policy": pending requests (and the id when there is exactly one, for a direct link). */
  pending: Record<string, { count: number; id: string | null }>;
  /** Per "policy|revisionId": who marked it bad and why. */
  bad: Record<string, { reason: string; by: string; at: string }>;
}

/** The occurrence of a (possibly weekly) window that contains `now`, or null. Weekly windows repeat every 7 days, in UTC, from their first start. */
export function occurrenceAt(w: { startsAt: Date; endsAt: Date; weekly: boolean }, now: Date): { start: Date; end: Date } | null {
  const start = w.startsAt.getTime();
  const length = w.endsAt.getTime() - start;
  const t = now.getTime();
  if (length <= 0 || t < start) return null;
  if (!w.weekly) return t < w.endsAt.getTime() ? { start: w.startsAt, end: w.endsAt } : null;
  const offset = (t - start) % WEEK_MS;
  if (offset >= length) return null;
  return { start: new Date(t - offset), end: new Date(t - offset + length) };
}

/** Protection, freezes, pending requests and bad revisions for the stages given (already filtered to what the viewer may see). */
export async function loadBoardGuards(stageNames: string[], now = new Date()): Promise<BoardGuards> {
  const client = db();
  const [protections, freezes, pending, bad] = await Promise.all([
    client.stageProtection.findMany({ where: { group: { name: { in: stageNames } } }, select: { approvalsRequired: true, group: { select: { name: true } } } }),
    client.freezeWindow.findMany({ where: { group: { name: { in: stageNames } }, startsAt: { lte: now } }, select: { id: true, reason: true, startsAt: true, endsAt: true, weekly: true, group: { select: { name: true } } } }),
    client.promotionRequest.groupBy({ by: ['groupName', 'policyName'], where: { status: 'pending', expiresAt: { gt: now }, groupName: { in: stageNames } }, _count: { _all: true }, _max: { id: true } }),
    client.badRevision.findMany({ select: { policyName: true, revisionId: true, reason: true, markedByEmail: true, createdAt: true } }),
  ]);
  const frozen: Record<string, ActiveFreeze> = {};
  for (const f of freezes) {
    const occ = occurrenceAt(f, now);
    if (!occ) continue;
    const prev = frozen[f.group.name];
    if (!prev || Date.parse(prev.endsAt) < occ.end.getTime()) frozen[f.group.name] = { id: f.id, reason: f.reason, endsAt: occ.end.toISOString(), weekly: f.weekly };
  }
  return {
    protectedStages: Object.fromEntries(protections.map((p) => [p.group.name, p.approvalsRequired])),
    frozen,
    pending: Object.fromEntries(pending.map((p) => [`${p.groupName}|${p.policyName}`, { count: p._count._all, id: p._count._all === 1 ? (p._max.id ?? null) : null }])),
    bad: Object.fromEntries(bad.map((b) => [`${b.policyName}|${b.revisionId}`, { reason: b.reason, by: b.markedByEmail, at: b.createdAt.toISOString() }])),
  };
}
