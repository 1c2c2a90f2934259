/**
 * Issue 29: the guard's dry run. Reads what the stage runs, asks judgeMove
 * (the function movePointer enforces) and says what a confirm would do, for
 * this user, without writing anything.
 */
import type { Tx } from '@/lib/db/client';
import { can, type Access } from '@/lib/auth/permissions';
import { diffLocks, type PolicyLock } from '@/lib/domain';
import type { MovePreviewDto } from '@/lib/types/move-preview';
import { dateTime } from '@/lib/format';
import { gateOpensWords } from '@/lib/domain/rollout';
import { verdictLine } from '@/lib/types/verdicts';
import { mayOverrideGuards } from './guard';
import { judgeMove, type PointerKind } from './move-judge';

const plural = (n: number) => `${n} approval${n === 1 ? '' : 's'}`;
const emptyLock = (name: string): PolicyLock => ({ name, revision_id: '', run_list: [], cookbook_locks: {}, default_attributes: {}, override_attributes: {} });

export interface GuardPreviewInput {
  group: { id: string; name: string };
  policy: { id: string; name: string };
  /** The revision the move would point at (null: remove); `pk` '' with `toDocument` for a lock not stored yet. */
  to: { pk: string; revisionId: string } | null;
  toDocument?: PolicyLock;
  kind: PointerKind;
  gateSubject?: { revisionId: string };
  now?: Date;
}

/** What movePointer would do with this move now, for `access` (nothing is written). */
export async function guardPreview(tx: Tx, access: Access, input: GuardPreviewInput): Promise<MovePreviewDto> {
  const { group, policy, to } = input;
  const now = input.now ?? new Date();
  const current = await tx.groupPolicy.findUnique({
    where: { groupId_policyId: { groupId: group.id, policyId: policy.id } },
    select: { revisionPk: true, revision: { select: { revisionId: true, document: true } } },
  });
  const fromRevisionId = current?.revision.revisionId ?? null;
  const toRevisionId = to?.revisionId ?? null;
  const base: MovePreviewDto = {
    stage: group.name,
    policy: policy.name,
    from_revision_id: fromRevisionId,
    to_revision_id: toRevisionId,
    outcome: 'unchanged',
    action: 'Nothing to move',
    summary: `${group.name} already runs this revision of ${policy.name}: nothing would change.`,
    blocked_by: [],
    needs: [],
    protected: false,
    approvals_required: 0,
    reasons: [],
    freeze: null,
    bad_revision: null,
    gate: null,
    missing_artifacts: [],
    verdicts: { here: [], elsewhere: [], may_override: false },
    downgrades: [],
    removed_cookbooks: [],
    attribute_changes: [],
  };
  if (fromRevisionId === toRevisionId) return base;
  const judged = await judgeMove(tx, {
    group,
    policy,
    current: current ? { revisionId: current.revision.revisionId, pk: current.revisionPk } : null,
    to,
    toDocument: input.toDocument,
    kind: input.kind,
    gateSubject: input.gateSubject,
    now,
  });
  // What changes against what the stage runs now (downgrades, reverted attributes).
  let toLock: PolicyLock | null = input.toDocument ?? null;
  if (!toLock && to) {
    const row = await tx.policyRevision.findUnique({ where: { id: to.pk }, select: { document: true } });
    toLock = row ? (JSON.parse(row.document) as PolicyLock) : null;
  }
  const diff = diffLocks(current ? (JSON.parse(current.revision.document) as PolicyLock) : emptyLock(policy.name), toLock ?? emptyLock(policy.name));
  const out: MovePreviewDto = {
    ...base,
    downgrades: diff.cookbooks.filter((c) => c.kind === 'downgraded').map((c) => ({ name: c.name, from: c.from!.version, to: c.to!.version })),
    removed_cookbooks: current ? diff.cookbooks.filter((c) => c.kind === 'removed').map((c) => c.name) : [],
    attribute_changes: current ? diff.attributes.map((a) => ({ kind: a.kind, precedence: a.precedence, path: a.path.join('.') })) : [],
    missing_artifacts: judged.missingArtifacts ?? [],
  };
  const manage = mayOverrideGuards(access, group.name);
  const blocked: string[] = [];
  const needs: MovePreviewDto['needs'] = [];
  const overrides: string[] = [];
  if (!can(access, 'stage.promote', { stage: group.name })) blocked.push(`You may not move policies into ${group.name}.`);
  if (judged.bad) {
    out.bad_revision = { reason: judged.bad.reason, marked_by: judged.bad.marked_by, marked_at: judged.bad.marked_at };
    blocked.push(`Revision ${judged.bad.revision_id.slice(0, 10)} is marked bad by ${judged.bad.marked_by}: ${judged.bad.reason}.`);
  }
  if (judged.freeze) {
    out.freeze = { reason: judged.freeze.reason, ends_at: judged.freeze.ends_at, may_override: manage };
    if (manage) {
      needs.push('freeze_override_reason');
      overrides.push('the freeze');
    } else blocked.push(`${group.name} is frozen until ${dateTime(judged.freeze.ends_at)} (${judged.freeze.reason}); only those who manage ${group.name} may override.`);
  }
  if (judged.gate) {
    const g = judged.gate;
    out.gate = { met: g.met, from_stage: g.fromStage, unmet: g.unmet, converged: g.converged, required: g.required, nodes: g.nodes, failed: g.failed, success_pct: g.successPct, failure_pct: g.failurePct, soaked_minutes: g.soakedMinutes, may_override: manage, opens_at: g.opensAt, ...(g.checks ? { checks: g.checks } : {}) };
    if (!g.met) {
      if (manage) {
        needs.push('gate_override_reason');
        overrides.push('the gate');
      } else blocked.push(`The promotion gate of ${group.name} is not met: ${g.unmet.join('; ')}. ${gateOpensWords(g, dateTime)} Only those who manage ${group.name} may override it.`);
    }
  }
  // Issues 43 and 41: a revision that failed in this stage goes back only with a manager's written override; a failure elsewhere is told.
  out.verdicts = { here: judged.verdicts.here, elsewhere: judged.verdicts.elsewhere.filter((v) => can(access, 'stage.view', { stage: v.stage })), may_override: manage };
  if (judged.verdicts.here.length) {
    const v = judged.verdicts.here[judged.verdicts.here.length - 1];
    if (manage) {
      needs.push('verdict_override_reason');
      overrides.push(`its failure in ${group.name}`);
    } else blocked.push(`Revision ${v.revision_id.slice(0, 10)} ${verdictLine(v, `on ${dateTime(v.at)}`)}; only those who manage ${group.name} may move it there again, with a written reason.`);
  }
  if (out.missing_artifacts.length) needs.push('override_reason');
  if (judged.approval) {
    out.protected = true;
    out.approvals_required = judged.approval.requirement.approvalsRequired;
    out.reasons = judged.approval.requirement.reasons.map((r) => ({ rule: r.rule, approvals: r.approvals, message: r.message, details: r.details }));
  } else {
    out.protected = !!(await tx.stageProtection.findUnique({ where: { groupId: group.id }, select: { groupId: true } }));
  }
  out.needs = needs;
  out.blocked_by = blocked;
  const n = out.approvals_required;
  if (blocked.length) {
    out.outcome = 'blocked';
    out.action = judged.bad
      ? 'Revision marked bad'
      : judged.freeze && !manage
        ? 'Frozen'
        : judged.gate && !judged.gate.met && !manage
          ? 'Promotion gate not met'
          : judged.verdicts.here.length && !manage
            ? `Failed in ${group.name} before`
            : 'Cannot move';
    out.summary = blocked.join(' ');
    return out;
  }
  const override = overrides.length ? `Override ${overrides.join(' and ')}` : '';
  if (n > 0) {
    out.outcome = 'request';
    out.action = override ? `${override} and request ${plural(n)}` : `Request ${plural(n)}`;
    out.summary = `This change needs ${plural(n)} in ${group.name} (${out.reasons[0]?.message ?? 'the stage asks for them'}): confirming opens a promotion request; nothing moves until it is approved.`;
  } else {
    out.outcome = 'move';
    out.action = override || 'Move now';
    out.summary = out.protected
      ? `${group.name} is protected, but its rules ask for no approval of this change: it moves at once.`
      : `${group.name} needs no approval: the change moves at once.`;
  }
  return out;
}
