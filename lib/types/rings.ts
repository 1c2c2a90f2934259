/** Issue 30: ringed rollouts as the API and the console see them. */
import type { StageVerdictDto } from './verdicts';

export type RingStatusDto = 'pending_approval' | 'active' | 'paused' | 'completed' | 'rolled_back' | 'superseded';

export interface RingNodeDto {
  name: string;
  /** The revision the node's last saved run applied (its `automatic.policy_revision`). */
  revision_id: string | null;
  /** What the node is served now: the ring's revision or the stage's. */
  serves: 'ring' | 'stage';
  /** Named into the ring rather than by its bucket. */
  named: boolean;
  /** The node's standing on the ring revision (issue 26 health): converged, failed, pending, missing. */
  standing: 'converged' | 'failed' | 'pending' | 'missing';
  /** Issue 43: where a failed node stopped (its latest run on the ring revision), else null. */
  failed_resource: string | null;
  failed_cookbook: string | null;
}

export interface RingStepDto {
  percent: number;
  /** The nodes this step adds to the ring. */
  nodes: RingNodeDto[];
  state: 'done' | 'current' | 'next';
}

export interface RingHealthDto {
  ring_nodes: number;
  converged: number;
  failed: number;
  pending: number;
  missing: number;
}

export interface RingRolloutDto {
  id: string;
  stage: string;
  policy: string;
  from_revision_id: string;
  to_revision_id: string;
  steps: number[];
  /** Index of the current step (-1 while waiting for approval). */
  step: number;
  percent: number;
  status: RingStatusDto;
  named_nodes: string[];
  gate_on_convergence: boolean;
  /** Issue 43: roll back automatically as soon as a ring node fails (judged when its run is reported, and by the worker's pass). */
  rollback_on_failure: boolean;
  soak_minutes: number | null;
  /** When the next automatic widening is due (soak time set, active), ISO. */
  next_widen_at: string | null;
  request_id: string | null;
  approved_by: string | null;
  reason: string | null;
  created_by: string;
  created_at: string;
  step_started_at: string;
  ended_at: string | null;
  end_reason: string | null;
  /**
   * The ring's health: live while it is open; for an ended ring (completed, rolled back), as it stood when it
   * ended (`ended_facts` true), so its page shows what was true then, not what its former nodes run now.
   */
  health: RingHealthDto;
  ended_facts: boolean;
  /** Issue 43: the first step's blast radius and what starting it does, in words ("starts a ringed rollout: 50% of production (1 of 2 nodes) gets …"). */
  plan: { first_nodes: number; stage_nodes: number; words: string; widening: string };
  /** Issue 43: what stops widening now, in words (the ring has not converged; the stage is frozen), for the Widen dialog's answer before the click. */
  widen_blockers: { unconverged: string[]; freeze: { reason: string; ends_at: string } | null };
  /** Issue 43: the verdict this ring left (it was rolled back with failed nodes): the revision failed in this stage. */
  verdict: StageVerdictDto | null;
  /** Present on the detail view: each step's nodes. */
  step_nodes?: RingStepDto[];
  /** Present after a rollback: the nodes that ran the ring and now return to the stage's revision. */
  returned_nodes?: string[];
  /** Present when starting opened a promotion request on a protected stage. */
  request?: { id: string; url: string; approvals_required: number };
  url: string;
}

/** What the "Start a ringed rollout" form offers (lib/services/rings/pages.ts). */
export interface RingStartChoices {
  stages: { name: string }[];
  policies: {
    name: string;
    /** Per stage the viewer may see: the revision it runs. */
    runs: Record<string, string>;
    /** Newest first (at most 20): id, when, how it arrived. */
    revisions: { id: string; created_at: string; origin: string; created_by: string | null }[];
  }[];
  /** Issue 43: per stage the viewer may change, per policy: its nodes' names (the form computes the blast radius of each step). */
  nodes: Record<string, Record<string, string[]>>;
}
