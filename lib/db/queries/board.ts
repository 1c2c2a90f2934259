import type { Access } from '@/lib/auth/permissions';
import { can, viewableStages } from '@/lib/auth/permissions';
import type { BoardCell, BoardData } from '@/lib/types/board';
import { db } from '../client';
import { sortedBy } from '../order';
import { loadBoardGuards } from './board-guards';
import { olderDependentsByCell } from './include-graph';
import { moveEdges, stageRelation, type RelationMove, type RelationRevision } from '@/lib/domain';

export type { BoardCell, BoardData } from '@/lib/types/board';



/**
 * Everything the stage board shows, in a fixed number of SQL statements whatever the number of
 * policies, stages and nodes (no per-row queries, no relation selects: Prisma loads those with IN lists
 * split into chunks, one more statement per thousand rows).
 */
export async function loadBoard(access: Access): Promise<BoardData> {
  const client = db();
  const [allStages, policies, teamRows, pointers, nodeCounts] = await Promise.all([
    client.policyGroup.findMany({ orderBy: [{ position: 'asc' }, { name: 'asc' }], select: { id: true, name: true, description: true, position: true } }),
    client.policy.findMany({ orderBy: { name: 'asc' }, select: { id: true, name: true, ownerTeamId: true } }).then(sortedBy((p) => p.name)),
    client.team.findMany({ select: { id: true, name: true } }),
    client.groupPolicy.findMany({ select: { groupId: true, policyId: true, updatedAt: true, revisionPk: true } }),
    client.node.groupBy({ by: ['groupId', 'policyId', 'revisionApplied'], _count: { _all: true } }),
  ]);
  // Relations are loaded with IN lists that Prisma splits into chunks; joins keep the statement count fixed.
  const activeRevisions = await client.policyRevision.findMany({
    where: { groups: { some: {} } },
    select: { id: true, revisionId: true, computedRevisionId: true, cookbookDigest: true, includeDigest: true, createdAt: true, origin: true },
  });
  // Issue 42: ahead/behind from the pointers' history (and the locks' cookbook versions), not from storage times.
  const moves = await client.pointerHistory.findMany({ where: { fromRevisionId: { not: null }, toRevisionId: { not: null }, kind: { not: 'rollback' } }, select: { policyName: true, fromRevisionId: true, toRevisionId: true, kind: true } });
  // The newest revision per policy (one grouped query, then one lookup by the (policy, time) pairs).
  // Issue 29: an upload, not a revision the console derived from a stage's older lock (a single-cookbook promotion):
  // offering such an orphan as "the newest upload" would run an old lock again.
  const uploaded = { origin: { not: 'cookbook-promotion' } };
  const newest = await client.policyRevision.groupBy({ by: ['policyId'], where: uploaded, _max: { createdAt: true } });
  const newestRows = newest.length
    ? await client.policyRevision.findMany({
        where: { ...uploaded, OR: newest.map((n) => ({ policyId: n.policyId, createdAt: n._max.createdAt! })) },
        select: { policyId: true, revisionId: true, createdAt: true },
      })
    : [];
  const latestByPolicy = new Map(newestRows.map((r) => [r.policyId, r.revisionId]));
  const revisionByPk = new Map(activeRevisions.map((r) => [r.id, r]));
  const stages = viewableStages(access, allStages);
  const visibleIds = new Set(stages.map((s) => s.id));
  const visiblePointers = pointers.filter((p) => visibleIds.has(p.groupId)).map((p) => ({ ...p, revision: revisionByPk.get(p.revisionPk)! }));
  // Cookbook fingerprints come from each revision's digest (every row has one: the drop_cookbook_lock_runlist migration filled in the older ones).
  const cbByRev = new Map<string, Map<string, string>>();
  for (const r of activeRevisions) cbByRev.set(r.id, new Map(Object.entries(JSON.parse(r.cookbookDigest || '{}') as Record<string, string>)));
  const pointerAt = new Map(visiblePointers.map((p) => [`${p.groupId}|${p.policyId}`, p]));
  const movesByPolicy = new Map<string, RelationMove[]>();
  for (const m of moves) movesByPolicy.set(m.policyName, [...(movesByPolicy.get(m.policyName) ?? []), { from: m.fromRevisionId, to: m.toRevisionId, kind: m.kind }]);
  const relationOf = (policyName: string, later: (typeof activeRevisions)[number], earlier: (typeof activeRevisions)[number]) => {
    const asRelation = (r: (typeof activeRevisions)[number]): RelationRevision => ({
      revisionId: r.revisionId,
      versions: new Map([...(cbByRev.get(r.id) ?? new Map<string, string>())].map(([name, v]) => [name, v.split('|')[0]])),
      createdAt: r.createdAt,
      imported: r.origin === 'import',
    });
    return stageRelation(asRelation(later), asRelation(earlier), moveEdges(movesByPolicy.get(policyName) ?? []));
  };
  const nodesAt = new Map<string, { total: number; byRev: Map<string | null, number> }>();
  for (const n of nodeCounts) {
    const key = `${n.groupId}|${n.policyId}`;
    let e = nodesAt.get(key);
    if (!e) nodesAt.set(key, (e = { total: 0, byRev: new Map() }));
    e.total += n._count._all;
    e.byRev.set(n.revisionApplied, (e.byRev.get(n.revisionApplied) ?? 0) + n._count._all);
  }

  // Issue 48: per cell, how many of the stage's policies carry an older revision of this one (no statement without includes).
  const policyName = new Map(policies.map((p) => [p.id, p.name]));
  const olderDependents = await olderDependentsByCell(client, visiblePointers, revisionByPk, policyName);
  const teamName = new Map(teamRows.map((t) => [t.id, t.name]));
  const rows = policies.map((policy) => {
    const cells: Record<string, BoardCell | null> = {};
    let previous: (typeof visiblePointers)[number] | null = null;
    let previousStage: string | null = null;
    for (const stage of stages) {
      const p = pointerAt.get(`${stage.id}|${policy.id}`);
      if (!p) {
        cells[stage.name] = null;
        continue;
      }
      const n = nodesAt.get(`${stage.id}|${policy.id}`);
      cells[stage.name] = {
        revisionId: p.revision.revisionId,
        verified: p.revision.revisionId === p.revision.computedRevisionId,
        since: p.updatedAt.toISOString(),
        nodes: n?.total ?? 0,
        nodesOnRevision: n?.byRev.get(p.revision.revisionId) ?? 0,
        differsFromPrevious: previous ? previous.revisionPk !== p.revisionPk : null,
        comparedWith: previous ? previousStage : null,
        relation: previous && previous.revisionPk !== p.revisionPk ? relationOf(policy.name, p.revision, previous.revision) : null,
        cookbooksChanged: previous ? countCookbookChanges(cbByRev.get(previous.revisionPk), cbByRev.get(p.revisionPk)) : 0,
        ...(olderDependents.has(`${stage.id}|${policy.id}`) ? { olderDependents: olderDependents.get(`${stage.id}|${policy.id}`) } : {}),
      };
      previous = p;
      previousStage = stage.name;
    }
    return { name: policy.name, team: (policy.ownerTeamId && teamName.get(policy.ownerTeamId)) || null, latestRevisionId: latestByPolicy.get(policy.id) ?? null, cells };
  });

  const stageName = new Map(stages.map((s) => [s.id, s.name]));
  const runs = new Map(visiblePointers.map((p) => [`${stageName.get(p.groupId)}|${policyName.get(p.policyId)}`, p.revision.revisionId]));
  const guards = await loadBoardGuards(access, stages.map((s) => s.name), runs);
  return {
    guards,
    stages: stages.map((s) => ({ name: s.name, description: s.description, position: s.position, canPromote: can(access, 'stage.promote', { stage: s.name }), canManage: can(access, 'stage.manage', { stage: s.name }) })),
    policies: rows,
    teams: [...new Set(rows.map((r) => r.team).filter((t): t is string => !!t))].sort(),
    generatedAt: new Date().toISOString(),
  };
}

function countCookbookChanges(a = new Map<string, string>(), b = new Map<string, string>()): number {
  let n = 0;
  for (const [name, v] of a) if (b.get(name) !== v) n++;
  for (const name of b.keys()) if (!a.has(name)) n++;
  return n;
}
