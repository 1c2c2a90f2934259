import type { Access } from '@/lib/auth/permissions';
import { db } from '../client';
import { stageGuardStates } from './stage-guard-state';
import { verdictsOf } from './verdicts';
import type { BoardGuards } from '@/lib/types/board';
import { automationState } from '@/lib/domain/rollout';

export type { BoardGuards } from '@/lib/types/board';

/**
 * The guard state of the stages given (already filtered to what the viewer may see), pending requests and
 * scheduled promotions per cell, bad revisions, and (issue 43) the stage verdicts in force in those stages.
 * `runs`: per "stage|policy" of those stages, the revision id it runs (the board has read the pointers already:
 * reading them again here with their names as relations cost one more statement per thousand pointers).
 */
export async function loadBoardGuards(access: Access, stageNames: string[], runs: Map<string, string>, now = new Date()): Promise<BoardGuards> {
  const client = db();
  const [states, pendingRows, bad, scheduled, verdicts, automation] = await Promise.all([
    stageGuardStates(access, { now, stages: stageNames }),
    client.promotionRequest.findMany({ where: { status: 'pending', expiresAt: { gt: now }, groupName: { in: stageNames } }, select: { id: true, groupName: true, policyName: true, fromRevisionId: true }, orderBy: { id: 'asc' }, take: 5000 }),
    client.badRevision.findMany({ select: { policyName: true, revisionId: true, reason: true, markedByEmail: true, createdAt: true } }),
    client.scheduledPromotion.groupBy({ by: ['groupName', 'policyName'], where: { status: 'pending', groupName: { in: stageNames } }, _count: { _all: true }, _min: { runAt: true } }),
    verdictsOf(client, { inForce: true }),
    // Issue 47: each stage's automatic promotion (on, waiting, held, off), for the stages whose rule has it on or held,
    // or could have it (a gated stage shows "auto: off"; a stage without a gate cannot be automated and shows nothing).
    client.stageRolloutRule.findMany({
      where: { groupName: { in: stageNames }, OR: [{ autoPromoteEnabled: true }, { heldAt: { not: null } }, { gateEnabled: true }] },
      select: { groupName: true, autoPromoteEnabled: true, heldAt: true, heldByEmail: true, heldReason: true, heldSource: true, autoWaiting: true },
    }),
  ]);
  // Issue 43: a request whose stage moved on since it was made is outdated, not pending (the request services write that down).
  const pending = new Map<string, { count: number; id: string | null }>();
  for (const r of pendingRows) {
    const key = `${r.groupName}|${r.policyName}`;
    if ((runs.get(key) ?? null) !== r.fromRevisionId) continue;
    const cur = pending.get(key);
    pending.set(key, cur ? { count: cur.count + 1, id: null } : { count: 1, id: r.id });
  }
  const visible = new Set(stageNames);
  const failed: BoardGuards['verdicts'] = {};
  for (const v of verdicts) if (visible.has(v.stage)) (failed[`${v.policy}|${v.revision_id}`] ??= []).push(v);
  return {
    stages: Object.fromEntries(states.map((s) => [s.stage, s])),
    pending: Object.fromEntries(pending),
    verdicts: failed,
    bad: Object.fromEntries(bad.map((b) => [`${b.policyName}|${b.revisionId}`, { reason: b.reason, by: b.markedByEmail, at: b.createdAt.toISOString() }])),
    scheduled: Object.fromEntries(scheduled.map((x) => [`${x.groupName}|${x.policyName}`, { count: x._count._all, next_run_at: (x._min.runAt ?? now).toISOString() }])),
    automation: Object.fromEntries(automation.map((r) => [r.groupName, automationState(r)])),
  };
}
