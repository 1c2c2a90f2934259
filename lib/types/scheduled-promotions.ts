/** Issue 29: a promotion scheduled for later ("at 02:00 UTC", "when the freeze ends"). */
export interface ScheduledPromotionDto {
  id: string;
  stage: string;
  policy: string;
  /** The stage the revision came from when it was scheduled (null: a revision given by id). */
  from_stage: string | null;
  /** The revision that will move (fixed when scheduled). */
  to_revision_id: string;
  /** What the stage ran when scheduled: the apply is a compare-and-swap against it. */
  expected_revision_id: string | null;
  /** at: at `run_at`; freeze_end: when the freeze covering the stage ends (`run_at` is that end). */
  when: 'at' | 'freeze_end';
  run_at: string;
  reason: string | null;
  /** pending → applied (moved) | requested (a promotion request opened: the stage is protected) | failed (the guard refused then) | cancelled. */
  status: 'pending' | 'applied' | 'requested' | 'failed' | 'cancelled';
  /** { audit_id } | { request_id, approvals_required } | { status, error } | { cancelled_by }. */
  outcome: Record<string, unknown> | null;
  scheduled_by: string;
  created_at: string;
  decided_at: string | null;
  /** Whether the reader may cancel it now (pending, and they scheduled it or manage the stage). */
  may_cancel: boolean;
}
