import type { AutomationStateDto } from '@/lib/domain/rollout';
import type { StageGuardState } from './guards';
import type { StageVerdictDto } from './verdicts';
/** The stage board's data (GET /api/v1/board and the board page): shared by the query that builds it and the components that show it. */

export interface BoardCell {
  revisionId: string;
  verified: boolean;
  since: string;
  nodes: number;
  nodesOnRevision: number;
  /** Compared with the nearest stage to the left that has this policy: null when there is none. */
  differsFromPrevious: boolean | null;
  /** The stage actually compared with (the nearest visible stage to the left that has this policy), or null. */
  comparedWith: string | null;
  /**
   * When it differs: `behind` when this stage runs an older revision than `comparedWith` (waiting
   * for promotion), `ahead` when it runs a newer one (changed without passing through `comparedWith`).
   */
  relation: 'behind' | 'ahead' | null;
  cookbooksChanged: number;
  /** Issue 48: how many policies of this stage carry an older revision of this one through their includes (absent: none). */
  olderDependents?: number;
}

/** What the board adds to its cells for guarded stages (issue 15). */
export interface BoardGuards {
  /** Per visible stage name: its guard state (protection, freeze now and next, pending requests), the shape every reader shares. */
  stages: Record<string, StageGuardState>;
  /** Per "stage|policy": pending requests (and the id when there is exactly one, for a direct link). */
  pending: Record<string, { count: number; id: string | null }>;
  /** Per "policy|revisionId": who marked it bad and why. */
  bad: Record<string, { reason: string; by: string; at: string }>;
  /** Issue 43: per "policy|revisionId": the stages (visible to the viewer) where the revision failed (verdicts in force), newest first. */
  verdicts?: Record<string, StageVerdictDto[]>;
  /** Issue 29: per "stage|policy": pending scheduled promotions into the stage, and the soonest one's time. */
  scheduled?: Record<string, { count: number; next_run_at: string }>;
  /** Issue 47: per stage name: its automatic promotion (on, waiting for what and until when, held by whom), when on or held. */
  automation?: Record<string, AutomationStateDto>;
}

export interface BoardData {
  /** `canManage`: may override a freeze (issue 15); the server checks again. */
  stages: { name: string; description: string; position: number; canPromote: boolean; canManage?: boolean }[];
  /** `latestRevisionId`: the policy's newest uploaded (or composed) revision, wherever it runs (a fresh upload may run nowhere yet); derived single-cookbook revisions are not uploads. */
  policies: { name: string; team: string | null; latestRevisionId: string | null; cells: Record<string, BoardCell | null> }[];
  teams: string[];
  generatedAt: string;
  /** Protected and frozen stages, pending requests and bad revisions (issue 15). */
  guards?: BoardGuards;
}
