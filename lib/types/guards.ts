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

export interface WebhookRow {
  id: string;
  name: string;
  url: string;
  events: string[];
  slack: boolean;
  active: boolean;
  createdBy: string | null;
  createdAt: string;
  /** The newest delivery: what happened last. */
  last: { event: string; status: string; statusCode: number | null; at: string } | null;
  pending: number;
  failed: number;
}

export interface DeliveryRow {
  id: string;
  event: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
  nextAttemptAt: string | null;
  log: { attempt: number; statusCode: number | null; error: string | null; durationMs: number; at: string }[];
}
