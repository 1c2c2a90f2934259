import { db } from '@/lib/db/client';
import { assertCan, type Access } from '@/lib/auth/permissions';
import { conflict, notFound } from '@/lib/errors';
import { audit, movePointer } from '@/lib/services/funnel';

/** DELETE /policies/:name — removes the policy from every stage (kept in history) and deletes its revisions. */
export async function deletePolicy(access: Access, name: string, requestId?: string) {
  return db().$transaction(async (tx) => {
    const policy = await tx.policy.findUnique({
      where: { name },
      select: {
        id: true,
        name: true,
        revisions: { select: { revisionId: true }, orderBy: { createdAt: 'asc' } },
        groups: { select: { group: { select: { id: true, name: true } }, revision: { select: { revisionId: true } } } },
      },
    });
    if (!policy) throw notFound(`Cannot load policy ${name}`);
    assertCan(access, 'policy.delete');
    for (const g of policy.groups) {
      const moved = await movePointer(tx, access, { group: g.group, policy, to: null, kind: 'remove', expectedRevisionId: g.revision.revisionId, reason: 'policy deleted', requestId });
      // Issue 15: a protected stage would only get a request; removing the policy there needs its approvals first (this transaction is rolled back).
      if (moved.request) throw conflict(`'${name}' runs in protected stage '${g.group.name}': deleting the policy would remove it from there without approval. Remove it from '${g.group.name}' through an approved request first.`);
    }
    await tx.policy.delete({ where: { id: policy.id } });
    const revisions = Object.fromEntries(policy.revisions.map((r) => [r.revisionId, {}]));
    await audit(tx, access, { action: 'policy.delete', targetType: 'policy', target: name, policyName: name, before: { revisions: Object.keys(revisions) }, requestId });
    return { revisions };
  });
}

/** DELETE /policies/:name/revisions/:rev — refused (409) while any stage runs it. Returns the document. */
export async function deleteRevision(access: Access, policyName: string, revisionId: string, requestId?: string) {
  return db().$transaction(async (tx) => {
    const rev = await tx.policyRevision.findFirst({
      where: { revisionId, policy: { name: policyName } },
      select: { id: true, document: true, policy: { select: { ownerTeamId: true } }, groups: { select: { group: { select: { name: true } } } } },
    });
    if (!rev) throw notFound(`Cannot load policy ${policyName} with revision_id ${revisionId}`);
    assertCan(access, 'revision.delete', { ownerTeamId: rev.policy.ownerTeamId });
    if (rev.groups.length) {
      const names = rev.groups.map((g) => g.group.name).join(', ');
      throw conflict(`Revision ${revisionId} of '${policyName}' is active in ${names}; point those stages elsewhere before deleting it.`);
    }
    await tx.policyRevision.delete({ where: { id: rev.id } });
    await audit(tx, access, { action: 'revision.delete', targetType: 'revision', target: `${policyName}@${revisionId}`, policyName, before: { revision_id: revisionId }, requestId });
    return { document: rev.document };
  });
}

/** Admin-only: deletes revisions active in no stage, keeping the newest `keepLatest` of each policy. */
export async function cleanupOrphans(access: Access, opts: { policy?: string; keepLatest?: number; dryRun?: boolean; requestId?: string }) {
  assertCan(access, 'orphans.cleanup');
  const keep = Math.max(0, opts.keepLatest ?? 0);
  return db().$transaction(async (tx) => {
    const policies = await tx.policy.findMany({
      where: opts.policy ? { name: opts.policy } : {},
      select: { name: true, revisions: { where: { groups: { none: {} } }, orderBy: { createdAt: 'desc' }, select: { id: true, revisionId: true } } },
    });
    if (opts.policy && policies.length === 0) throw notFound(`Cannot load policy ${opts.policy}`);
    const removed: Record<string, string[]> = {};
    for (const p of policies) {
      const doomed = p.revisions.slice(keep);
      if (!doomed.length) continue;
      removed[p.name] = doomed.map((r) => r.revisionId);
      if (!opts.dryRun) await tx.policyRevision.deleteMany({ where: { id: { in: doomed.map((r) => r.id) } } });
    }
    if (!opts.dryRun && Object.keys(removed).length) {
      await audit(tx, access, { action: 'revision.cleanup-orphans', targetType: 'revision', target: opts.policy ?? '*', before: removed, requestId: opts.requestId });
    }
    return { dry_run: !!opts.dryRun, removed };
  });
}
