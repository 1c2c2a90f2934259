import type { Access } from '@/lib/auth/permissions';
import { can } from '@/lib/auth/permissions';
import type { AuditEventDto, AuditFilter } from '@/lib/types/audit';
import { parseInput } from '@/lib/validation/parse';
import { ZAuditQuery } from '@/lib/validation/audit';
import { caseInsensitive, db } from '../client';

export type { AuditEventDto, AuditFilter } from '@/lib/types/audit';

/** The filter from a query string (the audit page); a 400 naming the parameter and the rule otherwise. */
export function parseAuditFilter(q: URLSearchParams): AuditFilter {
  const { format: _format, ...filter } = parseInput(ZAuditQuery, Object.fromEntries(q));
  return filter;
}

const parse = (s: string | null) => (s === null ? null : (JSON.parse(s) as unknown));

/**
 * What a non-admin may read (issue 17, item 18): events of stages they may
 * view, and events about policies and revisions (readable by every signed-in
 * user). Everything else without a stage (users, teams, tokens, scenarios,
 * git repositories, sign-in lockouts) is for those the table lets read every
 * event (`audit.read-all`: administrators). In the query, so pages stay full.
 */
function visibleTo(access: Access) {
  if (can(access, 'audit.read-all')) return {};
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
