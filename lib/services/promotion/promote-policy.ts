import { db, type Tx } from '@/lib/db/client';
import { assertCan, type Access } from '@/lib/auth/permissions';
import { badRequest, isAppError, notFound } from '@/lib/errors';
import { gateChecksOf, refreshChecks, requireGroup, requirePolicy, movePointer, type PromotionRequestDto } from '@/lib/services/funnel';
import type { PromotePolicyInput } from '@/lib/validation/promotion';
import { countPromotions } from '@/lib/ops/metrics';

/** The input's one definition (parsed at the caller's edge: the action, the API contract); the rules below need the database. */
export { ZPromotePolicyInput } from '@/lib/validation/promotion';
export type { PromotePolicyInput } from '@/lib/validation/promotion';

export interface PromotePolicyResult {
  policy: string;
  from: string;
  to: string;
  fromRevisionId: string | null;
  toRevisionId: string;
  changed: boolean;
  auditId: string | null;
  /** Issue 15: `to` is protected and the change needs approvals: this request was opened, nothing moved (HTTP 202). */
  request?: PromotionRequestDto;
}

/** What a whole-policy promotion moves: the revision `from` runs, or `rev:<id>` (a fresh upload). 404 when there is none. */
export async function promotionSource(tx: Tx, access: Access, policy: { id: string; name: string }, from: string): Promise<{ source: { revisionPk: string; revision: { revisionId: string } }; fromName: string }> {
  const fromRevision = from.startsWith('rev:') ? from.slice(4) : null;
  if (fromRevision) {
    const rev = await tx.policyRevision.findUnique({ where: { policyId_revisionId: { policyId: policy.id, revisionId: fromRevision } }, select: { id: true, revisionId: true } });
    if (!rev) throw notFound(`Policy '${policy.name}' has no revision '${fromRevision}'`);
    return { source: { revisionPk: rev.id, revision: { revisionId: rev.revisionId } }, fromName: from };
  }
  const group = await requireGroup(tx, from, access);
  assertCan(access, 'stage.view', { stage: group.name });
  const source = await tx.groupPolicy.findUnique({
    where: { groupId_policyId: { groupId: group.id, policyId: policy.id } },
    select: { revisionPk: true, revision: { select: { revisionId: true } } },
  });
  if (!source) throw notFound(`Stage '${group.name}' has no revision of '${policy.name}' to promote`);
  return { source, fromName: group.name };
}

/**
 * Issue 47: evaluates the outside checks of the gate into `stage` for the revision `from` runs, now and outside
 * any transaction (the guard reads the evaluations). Nothing when the stage has no checks; a lookup that fails
 * is left for the move itself to report.
 */
export async function refreshGateChecks(access: Access, stage: string, policyName: string, from: string): Promise<void> {
  if (!(await gateChecksOf(db(), stage)).length) return;
  try {
    const policy = await requirePolicy(db(), policyName);
    const { source } = await promotionSource(db(), access, policy, from);
    await refreshChecks(stage, policy.name, source.revision.revisionId);
  } catch (e) {
    if (!isAppError(e)) throw e;
  }
}

/** Points stage `to` at the revision active in `from` (no new document). 409 when `to` moved since the user looked. */
export async function promotePolicy(access: Access, input: PromotePolicyInput): Promise<PromotePolicyResult> {
  if (input.from === input.to) throw badRequest('A stage cannot be promoted into itself', [{ path: '/to', message: 'to must differ from from' }]);
  await refreshGateChecks(access, input.to, input.policy, input.from);
  const result = await db().$transaction(async (tx) => {
    const [to, policy] = await Promise.all([requireGroup(tx, input.to, access), requirePolicy(tx, input.policy)]);
    assertCan(access, 'stage.promote', { stage: to.name });
    const { source, fromName } = await promotionSource(tx, access, policy, input.from);
    const moved = await movePointer(tx, access, {
      group: to,
      policy,
      to: { pk: source.revisionPk, revisionId: source.revision.revisionId },
      kind: 'promote',
      reason: input.reason,
      overrideReason: input.overrideReason,
      freezeOverrideReason: input.freezeOverrideReason,
      gateOverrideReason: input.gateOverrideReason,
      verdictOverrideReason: input.verdictOverrideReason,
      expectedRevisionId: input.expectedRevisionId,
      requestId: input.requestId,
      origin: { from_stage: fromName },
    });
    return {
      policy: policy.name,
      from: fromName,
      to: to.name,
      fromRevisionId: moved.fromRevisionId,
      toRevisionId: source.revision.revisionId,
      changed: moved.changed,
      auditId: moved.auditId,
      ...(moved.request ? { request: moved.request } : {}),
    };
  });
  if (result.changed) countPromotions('policy');
  return result;
}
