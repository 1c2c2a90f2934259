/**
 * Issue 48: the include graph of stored revisions, read from their include digests (never from the
 * documents): what a stage's revisions include, at any depth. Read by the dependents feature and the
 * board (a cross-feature read model). Nested includes are loaded one level per statement, only those not
 * loaded yet, at most MAX_INCLUDE_DEPTH levels: a board without includes costs no statement here.
 */
import type { Prisma } from '../generated/client';
import type { Tx } from '../client';
import { MAX_INCLUDE_DEPTH, missingIncludes, olderDependentCounts, type IncludedPolicyLockRef, type IncludesLookup, type RevisionIncludes } from '@/lib/domain';

const key = (policy: string, revisionId: string) => `${policy}\n${revisionId}`;

/** A digest as stored ('' or unreadable: no includes). */
export function parseIncludeDigest(digest: string | null | undefined): IncludedPolicyLockRef[] {
  if (!digest || digest === '[]') return [];
  try {
    const v = JSON.parse(digest) as unknown;
    return Array.isArray(v) ? (v.filter((r) => r && typeof r === 'object' && typeof r.revision_id === 'string' && typeof r.name === 'string') as IncludedPolicyLockRef[]) : [];
  } catch {
    return [];
  }
}

/**
 * The stored revisions named by (policy, revision id) pairs. Asked by revision id (an IN list, in chunks) and
 * matched to the policy here: an OR of pairs each joining the policy is one join per pair, and SQLite allows
 * 64 tables in a join (a stage of 60 dependents failed so).
 */
export async function revisionsByPolicyAndId<T extends { revisionId: string; policy: { name: string } }>(client: Tx, wanted: { policy: string; revisionId: string }[], select: Prisma.PolicyRevisionSelect): Promise<T[]> {
  const want = new Set(wanted.map((w) => key(w.policy, w.revisionId)));
  const ids = [...new Set(wanted.map((w) => w.revisionId))];
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    const rows = (await client.policyRevision.findMany({ where: { revisionId: { in: ids.slice(i, i + 500) } }, select })) as unknown as T[];
    for (const r of rows) if (want.has(key(r.policy.name, r.revisionId))) out.push(r);
  }
  return out;
}

/** Stored revisions by (policy, revision id), with a loader for what they include. */
export class IncludeGraph {
  private readonly known = new Map<string, RevisionIncludes>();
  /** (policy, revision) pairs looked for and not stored. */
  private readonly absent = new Set<string>();

  constructor(private readonly client: Tx) {}

  add(node: RevisionIncludes): RevisionIncludes {
    this.known.set(key(node.policy, node.revisionId), node);
    return node;
  }

  get lookup(): IncludesLookup {
    return (policy, revisionId) => this.known.get(key(policy, revisionId));
  }

  /** Loads, level by level, every stored revision that `from` name through their includes. */
  async loadNested(from: Iterable<RevisionIncludes>): Promise<void> {
    let level = [...from];
    for (let depth = 0; level.length && depth < MAX_INCLUDE_DEPTH; depth++) {
      const wanted = missingIncludes(level, (p, r) => this.known.has(key(p, r)) || this.absent.has(key(p, r)));
      if (!wanted.length) return;
      const rows = await revisionsByPolicyAndId<{ revisionId: string; includeDigest: string | null; policy: { name: string } }>(this.client, wanted, { revisionId: true, includeDigest: true, policy: { select: { name: true } } });
      level = rows.map((r) => this.add({ policy: r.policy.name, revisionId: r.revisionId, includes: parseIncludeDigest(r.includeDigest) }));
      const found = new Set(level.map((n) => key(n.policy, n.revisionId)));
      for (const w of wanted) if (!found.has(key(w.policy, w.revisionId))) this.absent.add(key(w.policy, w.revisionId));
    }
  }
}

/** A stage's current revisions with their includes (policy name → revision), loaded with what they include at any depth. */
export async function loadStageIncludes(client: Tx, groupId: string): Promise<{ stage: Map<string, RevisionIncludes & { pk: string; policyId: string }>; graph: IncludeGraph }> {
  const rows = await client.groupPolicy.findMany({
    where: { groupId },
    select: { policyId: true, revisionPk: true, policy: { select: { name: true } }, revision: { select: { revisionId: true, includeDigest: true } } },
  });
  const graph = new IncludeGraph(client);
  const stage = new Map<string, RevisionIncludes & { pk: string; policyId: string }>();
  for (const r of rows) {
    const node = { policy: r.policy.name, revisionId: r.revision.revisionId, includes: parseIncludeDigest(r.revision.includeDigest), pk: r.revisionPk, policyId: r.policyId };
    stage.set(node.policy, node);
    graph.add(node);
  }
  await graph.loadNested(stage.values());
  return { stage, graph };
}

/**
 * The board's badge: per "groupId|policyId", how many policies of that stage carry an older revision of the
 * policy than the one the stage runs (at any depth). Only cells with at least one are present.
 */
export async function olderDependentsByCell(
  client: Tx,
  pointers: { groupId: string; policyId: string; revisionPk: string }[],
  revisions: Map<string, { revisionId: string; includeDigest: string }>,
  policyNames: Map<string, string>,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const graph = new IncludeGraph(client);
  const byStage = new Map<string, Map<string, RevisionIncludes>>();
  let anyIncludes = false;
  for (const p of pointers) {
    const rev = revisions.get(p.revisionPk);
    const policy = policyNames.get(p.policyId);
    if (!rev || !policy) continue;
    const node = graph.add({ policy, revisionId: rev.revisionId, includes: parseIncludeDigest(rev.includeDigest) });
    if (node.includes.length) anyIncludes = true;
    (byStage.get(p.groupId) ?? byStage.set(p.groupId, new Map()).get(p.groupId)!).set(policy, node);
  }
  if (!anyIncludes) return out;
  await graph.loadNested([...byStage.values()].flatMap((m) => [...m.values()]));
  const idByName = new Map([...policyNames].map(([id, name]) => [name, id]));
  for (const [groupId, stage] of byStage) {
    for (const [policy, n] of olderDependentCounts(stage, graph.lookup)) out.set(`${groupId}|${idByName.get(policy)}`, n);
  }
  return out;
}
