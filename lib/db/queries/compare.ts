import type { Access } from '@/lib/auth/permissions';
import { assertViewable } from '@/lib/auth/permissions';
import { canonicalLockText, diffLocks, resourceTakeovers, type LockDiff, type PolicyLock, type ResourceTakeover } from '@/lib/domain';
import { CORE_CATALOG } from '@/lib/resource-catalog';
import { badRequest, notFound } from '@/lib/errors';
import type { CompareSide, Comparison } from '@/lib/types/compare';
import { db } from '../client';
import { lockPins, missingArtifacts } from './missing-artifacts';
import { policyNames, viewableStageNames } from './policies';

export type { CompareSide, Comparison } from '@/lib/types/compare';


/** The Chef version takeover warnings assume (the current major). */
const CHEF_VERSION_FOR_WARNINGS = '18.4.2';


/** `staging` (a stage) or `rev:<revision_id>`. */
export async function resolveSide(access: Access, policy: string, spec: string): Promise<CompareSide> {
  if (!spec) throw badRequest('Both sides are required: from and to', [{ path: '/from', message: 'from and to are required' }]);
  const client = db();
  if (spec.startsWith('rev:')) {
    const revisionId = spec.slice(4);
    const rev = await client.policyRevision.findFirst({
      where: { revisionId, policy: { name: policy } },
      select: { revisionId: true, computedRevisionId: true, createdAt: true, document: true },
    });
    if (!rev) throw notFound(`Policy '${policy}' has no revision '${revisionId}'`);
    return { spec, label: `revision ${revisionId.slice(0, 10)}`, stage: null, revisionId, verified: rev.computedRevisionId === revisionId, createdAt: rev.createdAt.toISOString(), lock: JSON.parse(rev.document) };
  }
  // Permission first: a missing stage and an unviewable one answer alike (404, issue 44).
  assertViewable(access, spec, `There is no stage '${spec}'`);
  const group = await client.policyGroup.findUnique({ where: { name: spec }, select: { id: true } });
  if (!group) throw notFound(`There is no stage '${spec}'`);
  const row = await client.groupPolicy.findFirst({
    where: { groupId: group.id, policy: { name: policy } },
    select: { revision: { select: { revisionId: true, computedRevisionId: true, createdAt: true, document: true } } },
  });
  if (!row) throw notFound(`Stage '${spec}' has no revision of policy '${policy}'`);
  const r = row.revision;
  return { spec, label: spec, stage: spec, revisionId: r.revisionId, verified: r.computedRevisionId === r.revisionId, createdAt: r.createdAt.toISOString(), lock: JSON.parse(r.document) };
}


export async function compare(access: Access, policy: string, fromSpec: string, toSpec: string): Promise<Comparison> {
  const exists = await db().policy.findUnique({ where: { name: policy }, select: { id: true } });
  if (!exists) throw notFound(`There is no policy '${policy}'`);
  const [from, to] = await Promise.all([resolveSide(access, policy, fromSpec), resolveSide(access, policy, toSpec)]);
  const { lock: fromLock, ...fromMeta } = from;
  const { lock: toLock, ...toMeta } = to;
  const diff = diffLocks(toLock, fromLock);
  const missing = await missingArtifacts(lockPins(fromLock as PolicyLock));
  const target = to.stage ? await db().policyGroup.findUnique({ where: { name: to.stage }, select: { requireArtifacts: true } }) : null;
  return {
    missingArtifacts: missing,
    toRequiresArtifacts: !!target?.requireArtifacts,
    policy,
    from: fromMeta,
    to: toMeta,
    diff,
    takeovers: resourceTakeovers(diff, fromLock, CORE_CATALOG, CHEF_VERSION_FOR_WARNINGS),
    currentText: canonicalLockText(toLock),
    incomingText: canonicalLockText(fromLock),
  };
}

/** What the compare picker offers: policies, the stages the reader may view (issue 17, item 5) and a policy's revisions. */
export async function comparePickerOptions(access: Access, policy?: string) {
  const [policies, stages, revisions] = await Promise.all([
    policyNames(),
    viewableStageNames(access),
    policy
      ? db().policyRevision.findMany({ where: { policy: { name: policy } }, orderBy: { createdAt: 'desc' }, select: { revisionId: true, createdAt: true } })
      : Promise.resolve([]),
  ]);
  return {
    policies,
    stages,
    revisions: revisions.map((r) => ({ revisionId: r.revisionId, createdAt: r.createdAt.toISOString() })),
  };
}
