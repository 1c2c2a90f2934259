/**
 * Issue 42: whether a stage runs a newer or an older revision of a policy than the stage before it (the board's
 * "ahead of" / "behind"), decided by what the revisions' history says, never by when the console stored them
 * (an import stores an organization's whole history in a minute, in no meaningful order). Pure.
 *
 * 1. Pointer history: every move from revision a to revision b (a promotion, a set, an import of a move the
 *    source made; not a rollback)
 *    says b came after a (a first placing, from nothing, says nothing). When the moves lead from the earlier
 *    stage's revision to the later stage's, the later stage is ahead; the other way round, behind.
 * 2. Else, for two revisions uploaded to the console (not imported), their upload times (the console saw them come).
 * 3. Else the source's own order: the cookbook versions the two locks pin. All at least as new and one newer:
 *    that lock came after. Otherwise undecided (null: the board says only that they differ).
 */
import { compareVersions } from '@/lib/domain/shared/version';

export interface RelationRevision {
  revisionId: string;
  /** cookbook → version, as the lock pins them. */
  versions: ReadonlyMap<string, string>;
  createdAt: Date;
  imported: boolean;
}

/** A move of this policy's pointer in some stage. */
export interface RelationMove {
  from: string | null;
  to: string | null;
  kind: string;
}

/** Revision ids that came after `from`, following moves (each id once). */
function successors(from: string, edges: ReadonlyMap<string, readonly string[]>): Set<string> {
  const seen = new Set<string>();
  const todo = [from];
  while (todo.length) {
    const x = todo.pop()!;
    for (const y of edges.get(x) ?? []) {
      if (seen.has(y)) continue;
      seen.add(y);
      todo.push(y);
    }
  }
  return seen;
}

/** "after" edges of one policy's history. */
export function moveEdges(moves: readonly RelationMove[]): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const m of moves) {
    if (!m.from || !m.to || m.from === m.to || m.kind === 'rollback') continue;
    edges.set(m.from, [...(edges.get(m.from) ?? []), m.to]);
  }
  return edges;
}

/** Newer (1), older (-1) or undecided (0) by pinned cookbook versions. */
export function versionOrder(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): number {
  let newer = false;
  let older = false;
  for (const [name, v] of a) {
    const w = b.get(name);
    if (w === undefined) continue;
    const c = compareVersions(v, w);
    if (c > 0) newer = true;
    else if (c < 0) older = true;
  }
  return newer && !older ? 1 : older && !newer ? -1 : 0;
}

/** The later stage's revision against the earlier stage's: 'ahead', 'behind', or null when nothing decides. */
export function stageRelation(later: RelationRevision, earlier: RelationRevision, edges: ReadonlyMap<string, readonly string[]>): 'ahead' | 'behind' | null {
  if (later.revisionId === earlier.revisionId) return null;
  if (successors(earlier.revisionId, edges).has(later.revisionId)) return 'ahead';
  if (successors(later.revisionId, edges).has(earlier.revisionId)) return 'behind';
  if (!later.imported && !earlier.imported && later.createdAt.getTime() !== earlier.createdAt.getTime()) return later.createdAt < earlier.createdAt ? 'behind' : 'ahead';
  const byVersions = versionOrder(later.versions, earlier.versions);
  return byVersions > 0 ? 'ahead' : byVersions < 0 ? 'behind' : null;
}
