import { db } from '@/lib/db/client';
import { assertCan, type Access } from '@/lib/auth/permissions';
import { badRequest } from '@/lib/errors';
import { requireGroup, movePointer, type PromotionRequestDto } from '@/lib/services/funnel';
import type { PromotePoliciesInput } from '@/lib/validation/promotion';
import { countPromotions } from '@/lib/ops/metrics';

/** The input's one definition (parsed at the caller's edge: the action, the API contract); the rules below need the database. */
export { ZPromotePoliciesInput } from '@/lib/validation/promotion';
export type { PromotePoliciesInput } from '@/lib/validation/promotion';

/**
 * Promotes several policies from one stage to another, all or nothing, in one
 * transaction (the RFC's `POST /policy_groups/:g/promote`). `'all'` means every
 * policy of `from` whose revision differs from `to`'s. Pointers move in one
 * fixed order (by policy name), whatever order the request lists them in:
 * two bulk promotions of the same policies in different orders would
 * otherwise lock rows in different orders and deadlock on PostgreSQL.
 */
export async function promotePolicies(access: Access, input: PromotePoliciesInput) {
  if (input.from === input.to) throw badRequest('A stage cannot be promoted into itself', [{ path: '/to', message: 'to must differ from from' }]);
  const result = await db().$transaction(async (tx) => {
    const [from, to] = await Promise.all([requireGroup(tx, input.from, access), requireGroup(tx, input.to, access)]);
    assertCan(access, 'stage.promote', { stage: to.name });
    assertCan(access, 'stage.view', { stage: from.name });
    const [sourceRows, targetRows] = await Promise.all(
      [from, to].map((g) =>
        tx.groupPolicy.findMany({ where: { groupId: g.id }, select: { revisionPk: true, policy: { select: { id: true, name: true } }, revision: { select: { revisionId: true } } } }),
      ),
    );
    const source = new Map(sourceRows.map((r) => [r.policy.name, r]));
    const target = new Map(targetRows.map((r) => [r.policy.name, r.revision.revisionId]));
    const names = input.policies === 'all' ? [...source.keys()].filter((p) => target.get(p) !== source.get(p)!.revision.revisionId).sort() : [...new Set(input.policies)];
    const errors = [];
    for (const [i, p] of names.entries()) {
      if (!source.has(p)) errors.push({ path: `/policies/${i}`, message: `Stage '${from.name}' has no revision of '${p}'` });
      if (!(p in input.expected)) errors.push({ path: `/expected/${p}`, message: `expected.${p} is required: the revision you saw in '${to.name}' (null for none)` });
    }
    if (errors.length) throw badRequest(errors[0].message, errors);
    const results: { policy: string; fromRevisionId: string | null; toRevisionId: string | null; changed: boolean; auditId: string | null; request?: PromotionRequestDto }[] = [];
    // Code-unit order: the same on every instance and database, whatever their collation (no deadlock between concurrent bulk promotions).
    const order = [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const p of order) {
      const s = source.get(p)!;
      const moved = await movePointer(tx, access, {
        group: to,
        policy: s.policy,
        to: { pk: s.revisionPk, revisionId: s.revision.revisionId },
        kind: 'promote',
        reason: input.reason,
        overrideReason: input.overrideReason,
        freezeOverrideReason: input.freezeOverrideReason,
      gateOverrideReason: input.gateOverrideReason,
      verdictOverrideReason: input.verdictOverrideReason,
        expectedRevisionId: input.expected[p],
        requestId: input.requestId,
        origin: { from_stage: from.name, bulk: true },
      });
      results.push({ policy: p, fromRevisionId: moved.fromRevisionId, toRevisionId: moved.toRevisionId, changed: moved.changed, auditId: moved.auditId, ...(moved.request ? { request: moved.request } : {}) });
    }
    // Answered in the order asked.
    const rank = new Map(names.map((n, i) => [n, i]));
    results.sort((a, b) => rank.get(a.policy)! - rank.get(b.policy)!);
    // Issue 15: policies whose change needs approvals got a request each instead of moving (HTTP 202 when any did).
    const requests = results.flatMap((r) => (r.request ? [r.request] : []));
    return { from: from.name, to: to.name, promoted: results, requests };
  });
  countPromotions('bulk', result.promoted.filter((r) => r.changed).length);
  return result;
}
