import { assertCan, type Access } from '@/lib/auth/permissions';
import { diffLocks, parseLossless, promoteCookbookLock, serializeJson, type PolicyLock } from '@/lib/domain';
import { AppError, badRequest, notFound } from '@/lib/errors';
import {
  audit,
  requireGroup,
  requirePolicy,
  assertExpected,
  movePointer,
  checkRevision,
  storeRevision,
  transaction,
  guardPreview,
} from '@/lib/services/funnel';
import type { PromoteCookbookInput } from '@/lib/validation/promotion';
import { countPromotions } from '@/lib/ops/metrics';

/** The input's one definition (parsed at the caller's edge: the action, the API contract); the rules below need the database. */
export { ZPromoteCookbookInput } from '@/lib/validation/promotion';
export type { PromoteCookbookInput } from '@/lib/validation/promotion';

/**
 * Builds a new lock — `to`'s active lock with one cookbook taken from `from` —
 * checks every dependency constraint, stores it as a derived revision with its
 * origin, and points `to` at it. Needs `promote` on `to` (the revision is
 * derived, not authored, so policy ownership is not required).
 */
export async function promoteCookbook(access: Access, input: PromoteCookbookInput) {
  if (input.from === input.to) throw badRequest('A stage cannot be promoted into itself', [{ path: '/to', message: 'to must differ from from' }]);
  // Two identical cookbook promotions derive the same revision: the loser of that unique key runs again
  // and gets the clear 409 of a stage that moved (transaction()).
  const out = await transaction(async (tx) => {
    const [from, to, policy] = await Promise.all([requireGroup(tx, input.from, access), requireGroup(tx, input.to, access), requirePolicy(tx, input.policy)]);
    assertCan(access, 'stage.promote', { stage: to.name });
    assertCan(access, 'stage.view', { stage: from.name });
    const [source, target] = await Promise.all(
      [from, to].map((g) =>
        tx.groupPolicy.findUnique({
          where: { groupId_policyId: { groupId: g.id, policyId: policy.id } },
          select: { revision: { select: { revisionId: true, document: true } } },
        }),
      ),
    );
    if (!source) throw notFound(`Stage '${from.name}' has no revision of '${policy.name}'`);
    if (!target) throw notFound(`Stage '${to.name}' has no revision of '${policy.name}' to promote a single cookbook into; promote the whole policy instead`);
    const current = target.revision.revisionId;
    // Checked before building anything, so a stale dialog never produces a lock.
    assertExpected(to.name, policy.name, current, input.expectedRevisionId);
    // Lossless: number lexemes (1.0e+15, -0.0, 31-digit integers) and key order survive into the derived lock and its id.
    const targetLock = parseLossless(target.revision.document) as PolicyLock;
    const result = promoteCookbookLock(targetLock, parseLossless(source.revision.document) as PolicyLock, input.cookbook);
    if (!result.ok) {
      throw new AppError(
        'unprocessable',
        result.message,
        result.unmet.map((u) => ({ path: `/cookbook_locks/${u.cookbook}`, message: u.message })),
        { kind: 'dependencies', unmet: result.unmet },
      );
    }
    const summary = {
      cookbook: input.cookbook,
      before: result.before ? { version: result.before.version, identifier: result.before.identifier } : null,
      after: { version: result.after.version, identifier: result.after.identifier },
    };
    if (result.noop) return { ...summary, noop: true, dryRun: !!input.dryRun, revisionId: current, baseRevisionId: current, auditId: null };
    const text = serializeJson(result.lock, 2) + '\n';
    // The derived lock meets the validator every stored revision meets (the dry run too: it never approves what saving would refuse).
    const revision = checkRevision(text, policy.name, { code: 'unprocessable', what: 'The derived lock' });
    // The preview shows exactly what the derived revision changes in `to` (not the whole policy's diff).
    if (input.dryRun) {
      // Issue 29: and what the guard would do with it (the same judgement movePointer enforces).
      const existing = await tx.policyRevision.findUnique({ where: { policyId_revisionId: { policyId: policy.id, revisionId: revision.lock.revision_id } }, select: { id: true } });
      const guard = await guardPreview(tx, access, {
        group: to,
        policy,
        to: { pk: existing?.id ?? '', revisionId: revision.lock.revision_id },
        toDocument: revision.lock,
        kind: 'promote-cookbook',
        gateSubject: { revisionId: source.revision.revisionId },
      });
      return { ...summary, noop: false, dryRun: true, revisionId: result.lock.revision_id, baseRevisionId: current, auditId: null, diff: diffLocks(JSON.parse(target.revision.document) as PolicyLock, revision.lock), guard };
    }

    const origin = { cookbook: input.cookbook, fromStage: from.name, fromRevisionId: source.revision.revisionId, baseRevisionId: current, version: result.after.version };
    const stored = await storeRevision(tx, access, policy, revision, 'cookbook-promotion', origin);
    if (stored.created) {
      await audit(tx, access, {
        action: 'revision.derive',
        targetType: 'revision',
        target: `${policy.name}@${stored.revisionId}`,
        policyName: policy.name,
        groupName: to.name,
        before: { revision_id: current },
        after: { revision_id: stored.revisionId, ...origin },
        reason: input.reason,
        requestId: input.requestId,
      });
    }
    const moved = await movePointer(tx, access, {
      group: to,
      policy,
      to: { pk: stored.id, revisionId: stored.revisionId },
      kind: 'promote-cookbook',
      reason: input.reason,
      overrideReason: input.overrideReason,
      freezeOverrideReason: input.freezeOverrideReason,
      gateOverrideReason: input.gateOverrideReason,
      verdictOverrideReason: input.verdictOverrideReason,
      gateSubject: { revisionId: source.revision.revisionId },
      expectedRevisionId: input.expectedRevisionId,
      requestId: input.requestId,
      origin: { from_stage: from.name, cookbook: input.cookbook, version: result.after.version },
    });
    return { ...summary, noop: false, dryRun: false, revisionId: stored.revisionId, baseRevisionId: current, auditId: moved.auditId, ...(moved.request ? { request: moved.request } : {}) };
  });
  if (out.auditId) countPromotions('cookbook');
  return out;
}
