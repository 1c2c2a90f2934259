/**
 * Issue 26, what the console's pages read of a rollout besides the health
 * counts (lib/services/runs/health.ts): every stage's gate and rollback rule for
 * Admin → Stages, and for the compare and history views, which cookbook
 * changes of a promotion its failures fall in, and what the stage's rules
 * announced and did (rollout.failed / rolled_back / converged, with evidence).
 */
import { db } from '@/lib/db/client';
import { can, viewableStages, type Access } from '@/lib/auth/permissions';
import { getStageRolloutRule, type StageRolloutRuleDto } from './health';
import { requireGroup } from '@/lib/services/funnel';

export interface AdminRolloutRuleRow extends StageRolloutRuleDto {
  canManage: boolean;
  /** Issue 47: an administrator may register and change the gate's outside checks (the service decides again on save). */
  canEditChecks: boolean;
}

/** The gate and rollback rule of every stage the viewer sees, in board order. */
export async function rolloutRulesForAdmin(access: Access): Promise<AdminRolloutRuleRow[]> {
  const groups = await db().policyGroup.findMany({ orderBy: [{ position: 'asc' }, { name: 'asc' }], select: { id: true, name: true, position: true } });
  const out: AdminRolloutRuleRow[] = [];
  for (const g of viewableStages(access, groups)) out.push({ ...(await getStageRolloutRule(access, g.name)), canManage: can(access, 'stage.manage', { stage: g.name }), canEditChecks: can(access, 'stage.manage', { stage: g.name }) && can(access, 'checks.manage') });
  return out;
}

export interface CookbookChange {
  cookbook: string;
  from: string | null;
  to: string | null;
}

export interface AttributedFailure {
  cookbook: string | null;
  resource: string | null;
  runs: number;
  nodes: number;
  /** The cookbook this failure raised in was changed (added, removed, other version or content) by the change. */
  inChange: boolean;
}

export interface ChangeAttribution {
  /** The pointer history row of the change. */
  changeId: string;
  at: string;
  kind: string;
  actor: string | null;
  fromRevisionId: string | null;
  toRevisionId: string;
  /** The cookbooks the change moved (by lock identifier). */
  changed: CookbookChange[];
  /** Failed runs on the new revision in the stage since the change, by cookbook and resource, most nodes first. */
  failures: AttributedFailure[];
  failedRuns: number;
  finishedRuns: number;
}

export interface RolloutOutcomeDto {
  /** The pointer history row of the change it is about. */
  changeId: string;
  at: string;
  event: string;
  revisionId: string;
  evidence: Record<string, unknown>;
}

type Locks = Record<string, { version?: string; identifier?: string }>;

function locksOf(document: string | null | undefined): Locks {
  if (!document) return {};
  try {
    return ((JSON.parse(document) as { cookbook_locks?: Locks }).cookbook_locks ?? {}) as Locks;
  } catch {
    return {};
  }
}

function cookbookChanges(from: Locks, to: Locks): CookbookChange[] {
  const names = [...new Set([...Object.keys(from), ...Object.keys(to)])].sort();
  const label = (l: Locks[string] | undefined) => (l ? `${l.version ?? '?'}${l.identifier ? ` (${l.identifier.slice(0, 8)})` : ''}` : null);
  return names.filter((n) => from[n]?.identifier !== to[n]?.identifier || from[n]?.version !== to[n]?.version).map((n) => ({ cookbook: n, from: label(from[n]), to: label(to[n]) }));
}

/** The moves that bring a new revision into a stage (the demo's seed moves count as its promotions). */
const PROMOTION_KINDS = ['set', 'promote', 'promote-cookbook', 'seed'];

/**
 * For the latest `limit` promotions (set, promote, promote-cookbook) of a
 * policy into a stage: the cookbooks each changed and the failures of the runs
 * on its new revision since then, each marked in or outside those cookbooks.
 * At most 3 + `limit` statements (history, revisions, failures, a count per change).
 */
export async function changeAttributions(access: Access, stage: string, policy: string, limit = 5): Promise<ChangeAttribution[]> {
  const client = db();
  const group = await requireGroup(client, stage, access);
  const changes = await client.pointerHistory.findMany({
    where: { groupName: group.name, policyName: policy, kind: { in: PROMOTION_KINDS }, toRevisionId: { not: null } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: Math.min(Math.max(limit, 1), 50),
  });
  if (!changes.length) return [];
  const revIds = [...new Set(changes.flatMap((c) => [c.fromRevisionId, c.toRevisionId]).filter((r): r is string => !!r))];
  const [revisions, failures, finished] = await Promise.all([
    client.policyRevision.findMany({ where: { policy: { name: policy }, revisionId: { in: revIds } }, select: { revisionId: true, document: true } }),
    client.runReport.findMany({
      where: { groupName: group.name, policyName: policy, status: 'failure', revisionId: { in: changes.map((c) => c.toRevisionId!) } },
      select: { revisionId: true, nodeName: true, failedCookbook: true, failedResource: true, endTime: true },
      orderBy: { endTime: 'desc' },
      take: 20_000,
    }),
    // Finished runs on each change's new revision since that change (chef-client's times have no fraction: from its second).
    Promise.all(
      changes.map((c) =>
        client.runReport.count({ where: { groupName: group.name, policyName: policy, status: { in: ['success', 'failure'] }, revisionId: c.toRevisionId!, endTime: { gte: new Date(Math.floor(c.createdAt.getTime() / 1000) * 1000) } } }),
      ),
    ),
  ]);
  const docs = new Map(revisions.map((r) => [r.revisionId, locksOf(r.document)]));
  return changes.map((c, i) => {
    const to = c.toRevisionId!;
    const changed = cookbookChanges(docs.get(c.fromRevisionId ?? '') ?? {}, docs.get(to) ?? {});
    const changedNames = new Set(changed.map((x) => x.cookbook));
    // Runs count from the second of the change (chef-client's times have no fraction).
    const since = Math.floor(c.createdAt.getTime() / 1000) * 1000;
    const groups = new Map<string, { f: AttributedFailure; nodes: Set<string> }>();
    let failedRuns = 0;
    for (const f of failures) {
      if (f.revisionId !== to || !f.endTime || f.endTime.getTime() < since) continue;
      failedRuns++;
      const key = JSON.stringify([f.failedCookbook, f.failedResource]);
      const g = groups.get(key) ?? { f: { cookbook: f.failedCookbook, resource: f.failedResource, runs: 0, nodes: 0, inChange: !!f.failedCookbook && changedNames.has(f.failedCookbook) }, nodes: new Set<string>() };
      g.f.runs++;
      g.nodes.add(f.nodeName);
      groups.set(key, g);
    }
    const finishedRuns = finished[i];
    return {
      changeId: c.id,
      at: c.createdAt.toISOString(),
      kind: c.kind,
      actor: c.actorEmail,
      fromRevisionId: c.fromRevisionId,
      toRevisionId: to,
      changed,
      failures: [...groups.values()].map((g) => ({ ...g.f, nodes: g.nodes.size })).sort((a, b) => b.nodes - a.nodes || b.runs - a.runs),
      failedRuns,
      finishedRuns,
    };
  });
}

/** What the stage's rollout rules announced and did for a policy (newest first): failed, rolled back (with the evidence), converged. */
export async function rolloutOutcomes(access: Access, stage: string, policy: string, limit = 20): Promise<RolloutOutcomeDto[]> {
  const client = db();
  const group = await requireGroup(client, stage, access);
  const rows = await client.rolloutOutcome.findMany({ where: { groupName: group.name, policyName: policy }, orderBy: { createdAt: 'desc' }, take: Math.min(Math.max(limit, 1), 100) });
  return rows.map((r) => {
    let evidence: Record<string, unknown> = {};
    try {
      evidence = JSON.parse(r.evidence) as Record<string, unknown>;
    } catch {
      /* kept as {} */
    }
    return { changeId: r.key.split(':')[0], at: r.createdAt.toISOString(), event: r.event, revisionId: r.revisionId, evidence };
  });
}
