/**
 * Issue 48: a policy and its rebuilt dependents promoted to the next stage together — one atomic multi-policy
 * promotion through the guard (lib/services/funnel/joint-move.ts): approvals sized by the combined change,
 * one promotion request covering every member on a protected stage, refused whole when one member is stale.
 * Members: the included policy itself (when the target runs another revision of it) and every dependent in the
 * source stage that carries the revision the source stage runs and differs in the target. Dependents still
 * carrying an older revision are left out and listed (rebuild them first).
 */
import { db, type Tx } from '@/lib/db/client';
import { assertCan, type Access } from '@/lib/auth/permissions';
import { stageDependents } from '@/lib/domain';
import { loadStageIncludes } from '@/lib/db/queries/include-graph';
import { badRequest } from '@/lib/errors';
import type { PromoteWithDependentsDto } from '@/lib/types/dependents';
import type { PromoteWithDependentsInput } from '@/lib/validation/dependents';
import {
  moveTogether,
  previewJointMove,
  type JointMember,
  requireGroup,
  emitEvent,
  type PromotionRequestDto,
  transaction,
} from '@/lib/services/funnel';
import { nextStage, requirePolicyNamed } from './list';

export type PromoteWithDependentsResult = PromoteWithDependentsDto & { request?: PromotionRequestDto | null };

const short = (r: string | null | undefined) => (r ? r.slice(0, 10) : 'nothing');

/** `POST /policy_groups/:group/policies/:name/promote-with-dependents`: promote on the target, view on the source. */
export async function promoteWithDependents(access: Access, input: PromoteWithDependentsInput): Promise<PromoteWithDependentsResult> {
  const work = async (tx: Tx): Promise<PromoteWithDependentsResult> => {
    const from = await requireGroup(tx, input.stage, access);
    const toName = input.to ?? (await nextStage(tx, access, from));
    if (!toName) throw badRequest(`'${from.name}' is the last stage you may view: say where to promote (to)`, [{ path: '/to', message: 'no next stage' }]);
    if (toName === from.name) throw badRequest('A stage cannot be promoted into itself', [{ path: '/to', message: 'to must differ from the stage' }]);
    const to = await requireGroup(tx, toName, access);
    if (!input.dryRun) assertCan(access, 'stage.promote', { stage: to.name });
    await requirePolicyNamed(tx, input.policy);
    const [{ stage, graph }, targetRows] = await Promise.all([
      loadStageIncludes(tx, from.id),
      tx.groupPolicy.findMany({ where: { groupId: to.id }, select: { policy: { select: { name: true } }, revision: { select: { revisionId: true } } } }),
    ]);
    const inTarget = new Map(targetRows.map((r) => [r.policy.name, r.revision.revisionId]));
    const included = stage.get(input.policy);
    if (!included) throw badRequest(`Stage '${from.name}' runs no revision of '${input.policy}'`, [{ path: '/policy', message: 'not in this stage' }]);
    const dependents = stageDependents(stage, input.policy, included.revisionId, graph.lookup);
    const byName = new Map(dependents.map((d) => [d.policy, d]));
    if (input.policies) {
      const errors = input.policies.flatMap((p, i) => (byName.has(p) ? [] : [{ path: `/policies/${i}`, message: `'${p}' does not include '${input.policy}' in '${from.name}'` }]));
      if (errors.length) throw badRequest(errors[0].message, errors);
    }
    const leftOut: PromoteWithDependentsDto['left_out'] = [];
    const members: JointMember[] = [];
    if (input.includePolicy !== false && inTarget.get(input.policy) !== included.revisionId) members.push({ policy: { id: included.policyId, name: input.policy }, to: { pk: included.pk, revisionId: included.revisionId }, role: 'included' });
    for (const d of dependents) {
      if (input.policies && !input.policies.includes(d.policy)) continue;
      if (!d.current) {
        leftOut.push({ policy: d.policy, reason: `it carries an older ${input.policy} (${d.carries.filter((c) => !c.current).map((c) => short(c.revision_id)).join(', ')}): rebuild it in ${from.name} first` });
        continue;
      }
      if (inTarget.get(d.policy) === d.revision_id) continue;
      const node = stage.get(d.policy)!;
      members.push({ policy: { id: node.policyId, name: d.policy }, to: { pk: node.pk, revisionId: node.revisionId }, role: 'dependent' });
    }
    const expectedNow = Object.fromEntries(members.map((m) => [m.policy.name, inTarget.get(m.policy.name) ?? null]));
    const guard = await previewJointMove(tx, access, to, members, 'promote');
    const result: PromoteWithDependentsResult = { from: from.name, to: to.name, policy: input.policy, dry_run: !!input.dryRun, guard, left_out: leftOut, expected: expectedNow, promoted: [] };
    if (input.dryRun) return result;
    if (!members.length) return result;
    const expected = input.expected;
    const missing = members.filter((m) => !expected || !(m.policy.name in expected));
    if (missing.length) throw badRequest(`expected.${missing[0].policy.name} is required: the revision you saw in '${to.name}' (null for none)`, missing.map((m) => ({ path: `/expected/${m.policy.name}`, message: `the revision you saw in '${to.name}' is required (null for none)` })));
    const moved = await moveTogether(tx, access, {
      group: to,
      members,
      kind: 'promote',
      expected: expected!,
      reason: input.reason,
      overrideReason: input.overrideReason,
      freezeOverrideReason: input.freezeOverrideReason,
      gateOverrideReason: input.gateOverrideReason,
      verdictOverrideReason: input.verdictOverrideReason,
      origin: { from_stage: from.name, together: { included: input.policy, revision_id: included.revisionId } },
      requestId: input.requestId,
    });
    result.request = moved.request;
    result.promoted = moved.moved.map((m) => ({ policy: m.policy, from_revision_id: m.fromRevisionId, to_revision_id: m.toRevisionId, changed: m.changed, audit_id: m.auditId }));
    if (moved.moved.length) {
      const names = moved.moved.map((m) => m.policy);
      await emitEvent(
        tx,
        'dependents.promoted',
        `${access.email} promoted ${input.policy} and its dependents from ${from.name} to ${to.name} together (${names.join(', ')})`,
        { from_stage: from.name, stage: to.name, policy: input.policy, revision_id: included.revisionId, promoted: result.promoted, left_out: leftOut, actor: access.email, reason: input.reason ?? null },
        { message: { title: `${input.policy} and its dependents promoted to ${to.name}`, facts: [['From', from.name], ['To', to.name], ['Promoted by', access.email]], changes: result.promoted.map((p) => `${p.policy} ${short(p.from_revision_id)} → ${short(p.to_revision_id)}`) } },
      );
    }
    return result;
  };
  return input.dryRun ? work(db()) : transaction(work, { timeout: 60_000 });
}
