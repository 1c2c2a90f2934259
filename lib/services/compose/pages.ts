import type { Access } from '@/lib/auth/permissions';
import { can, viewableStages } from '@/lib/auth/permissions';
import type { IncludeSource } from '@/lib/validation/compose';
import type { ComposeOptions } from '@/lib/types/compose';
import { db } from '../../db/client';
import { sortedBy } from '../../db/order';

/** What the Compose page offers: policies with their revisions (and saved compositions), stages, and what each stage runs. */
export async function composeOptions(access: Access): Promise<ComposeOptions> {
  const [policies, stages, pointers] = await Promise.all([
    db().policy.findMany({
      orderBy: { name: 'asc' },
      select: { name: true, ownerTeamId: true, revisions: { orderBy: { createdAt: 'desc' }, take: 30, select: { revisionId: true, createdAt: true, origin: true, originDetail: true } } },
    }).then(sortedBy((p) => p.name)),
    db().policyGroup.findMany({ orderBy: { position: 'asc' }, select: { name: true } }),
    db().groupPolicy.findMany({ select: { group: { select: { name: true } }, policy: { select: { name: true } }, revision: { select: { revisionId: true } } } }),
  ]);
  const active: Record<string, Record<string, string>> = {};
  // Only stages the reader may view: what another stage runs is not theirs to see (issue 17, item 5).
  for (const p of pointers) if (can(access, 'stage.view', { stage: p.group.name })) (active[p.policy.name] ??= {})[p.group.name] = p.revision.revisionId;
  return {
    canCreate: can(access, 'policy.create'),
    stages: viewableStages(access, stages).map((s) => ({ name: s.name, canPromote: can(access, 'stage.promote', { stage: s.name }) })),
    active,
    policies: policies.map((p) => ({
      name: p.name,
      canSave: can(access, 'policy.upload', { ownerTeamId: p.ownerTeamId }),
      revisions: p.revisions.map((r) => ({
        revisionId: r.revisionId,
        createdAt: r.createdAt.toISOString(),
        origin: r.origin,
        includes: r.origin === 'compose' && r.originDetail ? ((JSON.parse(r.originDetail) as { includes: { name: string; source: IncludeSource }[] }).includes ?? []).map(({ name, source }) => ({ name, source })) : null,
      })),
    })),
  };
}
