/** Issue 25: the Nodes page (search over every node the user may see) and saved searches. */
export interface NodeListRowDto {
  name: string;
  stage: string | null;
  policy: string | null;
  platform: string | null;
  revisionApplied: string | null;
  lastCheckIn: string | null;
  /** Issue 43: how its chef-client runs stand (as the board's rollout health counts it). */
  run: NodeRunStatusDto;
  /** Issue 42: what the node object lacks to run a policy (empty when it names both). */
  lacks: ('policy_group' | 'policy_name')[];
}

/**
 * Where a node stands against the revision its stage runs, as the board's rollout health counts it
 * (lib/domain/rollout classifyNode): converged, failed (its last run of that revision failed), pending (it has
 * not run that revision yet), missing (not heard from for NODE_MISSING_AFTER_MINUTES). null: not counted (in no
 * stage or policy the console runs, or its runs are in a stage the reader may not view).
 */
export type NodeStanding = 'converged' | 'failed' | 'pending' | 'missing';

export interface NodeRunStatusDto {
  standing: NodeStanding | null;
  /** Its latest finished chef-client run (null: none reported). */
  lastRun: { status: 'success' | 'failure'; at: string; revisionId: string | null; resource: string | null; cookbook: string | null } | null;
}

/** The Nodes page's run status filter (`?run=`): the board's standings. */
export const RUN_FILTERS = ['failed', 'pending', 'missing', 'converged'] as const;
export type RunFilter = (typeof RUN_FILTERS)[number];

export interface NodeSearchDto {
  /** The query as typed ('' : every node). */
  query: string;
  /** The run status filter (null: every node the query finds). */
  run: RunFilter | null;
  total: number;
  start: number;
  rows: NodeListRowDto[];
  /** The parser's message (with the position) for a malformed query; nothing was searched. */
  error: string | null;
}

export interface SavedSearchDto {
  id: string;
  name: string;
  query: string;
  createdAt: string;
}
