/**
 * Rollout health (issue 26): where each node of a stage and policy stands
 * against the revision the stage runs, from its latest finished chef-client
 * run. Pure: the caller passes the clock and the missing interval.
 */

/** A node's standing against a revision. */
export type NodeStanding = 'converged' | 'failed' | 'pending' | 'missing';

/** What the health arithmetic needs of a node: its latest finished run (if any) and when it last reported at all. */
export interface NodeRunFacts {
  /** The latest finished run, or null when the node never reported one. */
  lastRun: {
    status: 'success' | 'failure';
    revisionId: string | null;
    endTime: Date;
    failedResource?: string | null;
    failedCookbook?: string | null;
    /** First successful run of `revisionId` on this node (the soak clock of a gate). */
    firstSuccessAt?: Date | null;
  } | null;
  /** The latest sign of life: a run, a run start or a node save (null: never). */
  lastSeen: Date | null;
}

/**
 * `missing`: not heard from for longer than `missingAfterMs` (or never);
 * else `converged` / `failed` when its latest run was on `revisionId`;
 * else `pending` (it has not run that revision yet).
 */
export function classifyNode(facts: NodeRunFacts, revisionId: string | null, now: Date, missingAfterMs: number): NodeStanding {
  const seen = latest(facts.lastSeen, facts.lastRun?.endTime ?? null);
  if (!seen || now.getTime() - seen.getTime() > missingAfterMs) return 'missing';
  const run = facts.lastRun;
  if (!run || !revisionId || run.revisionId !== revisionId) return 'pending';
  return run.status === 'success' ? 'converged' : 'failed';
}

function latest(a: Date | null, b: Date | null): Date | null {
  if (!a) return b;
  if (!b) return a;
  return a.getTime() >= b.getTime() ? a : b;
}

/** One failure group: the cookbook and the resource that raised, with how many nodes it stops. */
export interface FailureGroup {
  cookbook: string | null;
  resource: string | null;
  nodes: number;
}

export interface HealthSummary {
  revisionId: string | null;
  nodes: number;
  converged: number;
  failed: number;
  pending: number;
  missing: number;
  /** Failures grouped by (cookbook, resource), most nodes first (ties by cookbook then resource), at most `limit`. */
  failures: FailureGroup[];
}

/**
 * Counts the standings of a stage's nodes for `revisionId` and groups the failures. Issue 43: `revisionOf` gives
 * the revision a node is judged against when it is not the stage's (a node in an open canary ring: the ring's).
 */
export function summarizeHealth<T extends NodeRunFacts>(nodes: T[], revisionId: string | null, now: Date, missingAfterMs: number, limit = 5, revisionOf?: (n: T) => string | null): HealthSummary {
  const out: HealthSummary = { revisionId, nodes: nodes.length, converged: 0, failed: 0, pending: 0, missing: 0, failures: [] };
  const groups = new Map<string, FailureGroup>();
  for (const n of nodes) {
    const s = classifyNode(n, revisionOf ? revisionOf(n) : revisionId, now, missingAfterMs);
    out[s]++;
    if (s === 'failed') {
      const cookbook = n.lastRun?.failedCookbook ?? null;
      const resource = n.lastRun?.failedResource ?? null;
      const key = JSON.stringify([cookbook, resource]);
      const g = groups.get(key) ?? { cookbook, resource, nodes: 0 };
      g.nodes++;
      groups.set(key, g);
    }
  }
  out.failures = [...groups.values()]
    .sort((a, b) => b.nodes - a.nodes || cmp(a.cookbook, b.cookbook) || cmp(a.resource, b.resource))
    .slice(0, limit);
  return out;
}

function cmp(a: string | null, b: string | null): number {
  const x = a ?? '';
  const y = b ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
}
