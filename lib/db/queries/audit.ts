import type { Access } from '@/lib/auth/permissions';
import { can } from '@/lib/auth/permissions';
import { badRequest } from '@/lib/errors';
import { caseInsensitive, db } from '../client';

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

function date(q: URLSearchParams, key: string): Date | undefined {
  const v = q.get(key);
  if (!v) return undefined;
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) throw badRequest(`${key} must be a date (YYYY-MM-DD or ISO 8601), got '${v}'`, [{ path: `/${key}`, message: 'must be a date' }]);
  return d;
}

export function parseAuditFilter(q: URLSearchParams): AuditFilter {
  const limit = q.get('limit') ? Number(q.get('limit')) : 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > 5000) throw badRequest('limit must be a whole number from 1 to 5000', [{ path: '/limit', message: 'must be 1 to 5000' }]);
  const until = date(q, 'until');
  return {
    actor: q.get('actor') || undefined,
    stage: q.get('stage') || undefined,
    policy: q.get('policy') || undefined,
    action: q.get('action') || undefined,
    since: date(q, 'since'),
    // A bare date means the whole day.
    until: until && /^\d{4}-\d{2}-\d{2}$/.test(q.get('until') ?? '') ? new Date(until.getTime() + 86_400_000 - 1) : until,
    limit,
    cursor: q.get('cursor') || undefined,
  };
}

const parse = (s: string | null) => (s === null ? null : (JSON.parse(s) as unknown));

/**
 * What a non-admin may read (issue 17, item 18): events of stages they may
 * view, and events about policies and revisions (readable by every signed-in
 * user). Everything else without a stage (users, teams, tokens, scenarios,
 * git repositories, sign-in lockouts) is for admins only. In the query, so
 * pages stay full.
 */
function visibleTo(access: Access) {
  if (access.isAdmin) return {};
  const stages = [...access.stageLevels.keys()].filter((stage) => can(access, 'stage.view', { stage }));
  return { OR: [{ groupName: { in: stages } }, { groupName: null, targetType: { in: ['policy', 'revision'] } }] };
}

/** Audit events, newest first, that the reader may see (admins see everything). */
export async function listAudit(access: Access, f: AuditFilter): Promise<{ events: AuditEventDto[]; nextCursor: string | null }> {
  const rows = await db().auditEvent.findMany({
    where: {
      ...visibleTo(access),
      // Case-insensitive on both databases, as the filter promises.
      ...(f.actor ? { actorEmail: { contains: f.actor, ...caseInsensitive() } } : {}),
      ...(f.stage ? { groupName: f.stage } : {}),
      ...(f.policy ? { policyName: f.policy } : {}),
      ...(f.action ? { action: { startsWith: f.action, ...caseInsensitive() } } : {}),
      ...(f.since || f.until ? { createdAt: { ...(f.since ? { gte: f.since } : {}), ...(f.until ? { lte: f.until } : {}) } } : {}),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: f.limit + 1,
    ...(f.cursor ? { cursor: { id: f.cursor }, skip: 1 } : {}),
  });
  const page = rows.slice(0, f.limit);
  return {
    events: page.map((r) => ({
      id: r.id,
      at: r.createdAt.toISOString(),
      actor: r.actorEmail,
      action: r.action,
      targetType: r.targetType,
      target: r.target,
      stage: r.groupName,
      policy: r.policyName,
      before: parse(r.before),
      after: parse(r.after),
      reason: r.reason,
      requestId: r.requestId,
    })),
    nextCursor: rows.length > f.limit ? rows[f.limit - 1].id : null,
  };
}

const csvCell = (v: unknown) => {
  const s = v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  // Quote every cell; neutralise spreadsheet formulas.
  // Tab and carriage return too: spreadsheets strip them and then read the formula (issue 17, item 22).
  const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return `"${safe.replace(/"/g, '""')}"`;
};

export function auditCsv(events: AuditEventDto[]): string {
  const head = ['at', 'actor', 'action', 'target_type', 'target', 'stage', 'policy', 'before', 'after', 'reason', 'request_id'];
  const lines = events.map((e) => [e.at, e.actor, e.action, e.targetType, e.target, e.stage, e.policy, e.before, e.after, e.reason, e.requestId].map(csvCell).join(','));
  return [head.join(','), ...lines].join('\r\n') + '\r\n';
}
