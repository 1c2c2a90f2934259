/** DTOs of the guarded-stage admin screens (issue 15): the queries build them, the client components show them. */
import type { ApprovalRule } from '@/lib/domain';

/** An approver grant of a stage. */
export interface ApproverDto {
  /** "user:<email>" or "team:<name>": what the inputs take. */
  principal: string;
  type: 'user' | 'team';
  /** The user's email or the team's name. */
  name: string;
}

/** A freeze window of a stage, as the API, the admin screen and the board read it. */
export interface FreezeWindowDto {
  id: string;
  stage: string;
  starts_at: string;
  ends_at: string;
  weekly: boolean;
  reason: string;
  created_by: string | null;
  created_at: string;
  /** The occurrence covering now, if any. */
  active: { starts_at: string; ends_at: string } | null;
  /** The next occurrence after now (null for a past one-off window). */
  next: { starts_at: string; ends_at: string } | null;
  /** A one-off window that has ended. */
  past: boolean;
}

/**
 * The guard state of one stage (issue 22: one shape for every reader). The board, the admin Stages
 * screen, `GET /api/v1/policy_groups/{group}/guard` and the protection and freeze routes all read it
 * from `stageGuardStates` (lib/db/queries/stage-guard-state.ts); the move guard itself judges a move
 * with `judgeMove` from the same tables.
 */
export interface StageGuardState {
  stage: string;
  /** Whether changes into the stage need approval. */
  protected: boolean;
  /** Approvals every change needs at least (rules may ask for more). */
  approvals_required: number;
  rules: ApprovalRule[];
  approvers: ApproverDto[];
  /** Every freeze window of the stage, past ones included, newest start first. */
  freezes: FreezeWindowDto[];
  /** Frozen now: the window ending last among those in force (its reason), and when the stage opens through chained windows. */
  frozen: { window_id: string; reason: string; weekly: boolean; ends_at: string; opens_at: string; windows: { id: string; reason: string; ends_at: string }[] } | null;
  /** The next freeze starting after now. */
  next_freeze: { window_id: string; reason: string; starts_at: string; ends_at: string } | null;
  /** Pending, unexpired promotion requests into the stage. */
  pending_requests: number;
  /** Whether the viewer is an approver of this stage (directly or through a team). */
  viewer_is_approver: boolean;
  /** Whether the viewer may edit protection and freezes here and override a freeze (manage). */
  viewer_can_manage: boolean;
  /** Who last changed the protection, and when. */
  updated_by: string | null;
  updated_at: string | null;
}

/** The protection part of a stage's guard state (`GET/PUT /api/v1/policy_groups/{group}/protection`). */
export type StageProtectionDto = Pick<StageGuardState, 'stage' | 'protected' | 'approvals_required' | 'rules' | 'approvers' | 'updated_by' | 'updated_at'>;

/** A webhook subscription, as /api/v1/webhooks and the admin page show it (one read model: lib/services/webhooks/webhooks.ts). */
export interface WebhookDto {
  id: string;
  name: string;
  url: string;
  events: string[];
  slack: boolean;
  /** Issue 29: the body format: json | slack | teams. */
  format: 'json' | 'slack' | 'teams';
  /** Issue 28: an admin allowed loopback/link-local/private targets for this subscription. */
  allow_private_targets: boolean;
  active: boolean;
  created_by: string | null;
  created_at: string;
  /** Deliveries waiting (pending), delivered and given up, for the list. */
  counts: { pending: number; delivered: number; failed: number };
  /** The most recent attempt, if any. */
  last_attempt: { at: string; status_code: number | null; error: string | null } | null;
  /** The newest delivery (what happened last), if any. */
  last_delivery: { event: string; status: string; status_code: number | null; at: string } | null;
}

/** One delivery of a subscription, with every attempt. */
export interface WebhookDeliveryDto {
  id: string;
  event: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: string;
  /** Every attempt, oldest first. */
  log: { attempt: number; status_code: number | null; error: string | null; duration_ms: number; at: string }[];
}
