/** Issue 27: the last imports and their reports, for Admin → Import (administrators). */
import { can, type Access } from '@/lib/auth/permissions';
import type { ImportReport, ImportRunDto } from '@/lib/types/import';
import { db } from '../../db/client';

/** The `limit` most recent import runs, newest first; an empty list for anyone who may not import. */
export async function recentImports(access: Access, limit = 20): Promise<ImportRunDto[]> {
  if (!can(access, 'admin.import')) return [];
  const rows = await db().importRun.findMany({ orderBy: [{ startedAt: 'desc' }, { id: 'desc' }], take: limit });
  return rows.map((r) => {
    let report: ImportReport | null = null;
    try {
      const parsed = JSON.parse(r.report) as Partial<ImportReport>;
      report = Array.isArray(parsed.imported) ? (parsed as ImportReport) : null;
    } catch {
      report = null;
    }
    return {
      id: r.id,
      source: r.source,
      dryRun: r.dryRun,
      prefer: r.prefer,
      status: r.status,
      startedBy: r.startedBy,
      startedAt: r.startedAt.toISOString(),
      finishedAt: r.finishedAt?.toISOString() ?? null,
      imported: r.imported,
      unchanged: r.unchanged,
      skipped: r.skipped,
      conflicts: r.conflicts,
      report,
    };
  });
}
