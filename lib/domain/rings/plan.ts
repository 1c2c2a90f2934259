/**
 * Issue 43: what a ringed rollout does, in the words every surface uses (the request page, the approve dialog,
 * its toast, the webhooks, the history, the start form). Pure.
 */

export interface RingPlan {
  stage: string;
  /** The first step's percent, and the steps. */
  steps: number[];
  /** Nodes of the stage in the first step's ring (bucket or named), and all nodes of the stage running the policy. */
  firstNodes: number;
  stageNodes: number;
  soakMinutes: number | null;
  gateOnConvergence: boolean;
  rollbackOnFailure: boolean;
}

const nodes = (n: number) => `${n} node${n === 1 ? '' : 's'}`;

/** "by hand once converged", "automatically after 30 minutes of soak", … */
export function ringWidening(p: Pick<RingPlan, 'soakMinutes' | 'gateOnConvergence'>): string {
  const when = p.soakMinutes ? `automatically after ${p.soakMinutes} minute${p.soakMinutes === 1 ? '' : 's'} of soak` : 'by hand';
  return `widening ${when}${p.gateOnConvergence ? ' once converged' : ''}`;
}

/** "rolled back automatically if a ring node fails" or "rolled back only by hand". */
export function ringRollbackWords(p: Pick<RingPlan, 'rollbackOnFailure'>): string {
  return p.rollbackOnFailure ? 'rolled back automatically as soon as a ring node fails' : 'rolled back only by hand';
}

/** "50% of production (1 of 2 nodes)": the first step's blast radius. */
export function ringBlastRadius(p: Pick<RingPlan, 'stage' | 'steps' | 'firstNodes' | 'stageNodes'>): string {
  return `${p.steps[0]}% of ${p.stage} (${p.firstNodes} of ${nodes(p.stageNodes)})`;
}

/** What starting (or approving the start of) the ring does: "starts a ringed rollout: 50% of production (1 of 2 nodes) gets b47b6329f4, widening by hand once converged". */
export function ringStartWords(p: RingPlan, toRevision: string): string {
  return `starts a ringed rollout: ${ringBlastRadius(p)} gets ${toRevision.slice(0, 10)}, ${ringWidening(p)}; ${ringRollbackWords(p)}`;
}

/** After the start: "the ring started; production still runs a1b2c3d4e5 (1 of 2 nodes get b47b6329f4 first)". */
export function ringStartedWords(p: RingPlan, fromRevision: string, toRevision: string): string {
  return `the ring started; ${p.stage} still runs ${fromRevision.slice(0, 10)} (${p.firstNodes} of ${nodes(p.stageNodes)} get ${toRevision.slice(0, 10)} first; the stage's revision moves only at the last step)`;
}
