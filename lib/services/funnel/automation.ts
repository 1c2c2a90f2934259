/**
 * Issue 47: the state of a stage's automatic promotion (on, waiting for what and until when, held by whom, off)
 * and its holds. A hold is written by a conditional update (`where heldAt is null`), so two instances holding at
 * once record one hold, one `automation.held` event and one timeline entry; it is lifted by resume
 * (lib/services/runs/auto-promote.ts). Holds happen in the transaction of what caused them: a person's rollback, a
 * person's promotion of another revision than the one the stage before runs (movePointer), a ring rolled back
 * for failures (rings.ts).
 */
import type { Tx } from '@/lib/db/client';
import type { AuditActor } from './audit';
import { audit } from './audit';
import { absoluteUrl, emitEvent } from './outbox';
import { automationState, type HoldSource } from '@/lib/domain/rollout';

export { automationState };

/** The `via` of the automation's actor: movePointer does not hold the automation for its own moves. */
export const AUTO_PROMOTE_VIA = 'auto-promote';
export const AUTO_PROMOTE_ACTOR = { kind: 'system' as const, userId: null, email: 'system (automatic promotion)', via: AUTO_PROMOTE_VIA };

export type { AutomationStateDto, AutomationWaitingDto, HoldSource } from '@/lib/domain/rollout';

/** The stage's history of a policy, as an absolute link for notifications. */
export const timelineLink = (stage: string, policy?: string | null) => absoluteUrl(`/history?stage=${encodeURIComponent(stage)}${policy ? `&policy=${encodeURIComponent(policy)}` : ''}`);

/**
 * Holds the stage's automatic promotion (when it is on and not held already): who and why, audited, on the
 * timeline and announced (`automation.held`). Returns whether this call held it.
 */
export async function holdAutomation(
  tx: Tx,
  actor: AuditActor | null,
  h: { stage: string; policy?: string | null; revisionId?: string | null; reason: string; source: HoldSource; requestId?: string | null },
  now: Date,
): Promise<boolean> {
  const by = actor?.email ?? 'system';
  const { count } = await tx.stageRolloutRule.updateMany({
    where: { groupName: h.stage, autoPromoteEnabled: true, heldAt: null },
    data: { heldAt: now, heldByEmail: by, heldReason: h.reason.slice(0, 1000), heldSource: h.source, autoWaiting: '{}' },
  });
  if (count !== 1) return false;
  const summary = `automatic promotion into ${h.stage} held by ${by}: ${h.reason}`;
  const evidence = { source: h.source, policy: h.policy ?? null, revision_id: h.revisionId ?? null, reason: h.reason };
  await tx.automationEvent.create({ data: { groupName: h.stage, policyName: h.policy ?? null, revisionId: h.revisionId ?? null, kind: 'held', summary, actorEmail: by, evidence: JSON.stringify(evidence), createdAt: now } });
  await audit(tx, actor, { action: 'automation.hold', targetType: 'stage', target: h.stage, groupName: h.stage, policyName: h.policy ?? null, after: { held: evidence }, reason: h.reason, requestId: h.requestId });
  await emitEvent(tx, 'automation.held', `${summary}. Resume it on the stage's history page or with POST /api/v1/policy_groups/${h.stage}/rollout/resume. ${timelineLink(h.stage, h.policy)}`, { stage: h.stage, held_by: by, ...evidence }, {
    at: now,
    message: { title: `Automatic promotion held: ${h.stage}`, link: { url: timelineLink(h.stage, h.policy), label: `Open the history of ${h.stage}` }, facts: [['Stage', h.stage], ['Held by', by], ['Why', h.reason]] },
  });
  return true;
}

/**
 * Called by movePointer after a move that is not the automation's own: a person's rollback holds the stage's
 * automatic promotion, and so does a person's promotion of a revision other than the one the stage before runs
 * (promoting that very revision early is what the automation would have done). A request the automation opened,
 * applied after its approvals, is the automation's move.
 */
export async function holdOnManualMove(
  tx: Tx,
  actor: AuditActor | null,
  m: { group: { id: string; name: string }; policy: { id: string; name: string }; kind: string; fromRevisionId: string | null; toRevisionId: string | null; reason?: string | null; approvedRequestId?: string; requestId?: string | null },
  now: Date,
): Promise<void> {
  if (m.kind === 'seed' || actor?.via === AUTO_PROMOTE_VIA) return;
  // The system's own moves (a ring's automatic widening, the importer) are no person stepping in; an approved request applied is its requester's.
  if (actor?.kind === 'system' && !actor.via?.startsWith('promotion-request:')) return;
  const rule = await tx.stageRolloutRule.findUnique({ where: { groupName: m.group.name }, select: { autoPromoteEnabled: true, heldAt: true } });
  if (!rule?.autoPromoteEnabled || rule.heldAt) return;
  if (m.approvedRequestId) {
    const req = await tx.promotionRequest.findUnique({ where: { id: m.approvedRequestId }, select: { origin: true } });
    if (req && (JSON.parse(req.origin) as { auto_promote?: unknown }).auto_promote) return;
  }
  const short = (r: string | null) => (r ? r.slice(0, 10) : 'nothing');
  const by = actor?.email ?? 'system';
  if (m.kind === 'rollback') {
    await holdAutomation(tx, actor, { stage: m.group.name, policy: m.policy.name, revisionId: m.toRevisionId, source: 'rollback', reason: `${by} rolled ${m.policy.name} back ${short(m.fromRevisionId)} → ${short(m.toRevisionId)}${m.reason ? `: ${m.reason}` : ''}`, requestId: m.requestId }, now);
    return;
  }
  const self = await tx.policyGroup.findUnique({ where: { id: m.group.id }, select: { position: true } });
  const prev = self ? await tx.policyGroup.findFirst({ where: { position: { lt: self.position } }, orderBy: [{ position: 'desc' }, { name: 'asc' }], select: { id: true } }) : null;
  const prevRevision = prev ? ((await tx.groupPolicy.findUnique({ where: { groupId_policyId: { groupId: prev.id, policyId: m.policy.id } }, select: { revision: { select: { revisionId: true } } } }))?.revision.revisionId ?? null) : null;
  if (m.toRevisionId && m.toRevisionId === prevRevision) return;
  await holdAutomation(tx, actor, { stage: m.group.name, policy: m.policy.name, revisionId: m.toRevisionId, source: 'promotion', reason: `${by} moved ${m.policy.name} ${short(m.fromRevisionId)} → ${short(m.toRevisionId)} by hand${m.reason ? `: ${m.reason}` : ''}`, requestId: m.requestId }, now);
}
