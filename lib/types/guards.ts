/** DTOs of the guarded-stage admin screens (issue 15): the queries build them, the client components show them. */
import type { ApprovalRule } from '@/lib/domain';

export interface FreezeRow {
  id: string;
  startsAt: string;
  endsAt: string;
  weekly: boolean;
  reason: string;
  createdBy: string | null;
  /** In force now. */
  active: boolean;
  /** A one-off window that has ended (kept for the history). */
  past: boolean;
}

export interface StageGuardsRow {
  stage: string;
  canManage: boolean;
  /** null: the stage does not require approval. */
  protection: { approvalsRequired: number; rules: ApprovalRule[] } | null;
  /** principal: "user:<email>" or "team:<name>" (what the approver inputs take). */
  approvers: { principal: string; kind: 'user' | 'team'; label: string }[];
  freezes: FreezeRow[];
}

/** A webhook subscription, as /api/v1/webhooks and the admin page show it (one read model: lib/services/webhooks.ts). */
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
