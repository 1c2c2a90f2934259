/**
 * Issue 48: which policies of a stage carry an included policy, at any depth through
 * `included_policy_locks`, and in which order they are rebuilt. Pure: the caller hands in the stage's
 * current revisions and a lookup of stored revisions' direct includes (no I/O here).
 */
import type { IncludedPolicyLockRef } from '../lock/types';
import { MAX_INCLUDE_DEPTH, referencedPolicy } from './cycles';

/** A stored revision's direct includes (its `included_policy_locks`). */
export interface RevisionIncludes {
  policy: string;
  revisionId: string;
  includes: IncludedPolicyLockRef[];
}

/** A stored revision by policy name and revision id (undefined: not stored here, so not followed). */
export type IncludesLookup = (policy: string, revisionId: string) => RevisionIncludes | undefined;

/** One way a dependent carries the included policy. */
export interface CarriedInclude {
  /** The included policy's revision it carries this way. */
  revision_id: string;
  /** The policies between the dependent and the included policy (empty: it includes it directly). */
  via: string[];
  /** The include name and source at the last step (the include of the included policy itself). */
  include_name: string;
  source: Record<string, unknown>;
}

/**
 * Every way `start` carries `target`: depth first through the stored includes, a path never visiting a
 * policy twice (a loop in stored locks is not followed round), at most MAX_INCLUDE_DEPTH deep. A path
 * ends at the first `target` on it (what the target itself includes is not the dependent's concern).
 */
export function carriedPaths(start: RevisionIncludes, target: string, lookup: IncludesLookup): CarriedInclude[] {
  const out: CarriedInclude[] = [];
  const walk = (node: RevisionIncludes, via: string[], seen: Set<string>) => {
    if (via.length >= MAX_INCLUDE_DEPTH) return;
    for (const ref of node.includes) {
      const policy = referencedPolicy(ref);
      if (policy === target) {
        out.push({ revision_id: ref.revision_id, via, include_name: ref.name, source: ref.source_options ?? {} });
        continue;
      }
      if (seen.has(policy)) continue;
      const next = lookup(policy, ref.revision_id);
      if (next) walk(next, [...via, policy], new Set([...seen, policy]));
    }
  };
  walk(start, [], new Set([start.policy]));
  return out;
}

/** The (policy, revision) pairs a set of revisions names through their includes that `known` lacks: what to load next. */
export function missingIncludes(nodes: Iterable<RevisionIncludes>, known: (policy: string, revisionId: string) => boolean): { policy: string; revisionId: string }[] {
  const want = new Map<string, { policy: string; revisionId: string }>();
  for (const n of nodes) {
    for (const ref of n.includes) {
      const policy = referencedPolicy(ref);
      if (typeof ref.revision_id !== 'string' || known(policy, ref.revision_id)) continue;
      want.set(`${policy}\n${ref.revision_id}`, { policy, revisionId: ref.revision_id });
    }
  }
  return [...want.values()];
}

export interface StageDependent {
  policy: string;
  revision_id: string;
  /** The shortest way (1: a direct include). */
  depth: number;
  carries: (CarriedInclude & { current: boolean })[];
  /** Every way it carries the included policy carries the revision the stage runs. */
  current: boolean;
}

/**
 * The dependents of `target` among a stage's current revisions (`stage`: policy → its current revision),
 * given the revision of `target` the stage runs (null: it runs none). Sorted by depth, then name.
 */
export function stageDependents(stage: Map<string, RevisionIncludes>, target: string, targetRevision: string | null, lookup: IncludesLookup): StageDependent[] {
  const out: StageDependent[] = [];
  for (const [policy, node] of stage) {
    if (policy === target) continue;
    const paths = carriedPaths(node, target, lookup);
    if (!paths.length) continue;
    const carries = paths.map((p) => ({ ...p, current: p.revision_id === targetRevision }));
    out.push({ policy, revision_id: node.revisionId, depth: Math.min(...paths.map((p) => p.via.length + 1)), carries, current: carries.every((c) => c.current) });
  }
  return out.sort((a, b) => a.depth - b.depth || (a.policy < b.policy ? -1 : a.policy > b.policy ? 1 : 0));
}

/**
 * For every policy a stage runs: how many of the stage's policies carry an older revision of it (a
 * revision other than the one the stage runs), at any depth. The board's badge.
 */
export function olderDependentCounts(stage: Map<string, RevisionIncludes>, lookup: IncludesLookup): Map<string, number> {
  const counts = new Map<string, number>();
  // Every included policy each revision carries, with the revisions it carries, memoised by revision. A
  // revision met again while its own walk is under way (a loop in stored locks) adds nothing more.
  const memo = new Map<string, Map<string, Set<string>> | 'walking'>();
  const carried = (node: RevisionIncludes, depth: number): Map<string, Set<string>> => {
    const key = `${node.policy}\n${node.revisionId}`;
    const hit = memo.get(key);
    if (hit === 'walking') return new Map();
    if (hit) return hit;
    memo.set(key, 'walking');
    const out = new Map<string, Set<string>>();
    const add = (p: string, r: string) => (out.get(p) ?? out.set(p, new Set()).get(p)!).add(r);
    for (const ref of node.includes) {
      const p = referencedPolicy(ref);
      add(p, ref.revision_id);
      const next = depth < MAX_INCLUDE_DEPTH ? lookup(p, ref.revision_id) : undefined;
      if (next) for (const [q, revs] of carried(next, depth + 1)) for (const r of revs) add(q, r);
    }
    memo.set(key, out);
    return out;
  };
  for (const [policy, node] of stage) {
    for (const [target, revs] of carried(node, 0)) {
      if (target === policy) continue;
      const runs = stage.get(target)?.revisionId;
      if (runs === undefined) continue;
      if ([...revs].some((r) => r !== runs)) counts.set(target, (counts.get(target) ?? 0) + 1);
    }
  }
  return counts;
}

/**
 * The order dependents are rebuilt in: a policy after every policy of the set it includes directly
 * (Kahn's algorithm, ties by name). Policies in an include loop are returned apart (`cycle`), never ordered.
 */
export function rebuildOrder(set: Map<string, RevisionIncludes>): { order: string[]; cycle: string[] } {
  const deps = new Map<string, Set<string>>();
  for (const [p, node] of set) deps.set(p, new Set(node.includes.map(referencedPolicy).filter((q) => q !== p && set.has(q))));
  const order: string[] = [];
  const done = new Set<string>();
  for (;;) {
    const ready = [...deps.keys()].filter((p) => !done.has(p) && [...deps.get(p)!].every((q) => done.has(q))).sort();
    if (!ready.length) break;
    for (const p of ready) {
      done.add(p);
      order.push(p);
    }
  }
  return { order, cycle: [...deps.keys()].filter((p) => !done.has(p)).sort() };
}
