import type { Access } from '@/lib/auth/permissions';
import { can } from '@/lib/auth/permissions';
import { db } from '../../db/client';
import { sortedBy } from '../../db/order';

/** The Policies page: every policy with its owner, revision count and the viewable stages running it. */
export async function listPoliciesForPage(access: Access) {
  const [policies, stages] = await Promise.all([
    db().policy.findMany({
      orderBy: { name: 'asc' },
      select: {
        name: true,
        ownerTeamId: true,
        ownerTeam: { select: { name: true } },
        _count: { select: { revisions: true } },
        groups: { select: { group: { select: { name: true, position: true } } } },
        revisions: { orderBy: { createdAt: 'desc' }, take: 1, select: { createdAt: true } },
      },
    }).then(sortedBy((p) => p.name)),
    db().policyGroup.findMany({ orderBy: { position: 'asc' }, select: { name: true } }),
  ]);
  const order = new Map(stages.map((s, i) => [s.name, i]));
  return policies.map((p) => ({
    name: p.name,
    team: p.ownerTeam?.name ?? null,
    canUpload: can(access, 'policy.upload', { ownerTeamId: p.ownerTeamId }),
    revisions: p._count.revisions,
    lastRevisionAt: p.revisions[0]?.createdAt.toISOString() ?? null,
    stages: p.groups
      .map((g) => g.group.name)
      .filter((s) => can(access, 'stage.view', { stage: s }))
      .sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0)),
  }));
}

/** One policy with its revisions, newest first. */
export async function policyDetail(access: Access, name: string) {
  const policy = await db().policy.findUnique({
    where: { name },
    select: {
      name: true,
      ownerTeamId: true,
      ownerTeam: { select: { name: true } },
      revisions: {
        orderBy: { createdAt: 'desc' },
        select: {
          revisionId: true,
          computedRevisionId: true,
          createdAt: true,
          createdByEmail: true,
          origin: true,
          originDetail: true,
          cookbookCount: true,
          groups: { select: { group: { select: { name: true, position: true } } } },
        },
      },
    },
  });
  if (!policy) return null;
  return {
    name: policy.name,
    team: policy.ownerTeam?.name ?? null,
    canUpload: can(access, 'policy.upload', { ownerTeamId: policy.ownerTeamId }),
    revisions: policy.revisions.map((r) => ({
      revisionId: r.revisionId,
      verified: r.revisionId === r.computedRevisionId,
      computedRevisionId: r.computedRevisionId,
      createdAt: r.createdAt.toISOString(),
      createdBy: r.createdByEmail,
      origin: r.origin,
      originDetail: r.originDetail ? (JSON.parse(r.originDetail) as Record<string, unknown>) : null,
      cookbookCount: r.cookbookCount,
      stages: r.groups
        .map((g) => g.group)
        .filter((g) => can(access, 'stage.view', { stage: g.name }))
        .sort((a, b) => a.position - b.position)
        .map((g) => g.name),
    })),
  };
}

/** One revision: the stored document and its metadata. */
export async function revisionDetail(access: Access, policy: string, revisionId: string) {
  const rev = await db().policyRevision.findFirst({
    where: { revisionId, policy: { name: policy } },
    select: {
      revisionId: true,
      computedRevisionId: true,
      document: true,
      createdAt: true,
      createdByEmail: true,
      origin: true,
      originDetail: true,
      groups: { select: { group: { select: { name: true, position: true } } } },
    },
  });
  if (!rev) return null;
  return {
    revisionId: rev.revisionId,
    computedRevisionId: rev.computedRevisionId,
    verified: rev.revisionId === rev.computedRevisionId,
    document: rev.document,
    createdAt: rev.createdAt.toISOString(),
    createdBy: rev.createdByEmail,
    origin: rev.origin,
    originDetail: rev.originDetail ? (JSON.parse(rev.originDetail) as Record<string, unknown>) : null,
    stages: rev.groups
      .map((g) => g.group)
      .filter((g) => can(access, 'stage.view', { stage: g.name }))
      .sort((a, b) => a.position - b.position)
      .map((g) => g.name),
  };
}
