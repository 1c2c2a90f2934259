/**
 * Issue 48: the dependents of a policy in a stage — every policy whose current revision there includes it
 * through `included_policy_locks`, at any depth — with the revision each carries, whether it is the one the
 * stage runs, and the source it was included from.
 */
import { db, type Tx } from '@/lib/db/client';
import { can, type Access } from '@/lib/auth/permissions';
import { stageDependents } from '@/lib/domain';
import { loadStageIncludes } from '@/lib/db/queries/include-graph';
import { notFound } from '@/lib/errors';
import type { DependentsDto } from '@/lib/types/dependents';
import { requireGroup } from '@/lib/services/funnel';

/** The next stage in promotion order after `group` that the reader may view (null: none). */
export async function nextStage(client: Tx, access: Access, group: { name: string; position: number }): Promise<string | null> {
  const later = await client.policyGroup.findMany({ where: { position: { gt: group.position } }, orderBy: [{ position: 'asc' }, { name: 'asc' }], select: { name: true } });
  return later.find((g) => can(access, 'stage.view', { stage: g.name }))?.name ?? null;
}

export async function requirePolicyNamed(client: Tx, name: string) {
  const policy = await client.policy.findUnique({ where: { name }, select: { id: true, name: true, ownerTeamId: true } });
  if (!policy) throw notFound(`Cannot find policy '${name}'`);
  return policy;
}

/** `GET /policy_groups/:group/policies/:name/dependents` (view on the stage). */
export async function listDependents(access: Access, input: { stage: string; policy: string }): Promise<DependentsDto> {
  const client = db();
  const group = await requireGroup(client, input.stage, access);
  await requirePolicyNamed(client, input.policy);
  const { stage, graph } = await loadStageIncludes(client, group.id);
  const runs = stage.get(input.policy)?.revisionId ?? null;
  const dependents = stageDependents(stage, input.policy, runs, graph.lookup);
  return {
    stage: group.name,
    policy: input.policy,
    revision_id: runs,
    dependents: dependents.map((d) => ({ policy: d.policy, revision_id: d.revision_id, depth: d.depth, current: d.current, carries: d.carries })),
    older: dependents.filter((d) => !d.current).length,
    next_stage: await nextStage(client, access, group),
  };
}
