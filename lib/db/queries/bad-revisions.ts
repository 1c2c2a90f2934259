import type { Access } from '@/lib/auth/permissions';
import { can } from '@/lib/auth/permissions';
import { db } from '../client';

export interface BadMark {
  reason: string;
  by: string;
  at: string;
}

/** Every revision of a policy marked bad, by revision id (for the history, compare and policy pages). */
export async function badRevisionsOf(policy: string): Promise<Record<string, BadMark>> {
  const rows = await db().badRevision.findMany({ where: { policyName: policy }, select: { revisionId: true, reason: true, markedByEmail: true, createdAt: true } });
  return Object.fromEntries(rows.map((r) => [r.revisionId, { reason: r.reason, by: r.markedByEmail, at: r.createdAt.toISOString() }]));
}

/**
 * The mark on one revision and whether the viewer may set or clear it: the
 * owner team, or promote on some stage running the revision (the service
 * checks the same again).
 */
export async function badRevisionState(access: Access, policy: string, revisionId: string): Promise<{ mark: BadMark | null; canMark: boolean }> {
  const rev = await db().policyRevision.findFirst({
    where: { revisionId, policy: { name: policy } },
    select: { policy: { select: { ownerTeamId: true } }, groups: { select: { group: { select: { name: true } } } } },
  });
  if (!rev) return { mark: null, canMark: false };
  const [marks] = await Promise.all([badRevisionsOf(policy)]);
  const owner = rev.policy.ownerTeamId;
  const canMark = access.isAdmin || (!!owner && access.teamIds.has(owner)) || rev.groups.some((g) => can(access, 'stage.promote', { stage: g.group.name }));
  return { mark: marks[revisionId] ?? null, canMark };
}
