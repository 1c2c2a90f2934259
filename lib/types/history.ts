/** A stage's pointer history for one policy: shared by the query and the history timeline. */

export interface HistoryEntry {
  id: string;
  at: string;
  kind: string;
  fromRevisionId: string | null;
  toRevisionId: string | null;
  actor: string | null;
  reason: string | null;
  /**
   * The stage's nodes of this policy now running the revision this change moved to, out of all of them, and
   * when the last of them reported it (from chef-client's saved node objects): how far a promotion has rolled out.
   */
  convergence: { nodes: number; converged: number; lastConvergedAt: string | null } | null;
}

/**
 * Issue 43: what else happened to a policy in a stage, beside the pointer's moves: its ringed rollouts (asked for,
 * started, widened, paused, rolled back, completed), its promotion requests (opened, approved, rejected, outdated,
 * withdrawn) and the failures recorded against the stage (verdicts). Read from the append-only audit log.
 */
export interface StageEventEntry {
  id: string;
  at: string;
  /** ring | request | verdict */
  kind: 'ring' | 'request' | 'verdict';
  /** The audit action ("ring.start", "request.approve", "revision.failed_in_stage", …). */
  action: string;
  actor: string | null;
  /** One sentence, e.g. "Ring started: 50% of production (1 of 2 nodes) gets b47b6329f4; production still runs a1b2c3d4e5". */
  text: string;
  fromRevisionId: string | null;
  toRevisionId: string | null;
  links: { href: string; label: string }[];
}
