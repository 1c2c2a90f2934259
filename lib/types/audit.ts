/** Audit DTOs shared by the query layer, the API and the pages (no database types). */

export interface AuditFilter {
  actor?: string;
  stage?: string;
  policy?: string;
  /** An action or an action prefix (`pointer` matches `pointer.promote`). */
  action?: string;
  since?: Date;
  until?: Date;
  limit: number;
  cursor?: string;
}

export interface AuditEventDto {
  id: string;
  at: string;
  actor: string | null;
  action: string;
  targetType: string;
  target: string;
  stage: string | null;
  policy: string | null;
  before: unknown;
  after: unknown;
  reason: string | null;
  requestId: string | null;
}
