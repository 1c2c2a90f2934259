/**
 * Issue 29: the decision part of the one pointer guard. `judgeMove` reads
 * everything the guard decides on — the bad mark, the freeze, the promotion
 * gate, the missing artifacts of a stage that requires them, and the
 * approvals the stage's rules ask for — and decides nothing. `movePointer`
 * enforces its answer (throws, overrides, opens a request or moves); the
 * read-only preview (lib/services/promotion/move-preview.ts) reports the same answer
 * before the click. No rule is written twice: both call this function.
 */
import type { Tx } from '@/lib/db/client';
import { lockPins, missingArtifacts, revisionPins } from '@/lib/db/queries/missing-artifacts';
import type { PolicyLock } from '@/lib/domain';
import type { GateEvaluation } from '@/lib/domain/rollout';
import { activeFreeze, badMarkOf, moveRequirement, type BadMark, type FreezeWindowNow, type MoveJudged } from './guard';
import { evaluateStageGate } from './rollout-gate';
import { verdictsOn, type StageVerdictDto } from './verdict';

/** The kinds of move a pointer change is (history `kind`). */
/** `ring`: the last step of a ringed rollout (issue 30), whose start passed the gate (not gated again). */
export type PointerKind = 'set' | 'promote' | 'promote-cookbook' | 'rollback' | 'remove' | 'seed' | 'ring';

/** Issue 26: the kinds of move a promotion gate checks (a rollback, a removal and the seed are not promotions). */
export const GATED_KINDS: ReadonlySet<PointerKind> = new Set(['set', 'promote', 'promote-cookbook']);

/**
 * Issues 43 and 41: the kinds of move a stage's verdict (the revision failed there) refuses without a manager's
 * written override: every move a person (or their tool) makes onto a revision. Not the automatic rollback, the
 * seed, a removal, nor a ring's last step (its start was judged).
 */
export const VERDICT_KINDS: ReadonlySet<PointerKind> = new Set(['set', 'promote', 'promote-cookbook', 'rollback']);

export interface MoveJudgeInput {
  group: { id: string; name: string };
  policy: { id: string; name: string };
  /** What the stage runs now (null: nothing). */
  current: { revisionId: string; pk: string } | null;
  /** The new revision (null: the policy is removed from the stage). */
  to: { pk: string; revisionId: string } | null;
  /** The target's document when it is not stored yet (a cookbook promotion's dry run; `to.pk` is then ''). */
  toDocument?: PolicyLock;
  kind: PointerKind;
  /** The revision whose convergence the gate judges, when not `to` (a cookbook promotion: its source stage's revision). */
  gateSubject?: { revisionId: string };
  /** The move applies an approved request: approvals are not judged again here (the apply re-judges them). */
  approvedRequest?: boolean;
  /** The automatic rollback: no gate and no approvals. */
  automatic?: boolean;
  now: Date;
}

export interface MoveJudgement {
  /** False for the seed: nothing is checked. */
  guarded: boolean;
  bad: BadMark | null;
  freeze: FreezeWindowNow | null;
  /** The gate's evaluation (null: no gate, or not a gated move). */
  gate: GateEvaluation | null;
  /** Cookbooks without an artifact, when the stage requires artifacts (null: it does not, or nothing arrives). */
  missingArtifacts: string[] | null;
  /** The approvals the stage's rules ask for and the diff they judged (null: not protected, or not judged for this move). */
  approval: MoveJudged | null;
  /**
   * Issues 43 and 41: the revision's verdicts in force — `here`: it failed in this very stage (refused without
   * a manager's written override); `elsewhere`: it failed in other stages (told, not refused).
   */
  verdicts: { here: StageVerdictDto[]; elsewhere: StageVerdictDto[] };
}

/** Everything the guard decides a move on, read in the caller's transaction; decides nothing, writes nothing. */
export async function judgeMove(tx: Tx, input: MoveJudgeInput): Promise<MoveJudgement> {
  const { group, policy, to, now } = input;
  const guarded = input.kind !== 'seed';
  const judgeGate = guarded && !!to && GATED_KINDS.has(input.kind) && !input.automatic;
  const judgeApprovals = guarded && !input.approvedRequest && !input.automatic;
  const judgeVerdicts = guarded && !!to && VERDICT_KINDS.has(input.kind) && !input.automatic;
  const [bad, freeze, gate, setting, approval, verdicts] = await Promise.all([
    guarded ? badMarkOf(tx, policy.name, to) : null,
    guarded ? activeFreeze(tx, group, now) : null,
    judgeGate ? evaluateStageGate(tx, group, policy.name, (input.gateSubject ?? to!).revisionId, now) : null,
    to ? tx.policyGroup.findUnique({ where: { id: group.id }, select: { requireArtifacts: true } }) : null,
    judgeApprovals ? moveRequirement(tx, group, policy, input.current, to, input.toDocument) : null,
    judgeVerdicts ? verdictsOn(tx, policy.name, to!.revisionId) : [],
  ]);
  let missing: string[] | null = null;
  if (to && setting?.requireArtifacts) missing = await missingArtifacts(input.toDocument ? lockPins(input.toDocument) : await revisionPins(tx, to.pk), tx);
  return {
    guarded,
    bad,
    freeze,
    gate,
    missingArtifacts: missing,
    approval,
    verdicts: { here: verdicts.filter((v) => v.stage === group.name), elsewhere: verdicts.filter((v) => v.stage !== group.name) },
  };
}
