/** Issue 29: a revision's journey across stages (GET /api/v1/policies/:name/revisions/:rev/journey and the revision page). */
import type { StageVerdictDto } from './verdicts';

/** How the change reached the server: the console, /api/v1 with a token, the Chef API (chef push / knife), the importer, an approved promotion request, or the system. */
export type JourneyTool = 'console' | 'api' | 'chef-push' | 'chef-api' | 'import' | 'request' | 'system';

export interface JourneyCreation {
  at: string;
  by: string | null;
  /** upload | compose | cookbook-promotion | seed */
  origin: string;
  origin_detail: Record<string, unknown> | null;
  tool: JourneyTool;
  /** Words for the tool, e.g. "chef push (Chef API, key release/default)". */
  tool_label: string;
  /** The audit event's `via` (how the uploader authenticated), when recorded. */
  via: string | null;
}

export interface JourneyApproval {
  by: string;
  at: string;
  decision: 'approve' | 'reject';
  comment: string | null;
}

export interface JourneyRequest {
  id: string;
  requester: string;
  requested_at: string;
  approvals_required: number;
  approvals: JourneyApproval[];
  /** The rules that asked for approvals. */
  reasons: { rule: string; approvals: number; message: string }[];
}

/** One stay of the revision in one stage: how it came in, how long it stayed, how it left, and how the stage's nodes converged it. */
export interface JourneyStep {
  stage: string;
  entered_at: string;
  /** Who moved the stage to this revision (an approved request: the requester, acting through it). */
  by: string | null;
  /** pointer kind: set | promote | promote-cookbook | rollback | ring … */
  kind: string;
  tool: JourneyTool;
  via: string | null;
  from_revision_id: string | null;
  reason: string | null;
  request: JourneyRequest | null;
  overrides: {
    freeze?: { reason: string; by: string };
    gate?: { reason: string };
    artifacts?: { reason: string; missing: string[] };
  };
  automatic_rollback: { rule: string } | null;
  /** When the stage moved off this revision (null: it still runs it). */
  left_at: string | null;
  left: { by: string | null; kind: string; to_revision_id: string | null } | null;
  /** Time spent in the stage: until it left, or until now. */
  soak_ms: number;
  current: boolean;
}

/** How the stage's nodes converged this revision, from chef-client's run reports (issue 26), over all its time there. */
export interface JourneyConvergence {
  stage: string;
  nodes_converged: number;
  nodes_failed: number;
  successful_runs: number;
  failed_runs: number;
  first_success_at: string | null;
  /** When the last node that converged it did so for the first time. */
  last_first_success_at: string | null;
  /** From the first time it entered the stage to last_first_success_at. */
  converged_after_ms: number | null;
}

export interface RevisionJourney {
  policy: string;
  revision_id: string;
  created: JourneyCreation;
  /** Oldest first; only stages the reader may view. */
  steps: JourneyStep[];
  convergence: JourneyConvergence[];
  /** Open promotion requests to this revision (stages the reader may view). */
  pending_requests: (JourneyRequest & { stage: string })[];
  /** Stages running it now (viewable). */
  current_stages: string[];
  /** Pending scheduled promotions of this revision (stages the reader may view). */
  scheduled: { id: string; stage: string; when: 'at' | 'freeze_end'; run_at: string; scheduled_by: string }[];
  /** Issue 43: the ringed rollouts of this revision (stages the reader may view), oldest first. */
  rings: JourneyRing[];
  /** Issue 43: where it failed (stage verdicts, in force or overridden; stages the reader may view), oldest first. */
  verdicts: StageVerdictDto[];
}

/** Issue 43: one ringed rollout of the revision in a stage. */
export interface JourneyRing {
  id: string;
  stage: string;
  status: string;
  steps: number[];
  /** The step it reached (its percent). */
  percent: number;
  started_at: string;
  started_by: string;
  ended_at: string | null;
  end_reason: string | null;
  url: string;
}
