/**
 * Issues 43 and 41: a stage's verdict on a revision — it failed there (a canary ring rolled back for its
 * nodes' failures, or the stage's automatic rollback rule), with the evidence. One model for both: evidence
 * about one stage. The guard refuses moving the revision into that stage again unless someone who manages
 * it writes an override; every other stage is told (the guard's answer, the board, the journey), not refused.
 */
export type VerdictSource = 'ring' | 'rollback';

export interface StageVerdictDto {
  id: string;
  stage: string;
  policy: string;
  revision_id: string;
  source: VerdictSource;
  /** The ringed rollout that failed (source ring). */
  ring_id: string | null;
  /** The page with the evidence: the ring's page, or the stage's history. */
  url: string;
  /** Distinct nodes counted (the ring's nodes, or the stage's nodes that reported the revision) and those that failed. */
  nodes: number;
  failed_nodes: number;
  failed_resource: string | null;
  failed_cookbook: string | null;
  /** Up to 50 of the failed nodes' names. */
  failed_node_names: string[];
  summary: string;
  at: string;
  /** Set when a manager moved the revision into the stage again with a written reason. */
  overridden: { at: string; by: string; reason: string } | null;
}

/**
 * "failed in a canary ring in qa 10 minutes ago: 1 of 3 nodes, ruby_block[x] (cookbook release)". `when` is
 * how the caller says the time ("10 minutes ago" on a page, "on 2026-12-03 09:40 UTC" in a refusal).
 */
export function verdictLine(v: Pick<StageVerdictDto, 'source' | 'stage' | 'nodes' | 'failed_nodes' | 'failed_resource' | 'failed_cookbook'>, when: string): string {
  const where = v.source === 'ring' ? `in a canary ring in ${v.stage}` : `in ${v.stage} (rolled back by the stage's automatic rollback rule)`;
  const nodes = v.nodes > 0 ? `${v.failed_nodes} of ${v.nodes} node${v.nodes === 1 ? '' : 's'}` : `${v.failed_nodes} node${v.failed_nodes === 1 ? '' : 's'}`;
  const at = v.failed_resource ? `, ${v.failed_resource}${v.failed_cookbook ? ` (cookbook ${v.failed_cookbook})` : ''}` : '';
  return `failed ${where} ${when}: ${nodes}${at}`;
}
