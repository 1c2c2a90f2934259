/** The audit log's filter as a query string (the API route and the audit page read the same one). */
import { z } from 'zod';
import type { AuditFilter } from '@/lib/types/audit';

const text = (max = 255) => z.string().max(max, `is at most ${max} characters`).optional().transform((v) => v || undefined);
/** A date or date-time; with `wholeDay`, a bare date (YYYY-MM-DD) means its last millisecond. */
const date = (wholeDay: boolean) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (!v) return undefined;
      const d = new Date(v);
      if (Number.isNaN(d.getTime())) {
        ctx.addIssue({ code: 'custom', message: `must be a date (YYYY-MM-DD or ISO 8601), got '${v.slice(0, 40)}'` });
        return z.NEVER;
      }
      return wholeDay && /^\d{4}-\d{2}-\d{2}$/.test(v) ? new Date(d.getTime() + 86_400_000 - 1) : d;
    });

export const ZAuditQuery = z
  .object({
    actor: text().describe('Part of the actor’s email'),
    stage: text().describe('Stage name'),
    policy: text().describe('Policy name'),
    action: text(100).describe('An action or an action prefix (pointer matches pointer.promote)'),
    since: date(false).describe('From this date or time (YYYY-MM-DD or ISO 8601)'),
    until: date(true).describe('Up to this date or time; a bare date means the whole day'),
    limit: z
      .string()
      .optional()
      .transform((v, ctx) => {
        if (!v) return 100;
        const n = Number(v);
        if (!Number.isInteger(n) || n < 1 || n > 5000) {
          ctx.addIssue({ code: 'custom', message: 'must be a whole number from 1 to 5000' });
          return z.NEVER;
        }
        return n;
      })
      .describe('Events per page, 1 to 5000 (default 100)'),
    cursor: text(100).describe('nextCursor of the previous page'),
    format: z.enum(['json', 'csv'], { error: "must be 'json' or 'csv'" }).optional().describe('csv: a spreadsheet-safe CSV download'),
  })
  .transform(({ format, ...f }): AuditFilter & { format: 'json' | 'csv' } => ({ ...f, format: format ?? 'json' }));
