/**
 * Issue 30: what the promotion-request flow needs of ringed rollouts: a ring
 * started on a protected stage waits for its request (status
 * `pending_approval`); the request's apply starts the ring's first step
 * instead of moving the stage's pointer.
 *
 * Issue 43: the ring's webhooks (`ring.started`, `ring.widened`,
 * `ring.rolled_back`, `ring.completed`), each with an absolute link to the
 * ring's page, written to the outbox in the transaction of the change.
 */
import type { Tx } from '@/lib/db/client';
import { ringSeed, ringStartedWords, ringStartWords, ringSteps, type RingPlan } from '@/lib/domain/rings';
import { conflict } from '@/lib/errors';
import type { RingRolloutDto } from '@/lib/types/rings';
import { audit, type AuditActor, absoluteUrl, emitEvent, markOverridden, resolveVerdict, verdictsOn } from '@/lib/services/funnel';

/** The request kind of a ringed rollout's start. */
export const RING_REQUEST_KIND = 'ring';

const short = (r: string | null) => (r ? r.slice(0, 10) : 'nothing');
const nodes = (n: number) => `${n} node${n === 1 ? '' : 's'}`;

/** What a ring event is about (a RingRolloutDto has all of it). */
export type RingEventSubject = Pick<RingRolloutDto, 'id' | 'stage' | 'policy' | 'from_revision_id' | 'to_revision_id' | 'percent' | 'steps' | 'step' | 'status' | 'health' | 'end_reason'> & {
  plan: Pick<RingRolloutDto['plan'], 'words' | 'first_nodes' | 'stage_nodes'>;
  verdict?: RingRolloutDto['verdict'];
  returned_nodes?: string[];
};

export type RingEvent = 'ring.started' | 'ring.widened' | 'ring.rolled_back' | 'ring.completed';

/** The ring's page as an absolute link, for notifications. */
export const ringLink = (id: string) => absoluteUrl(`/rings/${encodeURIComponent(id)}`);

/** Writes one ring event to the outbox (one line with the link, the facts, a button to the ring). */
export async function emitRingEvent(tx: Tx, event: RingEvent, r: RingEventSubject, by: string, at: Date, reason: string | null = null): Promise<void> {
  const link = ringLink(r.id);
  const inRing = r.health.ring_nodes;
  const summary =
    event === 'ring.started'
      ? `${by} started a ringed rollout of ${r.policy} in ${r.stage}: ${r.plan.words.replace(/^starts a ringed rollout: /, '')}. ${r.stage} still runs ${short(r.from_revision_id)} on every other node.`
      : event === 'ring.widened'
        ? `The ring of ${r.policy} ${short(r.to_revision_id)} in ${r.stage} widened to ${r.percent}% (${inRing} of ${nodes(r.plan.stage_nodes)}, step ${r.step + 1} of ${r.steps.length}) by ${by}.`
        : event === 'ring.completed'
          ? `The ringed rollout of ${r.policy} in ${r.stage} completed: ${short(r.to_revision_id)} is now ${r.stage}'s revision (by ${by}).`
          : `The ring of ${r.policy} ${short(r.to_revision_id)} in ${r.stage} was rolled back by ${by}: ${nodes(r.returned_nodes?.length ?? 0)} return to ${short(r.from_revision_id)}${r.verdict ? `; ${r.verdict.summary}` : ''}.`;
  const facts: [string, string][] = [
    ['Stage', r.stage],
    ['Policy', r.policy],
    ['Ring revision', short(r.to_revision_id)],
    ['Stage runs', short(event === 'ring.completed' ? r.to_revision_id : r.from_revision_id)],
    ['Ring', event === 'ring.rolled_back' ? `ended at ${r.percent}%` : `${r.percent}% (${inRing} of ${nodes(r.plan.stage_nodes)})`],
    ['Health', `${r.health.converged} converged, ${r.health.failed} failed, ${r.health.pending} not yet run`],
    ['By', by],
    ...(reason ? ([['Reason', reason]] as [string, string][]) : []),
  ];
  const title =
    event === 'ring.started'
      ? `Ring started: ${r.policy} in ${r.stage}`
      : event === 'ring.widened'
        ? `Ring widened to ${r.percent}%: ${r.policy} in ${r.stage}`
        : event === 'ring.completed'
          ? `Ring completed: ${r.policy} in ${r.stage}`
          : `Ring rolled back: ${r.policy} in ${r.stage}`;
  await emitEvent(
    tx,
    event,
    `${summary} ${link}`,
    {
      ring: r.id,
      url: link,
      stage: r.stage,
      policy: r.policy,
      from_revision_id: r.from_revision_id,
      to_revision_id: r.to_revision_id,
      step: r.step,
      percent: r.percent,
      health: r.health,
      by,
      reason,
      ...(r.returned_nodes ? { returned_nodes: r.returned_nodes } : {}),
      ...(r.verdict ? { verdict: r.verdict } : {}),
    },
    { at, message: { title, link: { url: link, label: 'Open the ringed rollout' }, facts } },
  );
}

/** The first step's plan of a ring row (what its start does), from the stage's nodes now. */
export async function ringPlanOf(
  tx: Tx,
  ring: { groupId: string; policyId: string; groupName: string; policyName: string; steps: string; soakMinutes: number | null; gateOnConvergence: boolean; rollbackOnFailure: boolean; nodes: { nodeName: string }[] },
): Promise<RingPlan> {
  const steps = JSON.parse(ring.steps) as number[];
  const names = (await tx.node.findMany({ where: { groupId: ring.groupId, policyId: ring.policyId }, select: { name: true } })).map((n) => n.name);
  const first = ringSteps({ seed: ringSeed(ring.groupName, ring.policyName), steps, named: ring.nodes.map((n) => n.nodeName) }, names)[0] ?? [];
  return { stage: ring.groupName, steps, firstNodes: first.length, stageNodes: names.length, soakMinutes: ring.soakMinutes, gateOnConvergence: ring.gateOnConvergence, rollbackOnFailure: ring.rollbackOnFailure };
}

/**
 * Starts the first step of the ring a request approved (inside the apply's transaction); 409 when there is
 * none waiting. The ring's revision is judged again for a failure in this stage since the request was made
 * (issue 43): only an override a manager gave with the request lets it start then.
 */
export async function activateRingForRequest(tx: Tx, actor: AuditActor | null, requestId: string, approvers: string[], now: Date): Promise<{ rolloutId: string; words: string }> {
  const ring = await tx.ringRollout.findFirst({
    where: { requestId, status: 'pending_approval' },
    select: { id: true, steps: true, groupId: true, policyId: true, groupName: true, policyName: true, fromRevisionId: true, toRevisionId: true, soakMinutes: true, gateOnConvergence: true, rollbackOnFailure: true, nodes: { select: { nodeName: true } } },
  });
  if (!ring) throw conflict(`The ringed rollout this request was made for is no longer waiting (it was rolled back or replaced); nothing started.`);
  const here = (await verdictsOn(tx, ring.policyName, ring.toRevisionId)).filter((v) => v.stage === ring.groupName);
  const verdict = await resolveVerdict(tx, { name: ring.groupName }, { name: ring.policyName }, here, actor, null, requestId);
  const steps = JSON.parse(ring.steps) as number[];
  const { count } = await tx.ringRollout.updateMany({
    where: { id: ring.id, status: 'pending_approval' },
    data: { status: 'active', step: 0, percent: steps[0], approvedBy: approvers.join(', '), stepStartedAt: now, updatedAt: now },
  });
  if (count !== 1) throw conflict('This ringed rollout changed concurrently; refresh.');
  if (verdict) await markOverridden(tx, verdict, now);
  await audit(tx, actor, {
    action: 'ring.start',
    targetType: 'pointer',
    target: `${ring.groupName}/${ring.policyName}`,
    groupName: ring.groupName,
    policyName: ring.policyName,
    before: { revision_id: ring.fromRevisionId },
    after: { ring: ring.id, revision_id: ring.toRevisionId, step: 0, percent: steps[0], promotion_request: requestId, approved_by: approvers },
  });
  const plan = await ringPlanOf(tx, ring);
  const words = ringStartedWords(plan, ring.fromRevisionId, ring.toRevisionId);
  await emitRingEvent(
    tx,
    'ring.started',
    {
      id: ring.id,
      stage: ring.groupName,
      policy: ring.policyName,
      from_revision_id: ring.fromRevisionId,
      to_revision_id: ring.toRevisionId,
      percent: steps[0],
      steps,
      step: 0,
      status: 'active',
      end_reason: null,
      health: { ring_nodes: plan.firstNodes, converged: 0, failed: 0, pending: plan.firstNodes, missing: 0 },
      plan: { words: ringStartWords(plan, ring.toRevisionId), first_nodes: plan.firstNodes, stage_nodes: plan.stageNodes },
    },
    `${actor?.email ?? 'system'} (approved by ${approvers.join(', ')})`,
    now,
  );
  return { rolloutId: ring.id, words };
}
