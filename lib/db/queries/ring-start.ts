/** Issue 30: what the "Start a ringed rollout" form offers: the stages the viewer may change, and each policy's recent revisions with where they run. */
import { can, type Access } from '@/lib/auth/permissions';
import { db } from '../client';
import type { RingStartChoices } from '@/lib/types/rings';

export type { RingStartChoices } from '@/lib/types/rings';

export async function ringStartChoices(access: Access): Promise<RingStartChoices> {
  const client = db();
  const [groups, policies, pointers, revisions] = await Promise.all([
    client.policyGroup.findMany({ select: { name: true }, orderBy: [{ position: 'asc' }, { name: 'asc' }] }),
    client.policy.findMany({ select: { id: true, name: true }, orderBy: { name: 'asc' } }),
    client.groupPolicy.findMany({ select: { policyId: true, group: { select: { name: true } }, revision: { select: { revisionId: true } } } }),
    // Newest revisions of every policy; trimmed to 20 per policy below (one statement whatever the number of policies).
    client.policyRevision.findMany({ select: { policyId: true, revisionId: true, createdAt: true, origin: true, createdByEmail: true }, orderBy: [{ createdAt: 'desc' }, { revisionId: 'asc' }], take: 5000 }),
  ]);
  const visible = groups.filter((g) => can(access, 'stage.view', { stage: g.name })).map((g) => g.name);
  const seen = new Set(visible);
  return {
    stages: groups.filter((g) => can(access, 'stage.promote', { stage: g.name })).map((g) => ({ name: g.name })),
    policies: policies.map((p) => ({
      name: p.name,
      runs: Object.fromEntries(pointers.filter((x) => x.policyId === p.id && seen.has(x.group.name)).map((x) => [x.group.name, x.revision.revisionId])),
      revisions: revisions
        .filter((r) => r.policyId === p.id)
        .slice(0, 20)
        .map((r) => ({ id: r.revisionId, created_at: r.createdAt.toISOString(), origin: r.origin, created_by: r.createdByEmail })),
    })),
  };
}
