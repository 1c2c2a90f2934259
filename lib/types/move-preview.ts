import type { CheckResult } from '@/lib/domain/rollout';
import type { StageVerdictDto } from './verdicts';

/**
 * Issue 29: the guard's answer before the click — what `movePointer` would do
 * with this move now (the dry run of the same judgement, lib/services/funnel/move-judge.ts).
 * `POST /api/v1/policy_groups/{group}/policies/{name}/preview` returns it, and
 * every dialog that can move a pointer shows it.
 */
export type MoveOutcome = 'unchanged' | 'move' | 'request' | 'blocked';

export interface MovePreviewDto {
  stage: string;
  policy: string;
  /** What the stage runs now, and what it would run. */
  from_revision_id: string | null;
  to_revision_id: string | null;
  /**
   * unchanged: the stage already runs it; move: it moves at once on confirm;
   * request: a promotion request is opened (nothing moves until approved);
   * blocked: the guard refuses for this user (`blocked_by` says why).
   */
  outcome: MoveOutcome;
  /** The confirm button's words: "Move now", "Request 2 approvals", "Override the freeze", … */
  action: string;
  /** One sentence for the dialog. */
  summary: string;
  /** Why the move is refused for this user (empty unless blocked). */
  blocked_by: string[];
  /** The override reasons the confirm needs (the matching request fields). */
  needs: ('freeze_override_reason' | 'gate_override_reason' | 'override_reason' | 'verdict_override_reason')[];
  /** The stage asks for approvals (protected); `approvals_required` 0 means this change needs none. */
  protected: boolean;
  approvals_required: number;
  /** Which rules ask for them: "2 approvals: nginx 11.6.2 → 12.0.0 is a major bump". */
  reasons: { rule: string; approvals: number; message: string; details: string[] }[];
  freeze: { reason: string; ends_at: string; may_override: boolean } | null;
  bad_revision: { reason: string; marked_by: string; marked_at: string } | null;
  /** The promotion gate of the stage (null: no gate for this move). Unmet: `unmet` lists the missing numbers. */
  gate: { met: boolean; from_stage: string | null; unmet: string[]; converged: number; required: number; nodes: number; failed: number; success_pct: number; failure_pct: number; soaked_minutes: number; may_override: boolean; opens_at: string | null; checks?: CheckResult[] } | null;
  /**
   * Issues 43 and 41: where the revision failed (stage verdicts in force). `here`: in this very stage — refused
   * unless someone who manages it overrides with a written reason (`may_override`); `elsewhere`: in other stages
   * the reader may view — told, not refused.
   */
  verdicts: { here: StageVerdictDto[]; elsewhere: StageVerdictDto[]; may_override: boolean };
  /** Cookbooks without an artifact on the server, when the stage requires them. */
  missing_artifacts: string[];
  /** Cookbooks that would go back to an older version (what the stage runs now → what it would run). */
  downgrades: { name: string; from: string; to: string }[];
  /** Cookbooks that would be removed. */
  removed_cookbooks: string[];
  /** Attribute changes (precedence and path), e.g. attributes reverted to an older value. */
  attribute_changes: { kind: 'added' | 'removed' | 'changed'; precedence: string; path: string }[];
}
