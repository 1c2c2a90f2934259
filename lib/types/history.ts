/** A stage's pointer history, as the history query returns it and the timeline shows it. */

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
